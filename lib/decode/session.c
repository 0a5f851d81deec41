// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The session: one constructor for every memory source (a dump file, a
 * memory image, a caller's reader) that finds and checks its vmlinux, the
 * KASLR offset, and the facts --info reports; close it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"

#include "decode/fs.h"
#include "decode/inode.h"
#include "decode/layout.h"
#include "decode/memo.h"
#include "decode/opts.h"
#include "decode/pagecache.h"
#include "decode/slab.h"

/* ---------------------------------------------------------------- open -- */

static bool parse_hex(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s)
		return false;
	*out = strtoull(s, &end, 16);
	return *end == '\0' || *end == '\n';
}

/* VMCOREINFO symbols that vmlinux also has, to check KASLR against. */
static const char *const kaslr_probes[] = { "init_uts_ns", "swapper_pg_dir",
					    "_stext", "mem_section" };

/*
 * The offset a VMCOREINFO SYMBOL() gives (vmlinux's symbols now moved by
 * id->kaslr), and which symbol.
 */
static bool kaslr_of_symbols(struct inodedump *id, uint64_t *offset,
			     const char **probe)
{
	for (size_t i = 0; i < sizeof(kaslr_probes) / sizeof(kaslr_probes[0]);
	     i++) {
		char key[64];
		uint64_t in_dump, in_vmlinux;

		snprintf(key, sizeof(key), "SYMBOL(%s)", kaslr_probes[i]);
		if (parse_hex(idd_target_vmcoreinfo(id->target, key), &in_dump) &&
		    idd_symbols_address(id->syms, kaslr_probes[i], &in_vmlinux)) {
			*offset = in_dump - (in_vmlinux - id->kaslr);
			*probe = kaslr_probes[i];
			return true;
		}
	}
	return false;
}

/*
 * The KASLR offset: VMCOREINFO's KERNELOFFSET, else the difference between
 * a VMCOREINFO SYMBOL() and the same symbol in vmlinux (kernels before
 * KERNELOFFSET, or a VMCOREINFO cut short); a KERNELOFFSET the SYMBOL()s
 * contradict is said, and theirs taken (issue 41).
 */
static void find_kaslr(struct inodedump *id)
{
	uint64_t given = 0, derived = 0;
	const char *probe = NULL;
	bool have = parse_hex(idd_target_vmcoreinfo(id->target, "KERNELOFFSET"),
			      &given),
	     witness = kaslr_of_symbols(id, &derived, &probe);

	id->kaslr = have ? given : derived;
	id->kaslr_from_vmcoreinfo = have;
	/* VMCOREINFO against itself: the symbols it places are the kernel's */
	if (have && witness && given != derived) {
		idd_session_note(id, "VMCOREINFO's KERNELOFFSET 0x%" PRIx64
				 " disagrees with its SYMBOL(%s), which vmlinux "
				 "places 0x%" PRIx64 " on: that offset is "
				 "taken", given, probe, derived);
		id->kaslr = derived;
		id->kaslr_from_vmcoreinfo = false;
	}
	if (have || witness)
		idd_symbols_set_kaslr(id->syms, id->kaslr);
	else
		idd_session_note_kaslr(id);
}

/*
 * On a live system /proc/kallsyms is a second witness of the KASLR offset
 * (when kptr_restrict lets root see addresses).
 */
static struct inodedump_error *check_kallsyms(struct inodedump *id)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	struct inodedump_error *err = NULL;

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long live;
		char type, name[256];
		uint64_t in_vmlinux;

		if (sscanf(line, "%llx %c %255s", &live, &type, name) != 3 ||
		    strcmp(name, "_stext"))
			continue;
		if (live && idd_symbols_address(id->syms, "_stext", &in_vmlinux) &&
		    live != in_vmlinux)
			err = idd_error(INODEDUMP_ERR_MISMATCH,
					"vmlinux %s is not the running kernel: "
					"_stext is at 0x%llx in /proc/kallsyms "
					"but at 0x%llx in vmlinux (KASLR offset "
					"0x%llx applied)",
					id->vmlinux, live,
					(unsigned long long)in_vmlinux,
					(unsigned long long)id->kaslr);
		break;
	}
	fclose(f);
	return err;
}

/*
 * A wrong vmlinux must be refused before it produces plausible nonsense:
 * compare the dump's BUILD-ID with vmlinux's note, and one VMCOREINFO
 * symbol's address with vmlinux's symbol table plus the KASLR offset.
 */
