// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The session: open a dump, find and check its vmlinux, the KASLR offset,
 * and the facts --info reports; close it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/inode.h"
#include "decode/layout.h"

/* ---------------------------------------------------------------- open -- */

void idd_anchor(struct inodedump *id, const char *cu_hint,
		const char *const *functions)
{
	for (; *functions; functions++) {
		uint64_t addr;

		if (idd_symbols_address(id->syms, *functions, &addr)) {
			idd_types_anchor(id->types, cu_hint, addr - id->kaslr);
			return;
		}
	}
}


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
 * The KASLR offset: VMCOREINFO's KERNELOFFSET, else the difference between
 * a VMCOREINFO SYMBOL() and the same symbol in vmlinux (kernels before
 * KERNELOFFSET, or a VMCOREINFO cut short).
 */
static void find_kaslr(struct inodedump *id)
{
	id->kaslr = 0;
	if (parse_hex(idd_target_vmcoreinfo(id->target, "KERNELOFFSET"),
		      &id->kaslr)) {
		id->kaslr_from_vmcoreinfo = true;
		idd_symbols_set_kaslr(id->syms, id->kaslr);
		return;
	}
	for (size_t i = 0; i < sizeof(kaslr_probes) / sizeof(kaslr_probes[0]);
	     i++) {
		char key[64];
		uint64_t in_dump, in_vmlinux;

		snprintf(key, sizeof(key), "SYMBOL(%s)", kaslr_probes[i]);
		if (parse_hex(idd_target_vmcoreinfo(id->target, key), &in_dump) &&
		    idd_symbols_address(id->syms, kaslr_probes[i], &in_vmlinux)) {
			id->kaslr = in_dump - in_vmlinux;
			idd_symbols_set_kaslr(id->syms, id->kaslr);
			return;
		}
	}
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

#define OPT(opts, field, dflt)                                                 \
	((opts) && (opts)->sz >= offsetof(struct inodedump_open_opts, field) + \
				       sizeof((opts)->field)                   \
		 ? (opts)->field                                               \
		 : (dflt))

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

static struct inodedump_error *find_vmlinux(struct inodedump *id,
					    const char *root)
{
	const char *release = idd_target_vmcoreinfo(id->target, "OSRELEASE");
	char tried[2048] = "";
	size_t used = 0;

	if (!release)
		release = idd_target_uts_release(id->target);
	if (!release)
		return idd_error(INODEDUMP_ERR_VMLINUX,
				 "the dump names no kernel release (no "
				 "VMCOREINFO OSRELEASE): give the vmlinux with -k");
	for (size_t i = 0; i < sizeof(vmlinux_places) / sizeof(*vmlinux_places);
	     i++) {
		char rel[1024], *path;

		snprintf(rel, sizeof(rel), vmlinux_places[i], release);
		path = idd_strdup_printf("%s%s", root ? root : "", rel);
		if (!path)
			return idd_nomem();
		if (access(path, R_OK) == 0) {
			id->vmlinux = path;
			id->vmlinux_source = idd_strdup_printf(
				"found by the dump's release %s", release);
			return NULL;
		}
		used += (size_t)snprintf(tried + used, sizeof(tried) - used,
					 "%s%s", used ? ", " : "", path);
		if (used >= sizeof(tried))
			used = sizeof(tried) - 1;
		free(path);
	}
	return idd_error(INODEDUMP_ERR_VMLINUX,
			 "no vmlinux for release %s (tried %s): install the "
			 "kernel's debuginfo or give it with -k",
			 release, tried);
}

struct inodedump_error *idd_open_target(struct idd_target *target,
					const char *vmlinux,
					struct inodedump **out)
{
	struct inodedump *id = calloc(1, sizeof(*id));
	struct inodedump_error *err;

	if (!id) {
		idd_target_close(target);
		return idd_nomem();
	}
	id->target = target;
	id->vmlinux = strdup(vmlinux);
	err = idd_types_open(vmlinux, &id->types);
	if (!err)
		err = idd_symbols_open(idd_types_elf(id->types),
				       idd_types_fd(id->types), 0, &id->syms);
	if (err) {
		inodedump_close(id);
		return err;
	}
	find_kaslr(id);
	id->version = idd_parse_release(
		idd_target_vmcoreinfo(id->target, "OSRELEASE"));
	*out = id;
	return NULL;
}

struct inodedump_error *inodedump_open(const char *vmcore,
				       const struct inodedump_open_opts *opts,
				       struct inodedump **out)
{
	struct inodedump *id;
	struct inodedump_error *err;
	const char *vmlinux = OPT(opts, vmlinux, NULL);
	bool ignore = OPT(opts, ignore_build_id, false);

	if (!vmcore)
		return idd_error(INODEDUMP_ERR_USAGE, "no dump given");
	id = calloc(1, sizeof(*id));
	if (!id)
		return idd_nomem();
	err = idd_target_open(vmcore, &id->target);
	if (err)
		goto fail;
	if (vmlinux) {
		id->vmlinux = strdup(vmlinux);
		id->vmlinux_source = strdup("given with -k");
		if (!id->vmlinux || !id->vmlinux_source) {
			err = idd_nomem();
			goto fail;
		}
	} else if ((err = find_vmlinux(id, OPT(opts, debug_root, NULL)))) {
		goto fail;
	}
	err = idd_types_open(id->vmlinux, &id->types);
	if (err)
		goto fail;
	/* Some writers (QEMU's kdump) leave the machine out of the header. */
	idd_target_default_arch(id->target,
				idd_elf_arch(idd_types_elf(id->types)));
	if (!parse_hex(idd_target_vmcoreinfo(id->target, "KERNELOFFSET"),
		       &id->kaslr))
		id->kaslr = 0;
	err = idd_symbols_open(idd_types_elf(id->types),
			       idd_types_fd(id->types), id->kaslr, &id->syms);
	if (err)
		goto fail;
	find_kaslr(id);
	id->build_id_vmlinux = idd_elf_build_id(idd_types_elf(id->types));
	id->version = idd_parse_release(
		idd_target_vmcoreinfo(id->target, "OSRELEASE"));
	id->kaslr_text = idd_strdup_printf("0x%llx",
					   (unsigned long long)id->kaslr);
	if (idd_target_dump_level(id->target) >= 0)
		id->dump_level_text = idd_strdup_printf(
			"%d", idd_target_dump_level(id->target));
	if (idd_target_page_size(id->target))
		id->page_size_text = idd_strdup_printf(
			"%llu", (unsigned long long)idd_target_page_size(id->target));
	if (!ignore) {
		err = check_match(id, vmcore);
		if (!err && !strcmp(vmcore, "/proc/kcore"))
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

void inodedump_close(struct inodedump *id)
{
	if (!id)
		return;
	idd_modules_free(id->modules);
	idd_holders_free(id->holders);
	idd_btf_free(id->btf);
	idd_free_sym_memo(id->sym_memo);
	idd_free_sb_memo(&id->sb_memo);
	idd_symbols_close(id->syms);
	idd_types_close(id->types);
	idd_target_close(id->target);
	free(id->layout);
	free(id->paths_layout);
	free(id->vmlinux);
	free(id->vmlinux_source);
	free(id->build_id_vmlinux);
	free(id->kaslr_text);
	free(id->dump_level_text);
	free(id->page_size_text);
	free(id);
}

const char *inodedump_fact(struct inodedump *id, const char *name)
{
	if (!strcmp(name, "osrelease"))
		return idd_target_vmcoreinfo(id->target, "OSRELEASE");
	if (!strcmp(name, "build_id"))
		return idd_target_vmcoreinfo(id->target, "BUILD-ID");
	if (!strcmp(name, "vmlinux_build_id"))
		return id->build_id_vmlinux;
	if (!strcmp(name, "format"))
		return idd_target_format(id->target);
	if (!strcmp(name, "reader"))
		return idd_target_reader(id->target);
	if (!strcmp(name, "translation"))
		return idd_target_translation(id->target);
	if (!strcmp(name, "kaslr_offset"))
		return id->kaslr_text;
	if (!strcmp(name, "vmlinux"))
		return id->vmlinux;
	if (!strcmp(name, "vmlinux_source"))
		return id->vmlinux_source;
	if (!strcmp(name, "dump_level"))
		return id->dump_level_text;
	if (!strcmp(name, "arch"))
		return idd_target_arch(id->target);
	if (!strcmp(name, "page_size"))
		return id->page_size_text;
	return NULL;
}

