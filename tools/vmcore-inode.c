// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vmcore-inode: decode the inodes a kernel's dump_inode() reported. The
 * arguments and the exit status; the library decodes and writes.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inodedump.h"
#include "follow.h"
#include "run.h"
#include "triage.h"

/* Exit status (usage_text, man page): enum run_status in run.h. */

static const char usage_text[] =
	"usage: vmcore-inode [-k VMLINUX] [--json] [--force] [--ignore-build-id]\n"
	"                    VMCORE [ADDRESS...]\n"
	"       vmcore-inode [-k VMLINUX] --log VMCORE\n"
	"       vmcore-inode [-k VMLINUX] --info VMCORE\n"
	"       vmcore-inode [-k VMLINUX] [--json] --what ADDRESS... VMCORE\n"
	"       vmcore-inode [-k VMLINUX] --live [ADDRESS...]   (reads /proc/kcore)\n"
	"       vmcore-inode [-k VMLINUX] --live --follow [--from-start] [--jsonl]\n"
	"       vmcore-inode [-k VMLINUX] --sweep [--jsonl] [--violations-only]\n"
	"                    [--fs NAME] [--sb ADDRESS] [--type T,...] VMCORE\n"
	"       vmcore-inode --triage [--json] [--settle S] [--wait S] [--again]\n"
	"                    [DIR|DUMP]   (DIR: /var/crash)\n"
	"\n"
	"Decode the struct inode at each ADDRESS (hex, as the kernel's %%px\n"
	"prints it: \"encountered for inode ffff935e008f6850\") in VMCORE, using\n"
	"the types and symbols of VMLINUX (the kernel's debuginfo vmlinux) or,\n"
	"where none is found, of the BTF and kallsyms inside VMCORE.\n"
	"With no ADDRESS, find every dump_inode() report in the kernel log inside\n"
	"VMCORE and decode each reported inode (--reports).\n"
	"\n"
	"  -k, --vmlinux FILE    vmlinux with DWARF of the dumped kernel; without\n"
	"                        it, found by the dump's build-id B in\n"
	"                        /usr/lib/debug/.build-id/xx/yyyy.debug, then by\n"
	"                        its release R in /usr/lib/debug/boot/vmlinux-R,\n"
	"                        /usr/lib/debug/lib/modules/R/vmlinux,\n"
	"                        /boot/vmlinux-R, /lib/modules/R/build/vmlinux,\n"
	"                        then from debuginfod (DEBUGINFOD_URLS); else\n"
	"                        types from the dump's BTF, symbols from its\n"
	"                        kallsyms (cached in ~/.cache/inodedump/kernel)\n"
	"      --debug-root DIR  look for vmlinux below DIR instead of /\n"
	"  -i, --info            what the dump and vmlinux are, where types and\n"
	"                        symbols come from, and whence\n"
	"      --what ADDRESS    what ADDRESS is: the slab cache and object\n"
	"                        holding it, allocated or free, where the\n"
	"                        inode is in an inode cache's object; else\n"
	"                        what the memory is (repeatable)\n"
	"  -r, --reports         decode the inodes the kernel log reported\n"
	"  -l, --log             print the kernel log like dmesg(1)\n"
	"      --follow          (with --live) read new records of /dev/kmsg and\n"
	"                        decode each report's inode as it comes, until\n"
	"                        SIGINT/SIGTERM; --jsonl: one object a report\n"
	"      --from-start      (--follow) the log's oldest record first\n"
	"  -j, --json            one JSON document (schema %d) instead of text\n"
	"  -f, --force           decode addresses that fail the inode checks\n"
	"  -s, --sweep           check every inode of every superblock\n"
	"      --jsonl           (sweep) one JSON object per inode, then a summary\n"
	"      --violations-only (sweep) only inodes with a violation\n"
	"      --fs NAME, --sb ADDRESS, --type regular,symlink,...\n"
	"                        (sweep) filters\n"
	"      --paths           (sweep) also walk each inode's paths\n"
	"      --fs-rows         (sweep) also read each inode's filesystem rows\n"
	"      --no-fs-rows      skip the filesystem's own rows (xfs_inode, ...)\n"
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
	"inodes or type name, an inode's paths, its holders) could not be\n"
	"read, or the dump's VMCOREINFO cannot be trusted, said on stderr\n"
	"(4 wins over 1, 3 over 4).\n";

/* Long options without a short one. */
enum { OPT_VERSION = 0x100, OPT_TRIAGE, OPT_SETTLE, OPT_WAIT, OPT_AGAIN,
       OPT_FOLLOW, OPT_FROM_START };

static void usage(FILE *out)
{
	fprintf(out, usage_text, INODEDUMP_JSON_SCHEMA);
	fputs(triage_usage, out);
}

/*
 * An error the library or a run reports, as the command says it. Messages
 * quote the dump's bytes (a cache's name, the header's machine): one with
 * a control or non-ASCII byte goes out escaped, so none reaches the
 * terminal as an escape sequence (issue 41); the rest as they are.
 */