/* libkdumpfile's name of vmlinux's machine, or NULL. */
static const char *vmlinux_arch(struct inodedump *id)
{
	bool is64;
	unsigned machine = idd_elf_machine(idd_types_elf(id->types), &is64);

	return idd_target_arch_of_elf(machine, is64);
}

/*
 * A vmlinux of another machine than the dump's (its header's, else what
 * its VMCOREINFO implies) can never read it, build-id or not.
 */
static struct inodedump_error *check_machine(struct inodedump *id,
					     const char *vmcore)
{
	bool is64;
	unsigned machine = idd_elf_machine(idd_types_elf(id->types), &is64);
	const char *ours = idd_target_arch_of_elf(machine, is64);
	const char *dump = idd_target_arch(id->target);
	char em[32] = "";

	if (!dump)
		dump = idd_target_vmcoreinfo_arch(id->target);
	if (!dump || !machine || idd_target_same_arch(dump, ours))
		return NULL;
	if (idd_target_arch_elf_machine(dump))
		snprintf(em, sizeof(em), " (ELF machine %u)",
			 idd_target_arch_elf_machine(dump));
	return idd_error(INODEDUMP_ERR_MISMATCH,
			 "vmlinux %s is a kernel for %s (ELF machine %u) but "
			 "%s is a dump of an %s machine%s",
			 id->vmlinux, ours ? ours : "another architecture",
			 machine, vmcore, dump, em);
}

static struct inodedump_error *check_match(struct inodedump *id,
					   const char *vmcore)
{
	const char *dump_id = idd_target_vmcoreinfo(id->target, "BUILD-ID");

	if (dump_id && id->build_id_vmlinux) {
		if (strncmp(dump_id, id->build_id_vmlinux, strlen(dump_id)) != 0)
			return idd_error(INODEDUMP_ERR_MISMATCH,
					 "vmlinux %s (build-id %s) is not the "
					 "kernel of %s (VMCOREINFO BUILD-ID %s)",
					 id->vmlinux, id->build_id_vmlinux,
					 vmcore, dump_id);
		if (id->kaslr_from_vmcoreinfo)
			return NULL; /* same build: nothing more to prove */
	}
	for (size_t i = 0; i < sizeof(kaslr_probes) / sizeof(kaslr_probes[0]);
	     i++) {
		const char *const *probes = kaslr_probes;
		char key[64];
		uint64_t in_dump, in_vmlinux;

		if (!id->kaslr_from_vmcoreinfo)
			break; /* the offset was derived from this very check */
		snprintf(key, sizeof(key), "SYMBOL(%s)", probes[i]);
		if (!parse_hex(idd_target_vmcoreinfo(id->target, key), &in_dump) ||
		    !idd_symbols_address(id->syms, probes[i], &in_vmlinux))
			continue;
		if (in_dump != in_vmlinux)
			return idd_error(INODEDUMP_ERR_MISMATCH,
					 "vmlinux %s is not the kernel of %s: "
					 "%s is at 0x%llx in the dump but at "
					 "0x%llx in vmlinux (KASLR offset "
					 "0x%llx applied)",
					 id->vmlinux, vmcore, probes[i],
					 (unsigned long long)in_dump,
					 (unsigned long long)in_vmlinux,
					 (unsigned long long)id->kaslr);
		break;
	}
	return NULL;
}

/*
 * Where distributions put the vmlinux of a release, relative to root:
 * Debian/Ubuntu -dbg packages, Fedora/RHEL debuginfo, /boot, a build tree.
 */
static const char *const vmlinux_places[] = {
	"/usr/lib/debug/boot/vmlinux-%s",
	"/usr/lib/debug/lib/modules/%s/vmlinux",
	"/boot/vmlinux-%s",
	"/lib/modules/%s/build/vmlinux",
};

/* Note a place tried, for the message when none has it. */
static void tried_add(char *tried, size_t size, size_t *used, const char *what)
{
	*used += (size_t)snprintf(tried + *used, size - *used, "%s%s",
				  *used ? ", " : "", what);
	if (*used >= size)
		*used = size - 1;
}

/* Whether path is there to read; if so it is the session's vmlinux. */
static struct inodedump_error *take_if_there(struct inodedump *id,
					     char *path, char *source,
					     bool *found)
{
	*found = false;
	if (!path || !source) {
		free(path);
		free(source);
		return idd_nomem();
	}
	if (access(path, R_OK) != 0) {
		free(path);
		free(source);
		return NULL;
	}
	id->vmlinux = path;
	id->vmlinux_source = source;
	*found = true;
	return NULL;
}

