// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vmcore-inode: decode the inodes a kernel's dump_inode() reported. The
 * arguments and the exit status; the library decodes and writes.
 */
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
	EXIT_PARTIAL = 4,     /* some of what was asked could not be read */
};

/*
 * The status a run ends with when several apply: 2 and 3 over 4 (a part
 * could not be read, so the answer is incomplete) over 1 over 0.
 */
static void worse(int *status, int code)
{
	static const int rank[] = { [EXIT_CLEAN] = 0, [EXIT_VIOLATION] = 1,
				    [EXIT_PARTIAL] = 2, [EXIT_UNREADABLE] = 3,
				    [EXIT_USAGE] = 4 };

	if (rank[code] > rank[*status])
		*status = code;
}

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
	"      --threads N       (sweep) 1: one thread; 2 (the default with two\n"
	"                        or more CPUs): decode on a second thread, same output\n"
	"      --holders         also list the tasks holding each inode (fd,\n"
	"                        cwd, root): walks every task\n"
	"      --ignore-build-id open even if vmlinux is not the dump's kernel\n"
	"  -h, --help            this help\n"
	"      --version         the version of inodedump\n"
	"\n"
	"exit status: 0 decoded, no violation; 1 decoded, at least one\n"
	"violation; 2 usage error; 3 input could not be read or decoded;\n"
	"4 partial: some of what was asked (the kernel log, a superblock's\n"
	"inodes) could not be read, said on stderr (4 wins over 1, 3 over 4).\n";

/* Long options without a short one. */
enum { OPT_VERSION = 0x100 };

static void usage(FILE *out)
{
	fprintf(out, usage_text, INODEDUMP_JSON_SCHEMA);
}

/* Hex, with an optional 0x, at most 64 bits: no sign, no spaces. */
static bool parse_address(const char *s, uint64_t *out)
{
	size_t n;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	n = strspn(s, "0123456789abcdefABCDEF");
	if (!n || s[n])
		return false;
	while (n > 1 && *s == '0') { /* leading zeros do not count */
		s++;
		n--;
	}
	if (n > 16)
		return false;
	*out = strtoull(s, NULL, 16);
	return true;
}

/* A decoded inode counts toward the exit status, then goes. */
static void done_with(struct inodedump_inode *ino, int *status)
{
	if (inodedump_inode_violations(ino))
		worse(status, EXIT_VIOLATION);
	inodedump_inode_free(ino);
}

/* An error said; its status: a caller's mistake is a usage error. */
static int unreadable(struct inodedump_error *err)
{
	int code = inodedump_error_code(err) == INODEDUMP_ERR_USAGE
			   ? EXIT_USAGE : EXIT_UNREADABLE;

	fprintf(stderr, "vmcore-inode: %s\n", inodedump_error_message(err));
	inodedump_error_free(err);
	return code;
}

/* A log read only in part: said, and the run is partial. */
static int log_status(const struct inodedump_log *log)
{
	if (!inodedump_log_warning(log))
		return EXIT_CLEAN;
	fprintf(stderr, "vmcore-inode: %s\n", inodedump_log_warning(log));
	return EXIT_PARTIAL;
}

static int print_log(struct inodedump *id)
{
	struct inodedump_log *log;
	struct inodedump_error *err = inodedump_read_log(id, &log);

	int status;

	if (err)
		return unreadable(err);
	status = log_status(log);
	inodedump_log_print(log, stdout);
	inodedump_log_free(log);
	return status;
}

/*
 * Every report in the log, each inode decoded once with its reports
 * grouped under it, in the order of first report.
 */
static int decode_reports(struct inodedump *id, unsigned flags,
			  enum inodedump_format format)
{
	struct inodedump_log *log;
	struct inodedump_report *reps = NULL;
	struct inodedump_document *doc;
	struct inodedump_error *err = inodedump_read_log(id, &log);
	int status = EXIT_CLEAN;
	size_t n;

	if (err)
		return unreadable(err);
	status = log_status(log);
	err = inodedump_find_reports(log, &reps, &n);
	if (err) {
		inodedump_log_free(log);
		return unreadable(err);
	}
	err = inodedump_document_begin(id, log, format, stdout, &doc);
	if (err) {
		free(reps);
		inodedump_log_free(log);
		return unreadable(err);
	}
	for (size_t i = 0; i < n; i++) {
		struct inodedump_inode *ino = NULL;
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen = seen || reps[j].address == reps[i].address;
		if (seen)
			continue;
		/*
		 * The kernel's own dump_inode() named it an inode: decode it as
		 * far as memory allows even where it fails the plausibility
		 * checks (a report of "fs:<unknown, sb unreadable>" has no
		 * superblock to find); what it lacks is in its errors.
		 */
		err = inodedump_decode(id, reps[i].address,
				       flags | INODEDUMP_DECODE_FORCE, &ino);
		for (size_t j = i; j < n; j++)
			if (reps[j].address == reps[i].address)
				inodedump_document_report(doc, &reps[j], ino, err);
		if (err) {
			worse(&status, unreadable(err));
			continue;
		}
		inodedump_document_inode(doc, ino);
		done_with(ino, &status);
	}
	inodedump_document_end(doc);
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
	struct inodedump_sweep_totals totals;
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

