// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * crash extension: the command "inode" (extend inodedump.so).
 *
 *   inode [-j] [-f] [-H] ADDRESS...   decode and check these inodes
 *   inode -r [-j]                     every dump_inode() report in the log
 *   inode -s [-v] [-J]                every inode of every superblock
 *   inode -l | -i                     the kernel log; what is read, whence
 *   inode -w [-j] ADDRESS...          what each address is (slab object)
 *
 * It prints what vmcore-inode prints for the same dump and arguments. The
 * session is inodedump_open_reader() over crash's own memory: readmem(),
 * VMCOREINFO from the kernel's vmcoreinfo_data, the vmlinux crash was
 * given, module symbols from crash's tables. Made on first use, closed
 * when the extension is unloaded. A bad address prints the library's
 * message and the command goes on; nothing here ends the crash session.
 *
 * Built against the defs.h of the crash that loads it (struct layouts
 * such as struct load_module differ between crash versions).
 */
#include "inodedump.h"
#include "run.h"

#include "defs.h"

static struct inodedump *session;

/* Which of a failed read's pages is missing, and why (readmem says no
 * more than that it failed). */
static int read_failure(uint64_t address, size_t count)
{
	char page[4096];

	while (count) {
		size_t chunk = PAGESIZE() - (address & (PAGESIZE() - 1));
		physaddr_t paddr;

		if (chunk > count)
			chunk = count;
		if (chunk > sizeof(page))
			chunk = sizeof(page);
		if (!readmem(address, KVADDR, page, chunk, "inodedump",
			     RETURN_ON_ERROR | QUIET)) {
			if (kvtop(NULL, address, &paddr, 0) &&
			    READMEM(pc->mfd, page, chunk, address, paddr) ==
				    PAGE_EXCLUDED)
				return INODEDUMP_ERR_FILTERED;
			return INODEDUMP_ERR_FAULT;
		}
		address += chunk;
		count -= chunk;
	}
	return INODEDUMP_ERR_FAULT;
}

static int crash_read(void *buf, uint64_t address, size_t count,
		      bool physical, void *arg)
{
	(void)arg;
	if (readmem(address, physical ? PHYSADDR : KVADDR, buf, count,
		    "inodedump", RETURN_ON_ERROR | QUIET))
		return 0;
	return physical ? INODEDUMP_ERR_FAULT : read_failure(address, count);
}

/* Module symbols as crash names them (its tables of each module). */
static bool crash_symbol(uint64_t address, char *name, size_t name_size,
			 char *module, size_t module_size, uint64_t *offset,
			 void *arg)
{
	struct load_module *lm = NULL;
	struct syment *sp;
	ulong off = 0;

	(void)arg;
	if (!module_symbol(address, NULL, &lm, NULL, 0) || !lm)
		return false;
	sp = value_search_module(address, &off);
	if (!sp || !sp->name || !strncmp(sp->name, "_MODULE_", 8))
		return false;
	snprintf(name, name_size, "%s", sp->name);
	snprintf(module, module_size, "%s", lm->mod_name);
	*offset = off;
	return true;
}

/* The kernel's VMCOREINFO text, from its vmcoreinfo_data; NULL if none. */
static char *kernel_vmcoreinfo(void)
{
	ulong data, size;
	char *text;

	if (!symbol_exists("vmcoreinfo_data") ||
	    !symbol_exists("vmcoreinfo_size") ||
	    !readmem(symbol_value("vmcoreinfo_data"), KVADDR, &data,
		     sizeof(data), "vmcoreinfo_data", RETURN_ON_ERROR | QUIET) ||
	    !readmem(symbol_value("vmcoreinfo_size"), KVADDR, &size,
		     sizeof(size), "vmcoreinfo_size", RETURN_ON_ERROR | QUIET) ||
	    !data || !size || size > (1 << 20))
		return NULL;
	text = calloc(1, size + 1);
	if (text && !readmem(data, KVADDR, text, size, "vmcoreinfo",
			     RETURN_ON_ERROR | QUIET)) {
		free(text);
		text = NULL;
	}
	return text;
}

static void print_error(const char *message, void *arg)
{
	(void)arg;
	fprintf(fp, "%s: %s\n", pc->curcmd, message);
}

static struct inodedump *inode_session(void)
{
	INODEDUMP_OPTS(inodedump_reader_opts, opts);
	struct inodedump_error *err;
	char *vmcoreinfo;