/*
 * vmlinux by the dump's build-id (root/usr/lib/debug/.build-id/xx/yyyy.debug,
 * as Debian's -dbg packages lay it out), then by its release, then from
 * debuginfod. None found is no error here: id->vmlinux stays NULL and
 * *tried says where it was looked for.
 */
static struct inodedump_error *find_vmlinux(struct inodedump *id,
					    const char *root, char *tried,
					    size_t tried_size)
{
	const char *release = idd_target_vmcoreinfo(id->target, "OSRELEASE");
	const char *build_id = idd_target_vmcoreinfo(id->target, "BUILD-ID");
	size_t used = 0;
	struct inodedump_error *err;
	bool found;
	char *why;

	tried[0] = '\0';
	if (!root)
		root = "";
	if (build_id && strlen(build_id) > 2) {
		char *path = idd_strdup_printf("%s/usr/lib/debug/.build-id/%.2s/%s.debug",
					       root, build_id, build_id + 2);

		if (path)
			tried_add(tried, tried_size, &used, path);
		err = take_if_there(id, path,
				    idd_strdup_printf("found by the dump's build-id %s",
						      build_id),
				    &found);
		if (err || found)
			return err;
	}
	if (!release)
		release = idd_target_uts_release(id->target);
	for (size_t i = 0; release && i < sizeof(vmlinux_places) / sizeof(*vmlinux_places);
	     i++) {
		char rel[1024], *path;

		snprintf(rel, sizeof(rel), vmlinux_places[i], release);
		path = idd_strdup_printf("%s%s", root, rel);
		if (path)
			tried_add(tried, tried_size, &used, path);
		err = take_if_there(id, path,
				    idd_strdup_printf("found by the dump's release %s",
						      release),
				    &found);
		if (err || found)
			return err;
	}
	id->vmlinux = idd_debuginfod_vmlinux(build_id, &why);
	if (id->vmlinux) {
		id->vmlinux_source = idd_strdup_printf(
			"fetched by build-id %s from debuginfod (%s)", build_id,
			getenv("DEBUGINFOD_URLS"));
		return id->vmlinux_source ? NULL : idd_nomem();
	}
	if (why) {
		/* The one-line note: the run goes on with the dump's BTF. */
		fprintf(stderr, "vmcore-inode: %s\n", why);
		tried_add(tried, tried_size, &used, "debuginfod");
		free(why);
	}
	return NULL;
}


/*
 * No types where the caller can do without (types_optional): the open's
 * error kept for every use of the types (idd_session_need_types()), and
 * why, short, for --info. Takes err.
 */
static struct inodedump_error *without_types(struct inodedump *id,
					     struct inodedump_error *err,
					     const char *why)
{
	id->no_types = err;
	id->no_types_text = strdup(why);
	id->types_source = idd_strdup_printf("none: %s", why);
	return id->no_types_text && id->types_source ? NULL : idd_nomem();
}

struct inodedump_error *idd_session_need_types(const struct inodedump *id)
{
	if (id->types)
		return NULL;
	if (!id->no_types)
		return idd_error(INODEDUMP_ERR_VMLINUX,
				 "this session has no kernel types");
	return idd_error(inodedump_error_code(id->no_types), "%s",
			 inodedump_error_message(id->no_types));
}

/*
 * No vmlinux: symbols from the dump's kallsyms, types from its BTF (both
 * kept in the per-kernel cache for the next run). types_optional: a dump
 * without BTF, or whose BTF cannot be read, opens without types.
 */
