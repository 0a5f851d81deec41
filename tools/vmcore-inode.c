// SPDX-License-Identifier: LGPL-2.1-or-later
/* vmcore-inode: decode the inodes a kernel's dump_inode() reported. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "inodedump.h"

enum exit_code {
	EXIT_CLEAN = 0,	      /* decoded, no violation */
	EXIT_VIOLATION = 1,   /* decoded, at least one violation */
	EXIT_USAGE = 2,	      /* bad command line */
	EXIT_UNREADABLE = 3,  /* input could not be read or decoded */
};

static const char usage_text[] =
	"usage: vmcore-inode [-k VMLINUX] [--json] [--force] [--ignore-build-id]\n"
	"                    VMCORE [ADDRESS...]\n"
	"       vmcore-inode [-k VMLINUX] --log VMCORE\n"
	"       vmcore-inode [-k VMLINUX] --info VMCORE\n"
	"       vmcore-inode [-k VMLINUX] --live [ADDRESS...]   (reads /proc/kcore)\n"
	"       vmcore-inode [-k VMLINUX] --sweep [--jsonl] [--violations-only]\n"
	"                    [--fs NAME] [--sb ADDRESS] [--type T,...] VMCORE\n"
	"\n"
	"Decode the struct inode at each ADDRESS (hex, as the kernel's %%px\n"
	"prints it: \"encountered for inode ffff935e008f6850\") in VMCORE, using\n"
	"the types and symbols of VMLINUX (the kernel's debuginfo vmlinux).\n"
	"With no ADDRESS, find every dump_inode() report in the kernel log inside\n"
	"VMCORE and decode each reported inode (--reports).\n"
	"\n"
	"  -k, --vmlinux FILE    vmlinux with DWARF of the dumped kernel; without\n"
	"                        it, found by the dump's release in\n"
	"                        /usr/lib/debug/boot/vmlinux-R,\n"
	"                        /usr/lib/debug/lib/modules/R/vmlinux,\n"
	"                        /boot/vmlinux-R, /lib/modules/R/build/vmlinux\n"
	"      --debug-root DIR  look for vmlinux below DIR instead of /\n"
	"  -i, --info            what the dump and vmlinux are, and whence\n"
	"  -r, --reports         decode the inodes the kernel log reported\n"
	"  -l, --log             print the kernel log like dmesg(1)\n"
	"  -j, --json            one JSON document (schema %d) instead of text\n"
	"  -f, --force           decode addresses that fail the inode checks\n"
	"  -s, --sweep           check every inode of every superblock\n"
	"      --jsonl           (sweep) one JSON object per inode, then a summary\n"
	"      --violations-only (sweep) only inodes with a violation\n"
	"      --fs NAME, --sb ADDRESS, --type regular,symlink,...\n"
	"                        (sweep) filters\n"
	"      --paths           (sweep) also walk each inode's paths\n"
	"      --holders         also list the tasks holding each inode (fd,\n"
	"                        cwd, root): walks every task\n"
	"      --ignore-build-id open even if vmlinux is not the dump's kernel\n"
	"  -h, --help            this help\n"
	"\n"
	"exit status: 0 decoded, no violation; 1 decoded, at least one\n"
	"violation; 2 usage error; 3 input could not be read or decoded.\n";

static void usage(FILE *out)
{
	fprintf(out, usage_text, INODEDUMP_JSON_SCHEMA);
}

static bool parse_address(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	if (!*s)
		return false;
	*out = strtoull(s, &end, 16);
	return !errno && *end == '\0';
}

static const char *code_name(enum inodedump_error_code code)
{
	switch (code) {
	case INODEDUMP_ERR_NOMEM: return "out of memory";
	case INODEDUMP_ERR_USAGE: return "usage";
	case INODEDUMP_ERR_DUMP: return "dump";
	case INODEDUMP_ERR_VMLINUX: return "vmlinux";
	case INODEDUMP_ERR_MISMATCH: return "mismatch";
	case INODEDUMP_ERR_TYPE: return "type";
	case INODEDUMP_ERR_FAULT: return "fault";
	case INODEDUMP_ERR_FILTERED: return "filtered";
	case INODEDUMP_ERR_NOT_INODE: return "not-inode";
	}
	return "error";
}