static void say(const char *message, void *arg)
{
	size_t len = strlen(message);
	bool plain = true;

	(void)arg;
	for (size_t i = 0; i < len && plain; i++) {
		unsigned char c = (unsigned char)message[i];

		plain = c >= 0x20 && c < 0x7f;
	}
	fputs("vmcore-inode: ", stderr);
	if (plain)
		fputs(message, stderr);
	else
		inodedump_print_escaped(message, len, stderr);
	fputc('\n', stderr);
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
		{ "fs-rows", no_argument, NULL, 'R' },
		{ "no-fs-rows", no_argument, NULL, 'X' },
		{ "threads", required_argument, NULL, 'N' },
		{ "debug-root", required_argument, NULL, 'D' },
		{ "what", required_argument, NULL, 'W' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "triage", no_argument, NULL, OPT_TRIAGE },
		{ "settle", required_argument, NULL, OPT_SETTLE },
		{ "wait", required_argument, NULL, OPT_WAIT },
		{ "again", no_argument, NULL, OPT_AGAIN },
		{ "follow", no_argument, NULL, OPT_FOLLOW },
		{ "from-start", no_argument, NULL, OPT_FROM_START },
		{ NULL, 0, NULL, 0 },
	};
	INODEDUMP_OPTS(inodedump_open_opts, opts);
	enum inodedump_format format = INODEDUMP_FORMAT_TEXT;
	bool log = false, reports = false, info = false;
	bool live = false, sweep = false, sweep_paths = false, fs_rows = false;
	bool follow = false, from_start = false;
	INODEDUMP_OPTS(inodedump_sweep_opts, sweep_opts);
	bool jsonl = false, violations_only = false;
	struct run_out o = { .out = stdout, .on_error = say };
	unsigned flags = 0;
	struct inodedump *id;
	struct inodedump_error *err;
	uint64_t *addrs;
	size_t n = 0, nwhat = 0;
	uint64_t *what = NULL; /* --what's, at most one an argument */
	int c, status;
	struct triage_opts triage = { .settle = 10 };
	bool triaging = false;

	sweep_opts.threads = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
	while ((c = getopt_long(argc, argv, "k:jfhrlis", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': opts.vmlinux = optarg; break;
		case 'j': format = INODEDUMP_FORMAT_JSON; break;
		case 'f': flags |= INODEDUMP_DECODE_FORCE; break;
		case 'I': opts.ignore_build_id = true; break;
		case 'h': usage(stdout); return RUN_CLEAN;
		case 'r': reports = true; break;
		case 'l': log = true; break;
		case 'i': info = true; break;
		case 'H': flags |= INODEDUMP_DECODE_HOLDERS; break;
		case 'L': live = true; break;
		case 's': sweep = true; break;
		case 'J': jsonl = true; break;
		case 'V': violations_only = true; break;
		case 'F': sweep_opts.fs = optarg; break;
		case 'S':
			if (!run_parse_address(optarg, &sweep_opts.sb)) {
				fprintf(stderr, "vmcore-inode: --sb '%s' is not a "
						"hex address\n", optarg);
				return RUN_USAGE;
			}
			break;
		case 'T': sweep_opts.types = optarg; break;
		case 'P': sweep_paths = true; break;
		case 'R': fs_rows = true; break;
		case 'X': flags |= INODEDUMP_DECODE_NO_FS; break;
		case 'N':
			if (strcmp(optarg, "1") && strcmp(optarg, "2")) {
				fprintf(stderr, "vmcore-inode: --threads '%s': "
						"1 or 2\n", optarg);
				return RUN_USAGE;
			}
			sweep_opts.threads = (unsigned)(*optarg - '0');
			break;
		case 'D': opts.debug_root = optarg; break;
		case 'W':
			if (!what)
				what = calloc((size_t)argc, sizeof(*what));
			if (!what) {
				say("out of memory", NULL);
				return RUN_UNREADABLE;
			}
			if (!run_parse_address(optarg, &what[nwhat])) {
				fprintf(stderr, "vmcore-inode: --what '%s': not a "
						"hex address\n", optarg);
				free(what);
				return RUN_USAGE;
			}
			nwhat++;
			break;
		case OPT_TRIAGE: triaging = true; break;
		case OPT_AGAIN: triage.again = true; break;
		case OPT_SETTLE:
		case OPT_WAIT:
			if (!triage_seconds(c == OPT_WAIT, optarg, &triage))
				return RUN_USAGE;
			break;
		case OPT_FOLLOW: follow = true; break;
		case OPT_FROM_START: from_start = true; break;
		case OPT_VERSION:
			printf("vmcore-inode %s\n", INODEDUMP_VERSION);
			return RUN_CLEAN;
		default: usage(stderr); return RUN_USAGE;
		}
	}
	if (triaging) {
		triage.json = format == INODEDUMP_FORMAT_JSON;
		triage.debug_root = opts.debug_root;
		free(what);
		if (optind + 1 < argc) {
			fprintf(stderr, "vmcore-inode: --triage takes one DIR\n");
			return RUN_USAGE;
		}
		if (follow || from_start || live) {
			fprintf(stderr, "vmcore-inode: --triage reads dumps, "
					"not the running kernel (--live, --follow)\n");
			return RUN_USAGE;
		}
		if (opts.vmlinux || opts.ignore_build_id) {
			/* Each dump's kernel may differ: one vmlinux for all
			 * would be wrong for some, and silently so. */
			fprintf(stderr, "vmcore-inode: --triage finds each dump's "
					"vmlinux by its build-id (below --debug-root); "
					"-k and --ignore-build-id are for one dump\n");
			return RUN_USAGE;
		}
		return triage_run(optind < argc ? argv[optind] : "/var/crash",
				  &triage);
	}
	if ((follow || from_start) &&
	    (!live || !follow || reports || log || info || sweep || nwhat ||
	     optind < argc)) {
		fprintf(stderr, "vmcore-inode: %s\n",
			!follow	 ? "--from-start goes with --follow"
			: !live ? "--follow reads the running kernel: it needs "
				  "--live"
				: "--follow takes no ADDRESS and no other mode");
		free(what);
		return RUN_USAGE;
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
		free(what);
		return RUN_USAGE;
	}
	if ((reports || log || info || sweep || nwhat) && optind + 1 < argc) {
		fprintf(stderr, "vmcore-inode: --reports, --log, --info, --what "
				"and --sweep take no ADDRESS after VMCORE\n");
		free(what);
		return RUN_USAGE;
	}
	addrs = calloc((size_t)argc, sizeof(*addrs));
	if (!addrs) {
		say("out of memory", NULL);
		free(what);
		return RUN_UNREADABLE;
	}
	for (int i = optind + 1; i < argc; i++) {
		if (!run_parse_address(argv[i], &addrs[n++])) {
			fprintf(stderr, "vmcore-inode: '%s' is not a hex address\n",
				argv[i]);
			free(addrs);
			free(what);
			return RUN_USAGE;
		}
	}

	/*
	 * --log and --info need no kernel types: a dump with neither vmlinux
	 * nor BTF still has its log (VMCOREINFO gives the ring's layout) and
	 * its facts. Every other mode needs them and fails at the open.
	 */
	opts.types_optional = (log || info) && !follow && !nwhat && !sweep;
	err = inodedump_open(argv[optind], &opts, &id);
	if (err) {
		free(addrs);
		free(what);
		return run_error(&o, err);
	}
	if (!opts.vmlinux && inodedump_fact(id, INODEDUMP_FACT_VMLINUX))
		fprintf(stderr, "vmcore-inode: using %s (%s)\n",
			inodedump_fact(id, INODEDUMP_FACT_VMLINUX),
			inodedump_fact(id, INODEDUMP_FACT_VMLINUX_SOURCE));
	else if (inodedump_fact(id, INODEDUMP_FACT_NO_TYPES))
		fprintf(stderr, "vmcore-inode: no vmlinux and no BTF: %s "
				"(symbols from %s)\n",
			info ? "what needs the kernel's types is not read"
			     : "the kernel log is read with the layout "
			       "VMCOREINFO gives",
			inodedump_fact(id, INODEDUMP_FACT_SYMBOLS));
	else if (!opts.vmlinux)
		fprintf(stderr, "vmcore-inode: no vmlinux: types from %s, "
				"symbols from %s\n",
			inodedump_fact(id, INODEDUMP_FACT_TYPES),
			inodedump_fact(id, INODEDUMP_FACT_SYMBOLS));
	if (follow) {
		status = follow_live(id, from_start, flags,
				     jsonl ? INODEDUMP_FORMAT_JSON : format, &o);
	} else if (nwhat) {
		status = run_what(id, what, nwhat, format, &o);
	} else if (info) {
		status = run_info(id, &o);
	} else if (sweep) {
		sweep_opts.flags = flags | (sweep_paths ? 0 : INODEDUMP_DECODE_NO_PATHS) |
				   (fs_rows ? 0 : INODEDUMP_DECODE_NO_FS);
		o.progress = isatty(STDERR_FILENO);
		/* ~1.4 KB of JSONL an inode: stdio's 4 KiB is a write(2) per 3 */
		if (!isatty(STDOUT_FILENO))
			setvbuf(stdout, NULL, _IOFBF, 1u << 16);
		status = run_sweep(id, &sweep_opts, jsonl, violations_only, &o);
	} else if (log) {
		status = run_log(id, &o);
	} else if (!n) {
		status = run_reports(id, flags, format, &o);
	} else {
		status = run_addresses(id, addrs, n, flags, format, &o);
	}
	inodedump_close(id);
	free(addrs);
	free(what);
	return status;
}