static struct inodedump_error *open_from_dump(struct inodedump *id,
					      const char *tried,
					      bool types_optional)
{
	const char *release = idd_target_vmcoreinfo(id->target, "OSRELEASE");
	_cleanup_free_ char *cache =
		idd_cache_dir(idd_target_vmcoreinfo(id->target, "BUILD-ID"));
	struct idd_kallsyms *ks;
	const struct idd_kallsyms *kept;
	const char *whence;
	struct idd_btf *btf;
	struct inodedump_error *err;
	bool ks_cached;
	struct idd_btf_whence w;

	if (!release)
		release = "?";
	idd_target_default_arch(id->target,
				idd_target_vmcoreinfo_arch(id->target));
	err = idd_kallsyms_load(id->target, cache, &ks, &ks_cached);
	if (err)
		return idd_error_wrap(err,
				      "no vmlinux for release %s (tried %s), and "
				      "the dump's kallsyms cannot be read",
				      release, tried);
	if ((err = idd_symbols_open_kallsyms(ks, &id->syms)))
		return err;
	kept = idd_symbols_kallsyms(id->syms);
	whence = idd_kallsyms_whence(kept);
	id->symbols_source = idd_strdup_printf(
		"the dump's kallsyms (%zu symbols%s%s%s%s%s)",
		idd_kallsyms_count(kept),
		ks_cached ? ", cached in "
			  : idd_kallsyms_is_lazy(kept) ? ", read on demand" : "",
		ks_cached ? cache : "", whence ? "; " : "", whence ? whence : "",
		idd_symbols_text_only(id->syms)
			? "; text symbols only, none of the kernel's data "
			  "(it was built with CONFIG_KALLSYMS_ALL off): "
			  "vmlinux's operations tables are shown by address, "
			  "a module's named by its debug file or shown as "
			  "module+offset"
			: "");
	id->vmlinux_source = idd_strdup_printf("none (tried %s)", tried);
	if (!id->symbols_source || !id->vmlinux_source)
		return idd_nomem();
	err = idd_btf_from_dump(id->syms, id->target, cache, &btf, &w);
	if (err) {
		_cleanup_free_ char *why =
			types_optional
				? idd_strdup_printf("the dump's BTF cannot be "
						    "read (%s)",
						    inodedump_error_message(err))
				: NULL;

		err = idd_error_wrap(err,
				     "no vmlinux for release %s (tried %s), and "
				     "the dump's BTF cannot be read: install "
				     "the kernel's debuginfo (Debian: "
				     "linux-image-%s-dbg) or give it with -k",
				     release, tried, release);
		if (!types_optional || idd_error_is_nomem(err))
			return err;
		if (!why) {
			inodedump_error_free(err);
			return idd_nomem();
		}
		return without_types(id, err, why);
	}
	if (!btf) {
		_cleanup_free_ char *none = w.none;
		_cleanup_free_ char *why =
			none ? idd_strdup_printf("no vmlinux, and the dump has "
						 "no BTF (%s)", none)
			     : NULL;

		err = idd_error(INODEDUMP_ERR_VMLINUX,
				"no vmlinux for release %s (tried %s), and the "
				"dump has no BTF (%s): install the kernel's "
				"debuginfo (Debian: linux-image-%s-dbg), give "
				"it with -k, or set DEBUGINFOD_URLS to a server "
				"that has it",
				release, tried, none ? none : "?", release);
		if (!types_optional || idd_error_is_nomem(err))
			return err;
		if (!why) {
			inodedump_error_free(err);
			return idd_nomem();
		}
		return without_types(id, err, why);
	}
	id->types_source =
		w.cached ? idd_strdup_printf("the dump's BTF (%zu bytes, "
					     "cached in %s)",
					     idd_btf_size(btf), cache)
		: w.by_header
			? idd_strdup_printf(
				  "the dump's BTF (%zu bytes at 0x%llx%s; "
				  "found by its header%s, kallsyms having no "
				  "__start_BTF, and checked: struct inode, "
				  "and %zu of VMCOREINFO's sizes and offsets "
				  "agree)",
				  idd_btf_size(btf), (unsigned long long)w.at,
				  idd_btf_reading(btf),
				  w.place_cached ? " where an earlier run "
						   "found it"
						 : "",
				  w.agreed)
			: idd_strdup_printf("the dump's BTF (%zu bytes at "
					    "0x%llx%s)", idd_btf_size(btf),
					    (unsigned long long)w.at,
					    idd_btf_reading(btf));
	idd_btf_set_source(btf, id->syms, id->target);
	if ((err = idd_types_open_btf(btf, &id->types)))
		return err;
	idd_types_set_big_endian(id->types, idd_target_big_endian(id->target));
	if (!id->types_source)
		return idd_nomem();
	return NULL;
}