	so->totals.inodes++;
	so->totals.violations += v != 0;
	if (so->progress && seconds_since(&so->last) > 0.25) {
		clock_gettime(CLOCK_MONOTONIC, &so->last);
		fprintf(stderr, "\r%zu inodes, %.0f/s, superblock %s (%s)   ",
			so->totals.inodes,
			so->totals.inodes / seconds_since(&so->start),
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
	struct sweep_out *so = arg;

	if (sb->error)
		so->totals.cut_short++;
	if (so->jsonl) {
		inodedump_sweep_sb_print(sb, INODEDUMP_FORMAT_JSON, stdout);
		return;
	}
	if (so->violations_only && !sb->violations && !sb->error)
		return;
	inodedump_sweep_sb_print(sb, INODEDUMP_FORMAT_TEXT, stdout);
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
	/* ~1.4 KB of JSONL an inode: stdio's 4 KiB is a write(2) per 3 */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, 1u << 16);
	clock_gettime(CLOCK_MONOTONIC, &so->start);
	so->last = so->start;
	err = inodedump_sweep(id, opts, sweep_inode, sweep_sb, so);
	if (so->progress)
		fprintf(stderr, "\r%60s\r", "");
	inodedump_sweep_summary_print(&so->totals,
				      so->jsonl ? INODEDUMP_FORMAT_JSON
						: INODEDUMP_FORMAT_TEXT,
				      stdout);
	if (err)
		return unreadable(err);
	if (so->totals.cut_short) {
		fprintf(stderr, "vmcore-inode: %zu superblock walk%s cut short: "
				"inodes of %s were not checked\n",
			so->totals.cut_short,
			so->totals.cut_short == 1 ? "" : "s",
			so->totals.cut_short == 1 ? "it" : "them");
		return EXIT_PARTIAL;
	}
	return so->totals.violations ? EXIT_VIOLATION : EXIT_CLEAN;
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
		{ "threads", required_argument, NULL, 'N' },
		{ "debug-root", required_argument, NULL, 'D' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	INODEDUMP_OPTS(inodedump_open_opts, opts);
	enum inodedump_format format = INODEDUMP_FORMAT_TEXT;
	bool log = false, reports = false, info = false;
	bool live = false, sweep = false, sweep_paths = false;
	INODEDUMP_OPTS(inodedump_sweep_opts, sweep_opts);
	struct sweep_out so = { 0 };
	unsigned flags = 0;
	struct inodedump *id;
	struct inodedump_document *doc;
	struct inodedump_error *err;
	int c, status = EXIT_CLEAN;

	sweep_opts.threads = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
	while ((c = getopt_long(argc, argv, "k:jfhrlis", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': opts.vmlinux = optarg; break;
		case 'j': format = INODEDUMP_FORMAT_JSON; break;
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
		case 'N':
			if (strcmp(optarg, "1") && strcmp(optarg, "2")) {
				fprintf(stderr, "vmcore-inode: --threads '%s': "
						"1 or 2\n", optarg);
				return EXIT_USAGE;
			}
			sweep_opts.threads = (unsigned)(*optarg - '0');
			break;
		case 'D': opts.debug_root = optarg; break;
		case OPT_VERSION:
			printf("vmcore-inode %s\n", INODEDUMP_VERSION);
			return EXIT_CLEAN;
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
	if (err)
		return unreadable(err);
	if (!opts.vmlinux)
		fprintf(stderr, "vmcore-inode: using %s (%s)\n",
			inodedump_fact(id, "vmlinux"),
			inodedump_fact(id, "vmlinux_source"));
	if (info) {
		inodedump_facts_print(id, stdout);
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
		status = log ? print_log(id) : decode_reports(id, flags, format);
		inodedump_close(id);
		return status;
	}
	err = inodedump_document_begin(id, NULL, format, stdout, &doc);
	if (err) {
		inodedump_close(id);
		return unreadable(err);
	}
	for (int i = optind + 1; i < argc; i++) {
		struct inodedump_inode *ino;
		uint64_t addr;

		parse_address(argv[i], &addr);
		err = inodedump_decode(id, addr, flags, &ino);
		if (err) {
			inodedump_document_error(doc, addr, err);
			worse(&status, unreadable(err));
			continue;
		}
		inodedump_document_inode(doc, ino);
		done_with(ino, &status);
	}
	inodedump_document_end(doc);
	inodedump_close(id);
	return status;
}
