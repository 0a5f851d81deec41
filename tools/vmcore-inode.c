// SPDX-License-Identifier: LGPL-2.1-or-later
/* vmcore-inode: decode the inodes a kernel's dump_inode() reported. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inodedump.h"

enum exit_code {
	EXIT_CLEAN = 0,	      /* decoded, no violation */
	EXIT_VIOLATION = 1,   /* decoded, at least one violation */
	EXIT_USAGE = 2,	      /* bad command line */
	EXIT_UNREADABLE = 3,  /* input could not be read or decoded */
};

static const char usage_text[] =
	"usage: vmcore-inode -k VMLINUX [--json] [--force] [--ignore-build-id]\n"
	"                    VMCORE ADDRESS...\n"
	"\n"
	"Decode the struct inode at each ADDRESS (hex, as the kernel's %%px\n"
	"prints it: \"encountered for inode ffff935e008f6850\") in VMCORE, using\n"
	"the types and symbols of VMLINUX (the kernel's debuginfo vmlinux).\n"
	"\n"
	"  -k, --vmlinux FILE    vmlinux with DWARF of the dumped kernel\n"
	"  -j, --json            one JSON document (schema %d) instead of text\n"
	"  -f, --force           decode addresses that fail the inode checks\n"
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

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "force", no_argument, NULL, 'f' },
		{ "ignore-build-id", no_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	INODEDUMP_OPTS(inodedump_open_opts, opts);
	bool json = false;
	unsigned flags = 0;
	struct inodedump *id;
	struct inodedump_error *err;
	int c, status = EXIT_CLEAN;

	while ((c = getopt_long(argc, argv, "k:jfh", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': opts.vmlinux = optarg; break;
		case 'j': json = true; break;
		case 'f': flags |= INODEDUMP_DECODE_FORCE; break;
		case 'I': opts.ignore_build_id = true; break;
		case 'h': usage(stdout); return EXIT_CLEAN;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "vmcore-inode: no VMCORE given\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!opts.vmlinux) {
		fprintf(stderr, "vmcore-inode: -k VMLINUX is required\n");
		return EXIT_USAGE;
	}
	if (optind + 1 >= argc) {
		fprintf(stderr, "vmcore-inode: no ADDRESS given (reading the "
				"reports from the kernel log is not there yet)\n");
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
	if (json)
		printf("{\n  \"schema\": %d,\n  \"osrelease\": \"%s\",\n"
		       "  \"inodes\": [",
		       INODEDUMP_JSON_SCHEMA,
		       inodedump_fact(id, "osrelease") ? inodedump_fact(id, "osrelease") : "");
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
		if (inodedump_inode_violations(ino) && status == EXIT_CLEAN)
			status = EXIT_VIOLATION;
		inodedump_inode_free(ino);
	}
	if (json)
		puts("\n  ]\n}");
	inodedump_close(id);
	return status;
}