/* Facts shared by both ways of opening. */
static struct inodedump_error *session_facts(struct inodedump *id)
{
	idd_target_set_explain(id->target, idd_explain_filtered, id);
	idd_session_find_release(id);
	id->kaslr_text = idd_strdup_printf("0x%llx",
					   (unsigned long long)id->kaslr);
	if (idd_target_dump_level(id->target) >= 0)
		id->dump_level_text = idd_strdup_printf(
			"%d", idd_target_dump_level(id->target));
	if (idd_target_page_size(id->target))
		id->page_size_text = idd_strdup_printf(
			"%llu", (unsigned long long)idd_target_page_size(id->target));
	if (!id->types_source && idd_types_dwz(id->types))
		id->types_source = idd_strdup_printf(
			"vmlinux %s (DWARF, compressed by dwz: its "
			"supplementary file %s)",
			id->vmlinux, idd_types_dwz(id->types));
	if (!id->types_source)
		id->types_source = idd_strdup_printf("vmlinux %s (DWARF)",
						     id->vmlinux);
	if (!id->symbols_source)
		id->symbols_source = idd_strdup_printf(
			"vmlinux %s (.symtab), modules' from the dump",
			id->vmlinux);
	return id->kaslr_text && id->types_source && id->symbols_source
		       ? NULL
		       : idd_nomem();
}

/* An empty session over target, or NULL (out of memory: target closed). */
static struct inodedump *session_new(struct idd_target *target)
{
	struct inodedump *id = calloc(1, sizeof(*id));

	if (!id)
		idd_target_close(target);
	else
		id->target = target;
	return id;
}

/*
 * The one constructor: every entry point (a dump file, a memory image, a
 * caller's reader) opens its target, then comes here for the same steps.
 * Takes ownership of target, also on failure.
 */
struct inodedump_error *idd_session_open(struct idd_target *target,
					 const struct idd_session_config *cfg,
					 struct inodedump **out)
{
	struct inodedump *id = session_new(target);
	struct inodedump_error *err;

	if (!id)
		return idd_nomem();
	id->host_symbol = cfg->symbol;
	id->host_arg = cfg->symbol_arg;
	if (cfg->debug_root && !(id->debug_root = strdup(cfg->debug_root))) {
		err = idd_nomem();
		goto fail;
	}
	if (cfg->vmlinux) {
		id->vmlinux = strdup(cfg->vmlinux);
		id->vmlinux_source = strdup(cfg->vmlinux_source);
		if (!id->vmlinux || !id->vmlinux_source) {
			err = idd_nomem();
			goto fail;
		}
	} else {
		char tried[4096];

		if ((err = find_vmlinux(id, cfg->debug_root, tried,
					sizeof(tried))))
			goto fail;
		if (!id->vmlinux) {
			if (!parse_hex(idd_target_vmcoreinfo(id->target,
							     "KERNELOFFSET"),
				       &id->kaslr)) {
				id->kaslr = 0;
				idd_session_note_kaslr(id);
			}
			if ((err = open_from_dump(id, tried,
						  cfg->types_optional)) ||
			    (err = session_facts(id)))
				goto fail;
			*out = id;
			return NULL;
		}
	}
	err = idd_types_open(id->vmlinux, cfg->debug_root, &id->types);
	if (err)
		goto fail;
	if ((err = check_machine(id, cfg->dump_name)))
		goto fail;
	/* Some writers (QEMU's kdump) leave the machine out of the header. */
	idd_target_default_arch(id->target, vmlinux_arch(id));
	/* the byte order the dump's arch settled (vmlinux's now, if none) */
	idd_types_set_big_endian(id->types, idd_target_big_endian(id->target));
	if (!parse_hex(idd_target_vmcoreinfo(id->target, "KERNELOFFSET"),
		       &id->kaslr))
		id->kaslr = 0;
	err = idd_symbols_open(idd_types_elf(id->types),
			       idd_types_fd(id->types), id->kaslr, &id->syms);
	if (err)
		goto fail;
	/* vmlinux's symbols keep their answers with its DWARF's. */
	idd_symbols_answers(id->syms, idd_types_answers(id->types));
	find_kaslr(id);
	err = idd_elf_build_id(idd_types_elf(id->types), &id->build_id_vmlinux);
	if (err)
		goto fail;
	if ((err = session_facts(id)))
		goto fail;
	if (!cfg->ignore_build_id) {
		err = check_match(id, cfg->dump_name);
		if (!err && cfg->live)
			err = check_kallsyms(id);
		if (err)
			goto fail;
	}
	*out = id;
	return NULL;
fail:
	inodedump_close(id);
	return err;
}

struct inodedump_error *idd_open_target(struct idd_target *target,
					const char *vmlinux,
					struct inodedump **out)
{
	const struct idd_session_config cfg = {
		.vmlinux = vmlinux,
		.vmlinux_source = "given with the memory image",
		.dump_name = "the memory image",
	};