static void json_error(FILE *out, uint64_t addr, struct inodedump_error *err)
{
	uint64_t where;

	fprintf(out, "{\"address\": \"0x%" PRIx64 "\", \"error\": {\"kind\": "
		     "\"%s\", \"message\": \"",
		addr, code_name(inodedump_error_code(err)));
	for (const char *p = inodedump_error_message(err); *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', out);
		if ((unsigned char)*p >= 0x20)
			fputc(*p, out);
	}
	fputc('"', out);
	if (inodedump_error_address(err, &where))
		fprintf(out, ", \"address\": \"0x%" PRIx64 "\"", where);
	fputs("}}", out);
}

/* A decoded inode counts toward the exit status, then goes. */
static void done_with(struct inodedump_inode *ino, int *status)
{
	if (inodedump_inode_violations(ino) && *status == EXIT_CLEAN)
		*status = EXIT_VIOLATION;
	inodedump_inode_free(ino);
}

static void print_json_head(struct inodedump *id)
{
	const char *release = inodedump_fact(id, "osrelease");

	printf("{\n  \"schema\": %d,\n  \"osrelease\": \"%s\",\n"
	       "  \"inodes\": [",
	       INODEDUMP_JSON_SCHEMA, release ? release : "");
}

static void print_info(struct inodedump *id)
{
	static const struct {
		const char *fact, *label, *whence;
	} facts[] = {
		{ "format", "format", "dump header" },
		{ "reader", "read by", NULL },
		{ "translation", "translated by", NULL },
		{ "dump_level", "dump level", "diskdump sub-header" },
		{ "arch", "architecture", "dump header, else vmlinux" },
		{ "osrelease", "release", "VMCOREINFO OSRELEASE" },
		{ "build_id", "build-id", "VMCOREINFO BUILD-ID" },
		{ "kaslr_offset", "KASLR offset", "VMCOREINFO KERNELOFFSET" },
		{ "page_size", "page size", "dump header" },
		{ "vmlinux", "vmlinux", NULL },
		{ "vmlinux_build_id", "vmlinux build-id", "vmlinux GNU build-id note" },
	};

	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		const char *v = inodedump_fact(id, facts[i].fact);

		printf("%-18s %s", facts[i].label, v ? v : "(unknown)");
		if (facts[i].whence || !strcmp(facts[i].fact, "vmlinux"))
			printf("  [%s]", facts[i].whence
						 ? facts[i].whence
						 : inodedump_fact(id, "vmlinux_source"));
		putchar('\n');
	}
}

static int print_log(struct inodedump *id)
{
	struct inodedump_log *log;
	struct inodedump_error *err = inodedump_read_log(id, &log);

	if (err) {
		fprintf(stderr, "vmcore-inode: %s\n", inodedump_error_message(err));
		inodedump_error_free(err);
		return EXIT_UNREADABLE;
	}
	if (inodedump_log_warning(log))
		fprintf(stderr, "vmcore-inode: %s\n", inodedump_log_warning(log));
	inodedump_log_print(log, stdout);
	inodedump_log_free(log);
	return EXIT_CLEAN;
}