	if (session)
		return session;
	vmcoreinfo = kernel_vmcoreinfo();
	opts.read = crash_read;
	opts.symbol = crash_symbol;
	opts.vmcoreinfo = vmcoreinfo;
	opts.vmlinux = pc->namelist_debug ? pc->namelist_debug : pc->namelist;
	err = inodedump_open_reader(&opts, &session);
	free(vmcoreinfo);
	if (err) {
		print_error(inodedump_error_message(err), NULL);
		inodedump_error_free(err);
		session = NULL;
	}
	return session;
}

static void cmd_inode(void)
{
	enum inodedump_format format = INODEDUMP_FORMAT_TEXT;
	bool reports = false, sweep = false, log = false, info = false;
	bool what = false;
	bool jsonl = false, violations_only = false;
	INODEDUMP_OPTS(inodedump_sweep_opts, sweep_opts);
	struct run_out o = { .out = fp, .on_error = print_error };
	unsigned int flags = 0;
	uint64_t *addrs;
	size_t n = 0;
	int c;

	while ((c = getopt(argcnt, args, "jrsvJlifHw")) != EOF) {
		switch (c) {
		case 'j': format = INODEDUMP_FORMAT_JSON; break;
		case 'r': reports = true; break;
		case 's': sweep = true; break;
		case 'v': violations_only = true; break;
		case 'J': jsonl = true; break;
		case 'l': log = true; break;
		case 'i': info = true; break;
		case 'f': flags |= INODEDUMP_DECODE_FORCE; break;
		case 'H': flags |= INODEDUMP_DECODE_HOLDERS; break;
		case 'w': what = true; break;
		default: argerrs++; break;
		}
	}
	if (argerrs || ((reports || sweep || log || info) && args[optind]) ||
	    (!reports && !sweep && !log && !info && !args[optind]))
		cmd_usage(pc->curcmd, SYNOPSIS);
	if (!inode_session())
		return;
	if (info) {
		run_info(session, &o);
		return;
	}
	if (log) {
		run_log(session, &o);
		return;
	}
	if (sweep) {
		sweep_opts.flags = flags | INODEDUMP_DECODE_NO_PATHS |
				   INODEDUMP_DECODE_NO_FS;
		run_sweep(session, &sweep_opts, jsonl, violations_only, &o);
		return;
	}
	if (reports) {
		run_reports(session, flags, format, &o);
		return;
	}
	addrs = calloc(argcnt, sizeof(*addrs));
	if (!addrs)
		return;
	for (; args[optind]; optind++) {
		if (!run_parse_address(args[optind], &addrs[n])) {
			fprintf(fp, "%s: '%s' is not a hex address\n",
				pc->curcmd, args[optind]);
			continue;
		}
		n++;
	}
	if (n && what)
		run_what(session, addrs, n, format, &o);
	else if (n)
		run_addresses(session, addrs, n, flags, format, &o);
	free(addrs);
}

static char *help_inode[] = {
	"inode",
	"decode and check struct inodes (inodedump)",
	"[-j] [-f] [-H] address ... | -w [-j] address ... | -r [-j] | -s [-v] [-J] | -l | -i",
	"  Decode the struct inode at each address (hex), say which VFS",
	"  invariants it breaks: the output of vmcore-inode(1) on the same dump.",
	"",
	"    -j  one JSON document (schema 1) instead of text",
	"    -f  decode addresses that fail the inode checks",
	"    -H  also list the tasks holding each inode",
	"    -r  every dump_inode() report in the kernel log, decoded",
	"    -s  check every inode of every superblock (sweep)",
	"    -v  (sweep) only inodes with a violation",
	"    -J  (sweep) one JSON object per inode, then a summary",
	"    -l  the kernel log, as dmesg(1)",
	"    -i  what is read and whence",
	"    -w  what each address is: the slab cache and object holding it,",
	"        allocated or free (like kmem -s), where an inode cache's",
	"        object holds its inode",
	"\nEXAMPLES",
	"    crash> inode ffff935e008f6850",
	"    crash> inode -r",
	"    crash> inode -s -v",
	"    crash> inode -w ffff935e008f6850",
	NULL
};

static struct command_table_entry command_table[] = {
	{ "inode", cmd_inode, help_inode, 0 },
	{ NULL, NULL, NULL, 0 },
};

static void __attribute__((constructor)) inodedump_init(void)
{
	register_extension(command_table);
}

static void __attribute__((destructor)) inodedump_fini(void)
{
	inodedump_close(session);
	session = NULL;
}