	if (!vmlinux) {
		idd_target_close(target);
		return idd_error(INODEDUMP_ERR_USAGE,
				 "a memory image needs its vmlinux");
	}
	return idd_session_open(target, &cfg, out);
}

struct inodedump_error *idd_open_target_without_types(struct idd_target *target,
						      struct inodedump **out)
{
	struct inodedump *id = session_new(target);
	struct inodedump_error *err;

	if (!id)
		return idd_nomem();
	err = idd_error(INODEDUMP_ERR_VMLINUX,
			"a memory image without its vmlinux has no types");
	if (idd_error_is_nomem(err) ||
	    (err = without_types(id, err, "a memory image without vmlinux")) ||
	    !(id->symbols_source = strdup("none")) ||
	    !(id->vmlinux_source = strdup("none")))
		err = err ? err : idd_nomem();
	if (!err)
		err = session_facts(id);
	if (err) {
		inodedump_close(id);
		return err;
	}
	*out = id;
	return NULL;
}

struct inodedump_error *inodedump_open(const char *vmcore,
				       const struct inodedump_open_opts *opts,
				       struct inodedump **out)
{
	struct idd_session_config cfg = {
		.vmlinux = OPTS_GET(opts, vmlinux, NULL),
		.vmlinux_source = "given with -k",
		.debug_root = OPTS_GET(opts, debug_root, NULL),
		.dump_name = vmcore,
		.ignore_build_id = OPTS_GET(opts, ignore_build_id, false),
		.types_optional = OPTS_GET(opts, types_optional, false),
	};
	struct idd_target *target;
	struct inodedump_error *err;

	if ((err = OPTS_VALID(opts, inodedump_open_opts)))
		return err;
	if (!vmcore)
		return idd_error(INODEDUMP_ERR_USAGE, "no dump given");
	if (!out)
		return idd_error(INODEDUMP_ERR_USAGE,
				 "inodedump_open: nowhere to put the session");
	cfg.live = !strcmp(vmcore, "/proc/kcore");
	err = idd_target_open(vmcore, &target);
	if (err)
		return err;
	return idd_session_open(target, &cfg, out);
}

struct inodedump_error *
inodedump_open_reader(const struct inodedump_reader_opts *opts,
		      struct inodedump **out)
{
	struct idd_session_config cfg = {
		.vmlinux = OPTS_GET(opts, vmlinux, NULL),
		.vmlinux_source = "given by the caller",
		.dump_name = "the caller's memory",
		.ignore_build_id = OPTS_GET(opts, ignore_build_id, false),
		.symbol = OPTS_GET(opts, symbol, NULL),
		.symbol_arg = OPTS_GET(opts, arg, NULL),
	};
	inodedump_read_fn read = OPTS_GET(opts, read, NULL);
	struct idd_target *target;
	struct inodedump_error *err;

	if ((err = OPTS_VALID(opts, inodedump_reader_opts)))
		return err;
	if (!opts)
		return idd_error(INODEDUMP_ERR_USAGE,
				 "inodedump_open_reader: no options given");
	if (!out)
		return idd_error(INODEDUMP_ERR_USAGE,
				 "inodedump_open_reader: nowhere to put the "
				 "session");
	if (!read)
		return idd_error(INODEDUMP_ERR_USAGE,
				 "struct inodedump_reader_opts: no read "
				 "function given");
	if (!cfg.vmlinux)
		return idd_error(INODEDUMP_ERR_USAGE,
				 "struct inodedump_reader_opts: no vmlinux "
				 "given (a caller's memory needs its vmlinux)");
	err = idd_target_open_reader(read, cfg.symbol_arg,
				     OPTS_GET(opts, vmcoreinfo, NULL), &target);
	if (err)
		return err;
	return idd_session_open(target, &cfg, out);
}

static void inform(void *arg, const char *text)
{
	idd_session_inform(arg, text);
}

/*
 * The struct module of the filesystem of the inode being named (its
 * superblock's s_type->owner), 0 when none can be read: where no symbol
 * names the kernel's module list, the list is walked from it.
 */