static void json_text(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

static const char *format_name(enum inodedump_report_format f)
{
	switch (f) {
	case INODEDUMP_REPORT_6_15: return "6.15";
	case INODEDUMP_REPORT_6_18: return "6.18";
	case INODEDUMP_REPORT_2026: return "2026";
	}
	return "?";
}

static void caller_text(uint32_t caller, char *buf, size_t len)
{
	if (caller & 0x80000000u)
		snprintf(buf, len, "C%u", caller & 0x7fffffffu);
	else
		snprintf(buf, len, "T%u", caller);
}

/*
 * What the report line said against what memory says now: the inode may
 * have changed between the report and the dump.
 */
struct difference {
	const char *field;
	long long at_report, in_dump;
	const char *fmt;
};

static size_t differences(const struct inodedump_report *r,
			  const struct inodedump_inode *ino,
			  struct difference *out)
{
	static const struct {
		const char *key;
		const char *fmt;
	} fields[] = { { "mode", "0%llo" },  { "opflags", "0x%llx" },
		       { "flags", "0x%llx" }, { "state", "0x%llx" },
		       { "count", "%lld" } };
	long long rep[] = { r->fields.mode, r->fields.opflags, r->fields.flags,
			    r->fields.state, r->fields.count };
	size_t n = 0;

	if (!r->has_fields || !ino)
		return 0;
	for (size_t i = 0; i < 5; i++) {
		int64_t now;

		if (!inodedump_inode_number(ino, fields[i].key, &now) ||
		    now == rep[i])
			continue;
		out[n++] = (struct difference){ fields[i].key, rep[i],
						(long long)now, fields[i].fmt };
	}
	return n;
}

static void print_report_text(const struct inodedump_report *r,
			      const struct difference *d, size_t nd)
{
	char caller[16];

	caller_text(r->caller_id, caller, sizeof(caller));
	printf("report  %s\n", r->reason);
	printf("  at [%5llu.%06llu] seq %llu by %s%s%s (dump_inode format %s)\n",
	       (unsigned long long)(r->ts_nsec / 1000000000),
	       (unsigned long long)(r->ts_nsec % 1000000000 / 1000),
	       (unsigned long long)r->seq, caller, r->task[0] ? " " : "",
	       r->task, format_name(r->format));
	if (r->location[0])
		printf("  %s\n", r->location);
	for (size_t i = 0; i < nd; i++) {
		printf("  %s at report ", d[i].field);
		printf(d[i].fmt, d[i].at_report);
		printf(", in dump ");
		printf(d[i].fmt, d[i].in_dump);
		putchar('\n');
	}
}

static void print_report_json(const struct inodedump_report *r,
			      const struct difference *d, size_t nd)
{
	char caller[16];

	caller_text(r->caller_id, caller, sizeof(caller));
	printf("{\"reason\": ");
	json_text(r->reason);
	printf(", \"address\": \"0x%" PRIx64 "\", \"format\": \"%s\", "
	       "\"seq\": %" PRIu64 ", \"timestamp_ns\": %" PRIu64
	       ", \"caller\": \"%s\", \"task\": ",
	       r->address, format_name(r->format), r->seq, r->ts_nsec, caller);
	if (r->task[0])
		json_text(r->task);
	else
		printf("null");
	printf(", \"location\": ");
	if (r->location[0])
		json_text(r->location);
	else
		printf("null");
	printf(", \"unreadable_at_report\": %s, \"fields_at_report\": ",
	       r->unreadable ? "true" : "false");
	if (r->has_fields) {
		printf("{\"fs_type\": ");
		json_text(r->fields.fs_type);
		printf(", \"mode\": %u, \"opflags\": %u, \"flags\": %u, "
		       "\"state\": %u, \"count\": %d}",
		       r->fields.mode, r->fields.opflags, r->fields.flags,
		       r->fields.state, r->fields.count);
	} else {
		printf("null");
	}
	printf(", \"differences\": [");
	for (size_t i = 0; i < nd; i++)
		printf("%s{\"field\": \"%s\", \"at_report\": %lld, "
		       "\"in_dump\": %lld}",
		       i ? ", " : "", d[i].field, d[i].at_report, d[i].in_dump);
	printf("]"); /* the caller adds the inode and closes the object */
}

/*
 * Every report in the log, each inode decoded once with its reports
 * grouped under it, in the order of first report.
 */
static int decode_reports(struct inodedump *id, unsigned flags, bool json)
{
	struct inodedump_log *log;
	struct inodedump_report *reps = NULL;
	struct inodedump_error *err = inodedump_read_log(id, &log);
	int status = EXIT_CLEAN;
	size_t n, groups = 0;

	if (err) {
		fprintf(stderr, "vmcore-inode: %s\n", inodedump_error_message(err));
		inodedump_error_free(err);
		return EXIT_UNREADABLE;
	}
	if (inodedump_log_warning(log))
		fprintf(stderr, "vmcore-inode: %s\n", inodedump_log_warning(log));
	err = inodedump_find_reports(log, &reps, &n);
	if (err) {
		fprintf(stderr, "vmcore-inode: %s\n", inodedump_error_message(err));
		inodedump_error_free(err);
		inodedump_log_free(log);
		return EXIT_UNREADABLE;
	}
	if (json) {
		print_json_head(id);
		printf("],\n  \"reports\": [");
	} else if (!n) {
		printf("no dump_inode() report in the kernel log (%zu records)\n",
		       inodedump_log_count(log));
	}
	for (size_t i = 0; i < n; i++) {
		struct inodedump_inode *ino = NULL;
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen = seen || reps[j].address == reps[i].address;
		if (seen)
			continue;
		err = inodedump_decode(id, reps[i].address, flags, &ino);
		if (!json && groups++)
			putchar('\n');
		for (size_t j = i; j < n; j++) {
			struct difference d[5];
			size_t nd;

			if (reps[j].address != reps[i].address)
				continue;
			nd = differences(&reps[j], ino, d);
			if (json) {
				printf("%s\n  ", j > 0 ? "," : "");
				print_report_json(&reps[j], d, nd);
				/* The inode object, once per report, inside it. */
				printf(", \"inode\": ");
				if (ino)
					inodedump_inode_print_json(ino, stdout);
				else
					json_error(stdout, reps[j].address, err);
				putchar('}');
			} else {
				print_report_text(&reps[j], d, nd);
			}
		}
		if (err) {
			fprintf(stderr, "vmcore-inode: %s\n",
				inodedump_error_message(err));
			inodedump_error_free(err);
			status = EXIT_UNREADABLE;
			continue;
		}
		if (!json)
			inodedump_inode_print_text(ino, stdout);
		done_with(ino, &status);
	}
	if (json)
		puts("\n  ]\n}");
	free(reps);
	inodedump_log_free(log);
	return status;
}

/* ---------------------------------------------------------------- sweep */

struct sweep_out {
	bool jsonl, violations_only, progress;
	/* Text: a superblock's violating inodes wait for its summary line. */
	char *pending;
	size_t pending_len;
	FILE *pending_f;
	size_t inodes, violations, unreadable_sbs;
	struct timespec start, last;
};

static double seconds_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) +
	       (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void sweep_inode(const struct inodedump_sweep_sb *sb,
			const struct inodedump_inode *ino, void *arg)
{
	struct sweep_out *so = arg;
	size_t v = inodedump_inode_violations(ino);

	so->inodes++;
	so->violations += v != 0;
	if (so->progress && seconds_since(&so->last) > 0.25) {
		clock_gettime(CLOCK_MONOTONIC, &so->last);
		fprintf(stderr, "\r%zu inodes, %.0f/s, superblock %s (%s)   ",
			so->inodes, so->inodes / seconds_since(&so->start),
			sb->fs_type, sb->s_id);
	}
	if (so->violations_only && !v)
		return;
	if (so->jsonl) {
		inodedump_inode_print_jsonl(ino, stdout);
		putchar('\n');
	} else if (v) {
		if (!so->pending_f)
			so->pending_f = open_memstream(&so->pending,
						       &so->pending_len);
		if (so->pending_f) {
			fputc('\n', so->pending_f);
			inodedump_inode_print_text(ino, so->pending_f);
		}
	}
}

static void sweep_sb(const struct inodedump_sweep_sb *sb, void *arg)
{
	static const char *const types[8] = { "regular", "directory", "symlink",
					      "fifo", "chardev", "blockdev",
					      "socket", "invalid" };
	struct sweep_out *so = arg;

	if (sb->error)
		so->unreadable_sbs++;
	if (so->jsonl) {
		printf("{\"superblock\": \"0x%" PRIx64 "\", \"fs_type\": ",
		       sb->address);
		json_text(sb->fs_type);
		printf(", \"s_id\": ");
		json_text(sb->s_id);
		printf(", \"inodes\": %zu, \"matched\": %zu, \"violations\": %zu, "
		       "\"by_type\": {", sb->inodes, sb->matched, sb->violations);
		for (int i = 0; i < 8; i++)
			printf("%s\"%s\": %zu", i ? ", " : "", types[i],
			       sb->by_type[i]);
		printf("}, \"error\": ");
		if (sb->error)
			json_text(sb->error);
		else
			printf("null");
		printf("}\n");
		return;
	}
	if (so->violations_only && !sb->violations && !sb->error)
		return;
	printf("%-12s %-16s 0x%" PRIx64 "  %zu inodes", sb->fs_type, sb->s_id,
	       sb->address, sb->matched);
	for (int i = 0; i < 8; i++)
		if (sb->by_type[i])
			printf(", %zu %s", sb->by_type[i], types[i]);
	printf("; %zu with violations\n", sb->violations);
	if (sb->error)
		printf("  WALK STOPPED: %s\n", sb->error);
	if (so->pending_f) {
		fclose(so->pending_f);
		fwrite(so->pending, 1, so->pending_len, stdout);
		putchar('\n');
		free(so->pending);
		so->pending_f = NULL;
		so->pending = NULL;
	}
}

static int run_sweep(struct inodedump *id,
		     const struct inodedump_sweep_opts *opts,
		     struct sweep_out *so)
{
	struct inodedump_error *err;

	so->progress = isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &so->start);
	so->last = so->start;
	err = inodedump_sweep(id, opts, sweep_inode, sweep_sb, so);
	if (so->progress)
		fprintf(stderr, "\r%60s\r", "");
	if (so->jsonl)
		printf("{\"summary\": {\"inodes\": %zu, \"violations\": %zu, "
		       "\"superblocks_cut_short\": %zu}}\n",
		       so->inodes, so->violations, so->unreadable_sbs);
	else
		printf("\n%zu inodes checked, %zu with violations, %zu "
		       "superblock walks cut short\n",
		       so->inodes, so->violations, so->unreadable_sbs);
	if (err) {
		fprintf(stderr, "vmcore-inode: %s\n", inodedump_error_message(err));
		inodedump_error_free(err);
		return EXIT_UNREADABLE;
	}
	return so->violations ? EXIT_VIOLATION : EXIT_CLEAN;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "force", no_argument, NULL, 'f' },
		{ "ignore-build-id", no_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ "reports", no_argument, NULL, 'r' },
		{ "log", no_argument, NULL, 'l' },
		{ "info", no_argument, NULL, 'i' },
		{ "holders", no_argument, NULL, 'H' },
		{ "live", no_argument, NULL, 'L' },
		{ "sweep", no_argument, NULL, 's' },
		{ "jsonl", no_argument, NULL, 'J' },
		{ "violations-only", no_argument, NULL, 'V' },
		{ "fs", required_argument, NULL, 'F' },
		{ "sb", required_argument, NULL, 'S' },
		{ "type", required_argument, NULL, 'T' },
		{ "paths", no_argument, NULL, 'P' },
		{ "debug-root", required_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	INODEDUMP_OPTS(inodedump_open_opts, opts);
	bool json = false, log = false, reports = false, info = false;
	bool live = false, sweep = false, sweep_paths = false;
	INODEDUMP_OPTS(inodedump_sweep_opts, sweep_opts);
	struct sweep_out so = { 0 };
	unsigned flags = 0;
	struct inodedump *id;
	struct inodedump_error *err;
	int c, status = EXIT_CLEAN;

	while ((c = getopt_long(argc, argv, "k:jfhrlis", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': opts.vmlinux = optarg; break;
		case 'j': json = true; break;
		case 'f': flags |= INODEDUMP_DECODE_FORCE; break;
		case 'I': opts.ignore_build_id = true; break;
		case 'h': usage(stdout); return EXIT_CLEAN;
		case 'r': reports = true; break;
		case 'l': log = true; break;
		case 'i': info = true; break;
		case 'H': flags |= INODEDUMP_DECODE_HOLDERS; break;
		case 'L': live = true; break;
		case 's': sweep = true; break;
		case 'J': so.jsonl = true; break;
		case 'V': so.violations_only = true; break;
		case 'F': sweep_opts.fs = optarg; break;
		case 'S':
			if (!parse_address(optarg, &sweep_opts.sb)) {
				fprintf(stderr, "vmcore-inode: --sb '%s' is not a "
						"hex address\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'T': sweep_opts.types = optarg; break;
		case 'P': sweep_paths = true; break;
		case 'D': opts.debug_root = optarg; break;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (live) {
		/* The live kernel is one more dump: /proc/kcore, in argv's place. */
		static char kcore[] = "/proc/kcore";

		if (optind > 0) {
			argv[--optind] = kcore;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "vmcore-inode: no VMCORE given\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	if ((reports || log || info || sweep) && optind + 1 < argc) {
		fprintf(stderr, "vmcore-inode: --reports, --log, --info and "
				"--sweep take no ADDRESS\n");
		return EXIT_USAGE;
	}
	for (int i = optind + 1; i < argc; i++) {
		uint64_t a;

		if (!parse_address(argv[i], &a)) {
			fprintf(stderr, "vmcore-inode: '%s' is not a hex address\n",
				argv[i]);
			return EXIT_USAGE;
		}
	}

	err = inodedump_open(argv[optind], &opts, &id);
	if (err) {
		fprintf(stderr, "vmcore-inode: %s\n", inodedump_error_message(err));
		inodedump_error_free(err);
		return EXIT_UNREADABLE;
	}
	if (!opts.vmlinux)
		fprintf(stderr, "vmcore-inode: using %s (%s)\n",
			inodedump_fact(id, "vmlinux"),
			inodedump_fact(id, "vmlinux_source"));
	if (info) {
		print_info(id);
		inodedump_close(id);
		return EXIT_CLEAN;
	}
	if (sweep) {
		sweep_opts.flags = flags | (sweep_paths ? 0 : INODEDUMP_DECODE_NO_PATHS);
		status = run_sweep(id, &sweep_opts, &so);
		inodedump_close(id);
		return status;
	}
	if (log || optind + 1 >= argc) {
		status = log ? print_log(id) : decode_reports(id, flags, json);
		inodedump_close(id);
		return status;
	}
	if (json)
		print_json_head(id);
	for (int i = optind + 1; i < argc; i++) {
		struct inodedump_inode *ino;
		uint64_t addr;

		parse_address(argv[i], &addr);
		err = inodedump_decode(id, addr, flags, &ino);
		if (json && i > optind + 1)
			fputs(",", stdout);
		if (json)
			fputs("\n  ", stdout);
		if (err) {
			if (json)
				json_error(stdout, addr, err);
			fprintf(stderr, "vmcore-inode: %s\n",
				inodedump_error_message(err));
			inodedump_error_free(err);
			status = EXIT_UNREADABLE;
			continue;
		}
		if (json) {
			inodedump_inode_print_json(ino, stdout);
		} else {
			if (i > optind + 1)
				putchar('\n');
			inodedump_inode_print_text(ino, stdout);
		}
		done_with(ino, &status);
	}
	if (json)
		puts("\n  ]\n}");
	inodedump_close(id);
	return status;
}