static uint64_t module_seed(void *arg)
{
	struct inodedump *id = arg;
	struct idd_member s_type, owner;
	struct idd_struct fst;
	struct inodedump_error *err = NULL;
	uint64_t type = 0, mod = 0;

	if (!id->naming_sb || !id->layout || !id->layout->have_sb)
		return 0;
	idd_types_member(id->types, &id->layout->sb, "s_type", &s_type);
	if (!s_type.present ||
	    (err = idd_types_pointee_struct(id->types, &s_type, &fst)))
		goto none;
	idd_types_member(id->types, &fst, "owner", &owner);
	if (!owner.present ||
	    (err = idd_target_read_u64(id->target,
				       id->naming_sb + s_type.offset, &type)) ||
	    !type ||
	    (err = idd_target_read_u64(id->target, type + owner.offset, &mod)))
		goto none;
	return mod;
none:
	inodedump_error_free(err);
	return 0;
}

static char *fetch_module(const char *build_id, const char *module, void *arg,
			  char **why)
{
	(void)arg;
	return idd_debuginfod_fetch(build_id, module, why);
}

/*
 * The name of a symbol vmlinux does not have: the caller's answer first
 * (it knows its modules), then the dump's own module list, whose data
 * kallsyms may not name (then the module's debug file, or why not).
 */
struct inodedump_error *idd_session_symbol_noted(struct inodedump *id,
						 uint64_t addr, char **name,
						 char **module, char **note)
{
	char host_name[512] = "", mod[64] = "";
	uint64_t offset = 0;

	*name = *module = *note = NULL;
	if (!id->host_symbol ||
	    !id->host_symbol(addr, host_name, sizeof(host_name), mod,
			     sizeof(mod), &offset, id->host_arg) ||
	    !host_name[0]) {
		struct idd_module_where where = {
			.debug_root = id->debug_root,
			.release = id->release,
			.fetch = fetch_module,
			.note = inform,
			.note_arg = id,
			.seed = module_seed,
		};

		return idd_module_symbol(&id->modules, id->target, id->types,
					 id->syms, &where, addr, name, module,
					 note);
	}
	host_name[sizeof(host_name) - 1] = mod[sizeof(mod) - 1] = '\0';
	if (mod[0] && !(*module = strdup(mod)))
		return idd_nomem();
	*name = offset ? idd_strdup_printf("%s+0x%llx", host_name,
					   (unsigned long long)offset)
		       : strdup(host_name);
	if (!*name) {
		free(*module);
		*module = NULL;
		return idd_nomem();
	}
	return NULL;
}

struct inodedump_error *idd_session_symbol(struct inodedump *id, uint64_t addr,
					   char **name, char **module)
{
	char *note = NULL;
	struct inodedump_error *err =
		idd_session_symbol_noted(id, addr, name, module, &note);

	free(note);
	return err;
}

/* ------------------------------------------------------------- options -- */

/* Each known end is the struct's last member (padding aside). */
#define LAST_FIELD_IS_LAST(T)                                                  \
	_Static_assert((IDD_OPTS_KNOWN(T) + _Alignof(struct T) - 1) /          \
				       _Alignof(struct T) * _Alignof(struct T) == \
			       sizeof(struct T),                               \
		       #T "__last_field is not the last member")
LAST_FIELD_IS_LAST(inodedump_open_opts);
LAST_FIELD_IS_LAST(inodedump_sweep_opts);
LAST_FIELD_IS_LAST(inodedump_reader_opts);

struct inodedump_error *idd_opts_check(const void *opts, size_t known,
				       size_t user_sz, const char *type)
{
	const unsigned char *bytes = opts;

	if (!opts)
		return NULL;
	if (user_sz < sizeof(size_t))
		return idd_error(INODEDUMP_ERR_USAGE,
				 "struct %s: sz %zu is too small to be one "
				 "(declare it with INODEDUMP_OPTS())",
				 type, user_sz);
	for (size_t i = known; i < user_sz; i++)
		if (bytes[i])
			return idd_error(INODEDUMP_ERR_USAGE,
					 "struct %s sets options this library "
					 "does not know: byte %zu of its %zu "
					 "is not zero, and this inodedump knows "
					 "its first %zu (built against a newer "
					 "inodedump.h?)",
					 type, i, user_sz, known);
	return NULL;
}

void inodedump_close(struct inodedump *id)
{
	if (!id)
		return;
	idd_modules_free(id->modules);
	idd_holders_free(id->holders);
	idd_mntns_free(id->mntns);
	idd_btfl_free(id->btf);
	idd_pages_layout_free(id->pages_layout);
	idd_slab_layout_free(id->slab_layout);
	idd_fs_layouts_free(id->fs_layouts);
	idd_pagecache_layout_free(id->pagecache_layout);
	idd_btf_free(id->module_btf);
	idd_free_sym_memo(id->sym_memo);
	idd_free_sb_memo(&id->sb_memo);
	idd_symbols_close(id->syms);
	idd_types_close(id->types);
	inodedump_error_free(id->no_types);
	free(id->no_types_text);
	idd_target_close(id->target);
	idd_layout_free(id->layout);
	idd_paths_layout_free(id->paths_layout);
	free(id->vmlinux);
	free(id->debug_root);
	free(id->vmlinux_source);
	free(id->types_source);
	free(id->symbols_source);
	free(id->build_id_vmlinux);
	free(id->kaslr_text);
	free(id->dump_level_text);
	free(id->page_size_text);
	idd_session_notes_free(id);
	free(id);
}

struct inodedump_error *inodedump_forget(struct inodedump *id)
{
	if (!id)
		return idd_error(INODEDUMP_ERR_USAGE,
				 "inodedump_forget: no session");
	idd_free_sb_memo(&id->sb_memo);
	idd_free_sym_memo(id->sym_memo);
	id->sym_memo = NULL;
	idd_modules_free(id->modules);
	id->modules = NULL;
	idd_holders_free(id->holders);
	id->holders = NULL;
	idd_mntns_free(id->mntns);
	id->mntns = NULL;
	if (!idd_target_forget(id->target))
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: the reader could not drop the pages it "
				 "read: they may be old",
				 idd_target_path(id->target));
	return NULL;
}

const char *inodedump_fact(struct inodedump *id, const char *name)
{
	if (!id || !name)
		return NULL;
	if (!strcmp(name, INODEDUMP_FACT_OSRELEASE))
		return id->release;
	if (!strcmp(name, INODEDUMP_FACT_OSRELEASE_SOURCE))
		return id->release ? id->release_source : NULL;
	if (!strcmp(name, INODEDUMP_FACT_BUILD_ID))
		return idd_target_vmcoreinfo(id->target, "BUILD-ID");
	if (!strcmp(name, INODEDUMP_FACT_VMLINUX_BUILD_ID))
		return id->build_id_vmlinux;
	if (!strcmp(name, INODEDUMP_FACT_FORMAT))
		return idd_target_format(id->target);
	if (!strcmp(name, INODEDUMP_FACT_READER))
		return idd_target_reader(id->target);
	if (!strcmp(name, INODEDUMP_FACT_TRANSLATION))
		return idd_target_translation(id->target);
	if (!strcmp(name, INODEDUMP_FACT_KASLR_OFFSET))
		return id->kaslr_text;
	if (!strcmp(name, INODEDUMP_FACT_VMLINUX))
		return id->vmlinux;
	if (!strcmp(name, INODEDUMP_FACT_VMLINUX_SOURCE))
		return id->vmlinux_source;
	if (!strcmp(name, INODEDUMP_FACT_TYPES))
		return id->types_source;
	if (!strcmp(name, INODEDUMP_FACT_SYMBOLS))
		return id->symbols_source;
	if (!strcmp(name, INODEDUMP_FACT_DUMP_LEVEL))
		return id->dump_level_text;
	if (!strcmp(name, INODEDUMP_FACT_ARCH))
		return idd_target_arch(id->target);
	if (!strcmp(name, INODEDUMP_FACT_PAGE_SIZE_SOURCE))
		return id->page_size_text
			       ? idd_target_page_size_whence(id->target)
			       : NULL;
	if (!strcmp(name, INODEDUMP_FACT_PAGE_SIZE))
		return id->page_size_text;
	if (!strcmp(name, INODEDUMP_FACT_COMPRESSION))
		return idd_target_compression(id->target);
	if (!strcmp(name, INODEDUMP_FACT_WRITER))
		return idd_target_writer(id->target);
	if (!strcmp(name, INODEDUMP_FACT_EXCLUDED_PAGES))
		return idd_pages_excluded(id, false);
	if (!strcmp(name, INODEDUMP_FACT_NO_TYPES))
		return id->no_types_text;
	/* Each needs struct page or the slab allocator's structs. */
	if (!id->types)
		return NULL;
	if (!strcmp(name, INODEDUMP_FACT_EXCLUDED_BY_KIND))
		return idd_pages_excluded(id, true);
	if (!strcmp(name, INODEDUMP_FACT_SLAB))
		return idd_slab_describe(id);
	return NULL;
}
