// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Types: the layout of the few structs inodedump needs, found lazily in
 * vmlinux DWARF with libdw: a struct is looked for unit by unit and the
 * search stops at the first complete definition. Each answer by name (a
 * unit, a struct anywhere or in one unit, an enum, an enumerator, a
 * function), found or not, is kept in the index (dwarf_index.c, in the
 * per-kernel cache), so it is looked for once per kernel: a struct or enum
 * this kernel lacks costs no walk of every unit after the first run.
 * Compressed DWARF is read from its copy inflated in the cache
 * (dwarf_inflate.c). Structs reachable through a member's pointer type
 * are taken from that type directly. A type source (source.h): the front
 * door, types.c, hands it a session's lookups when vmlinux is given.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "target/target.h"
#include "types/btf_internal.h"
#include "types/dwarf_internal.h"
#include "types/source.h"
#include "types/types.h"

#define CACHE_MAX 32

struct cached_struct {
	char *name;
	struct idd_struct s;
};

struct cu_hint {
	char *suffix;
	Dwarf_Off cu; /* the unit's header offset */
};

struct idd_dwarf {
	struct idd_dwm members; /* dwarf_member.c's member tables */
	struct cu_hint hints[32]; /* units placed by dwarf_anchor() */
	size_t nhints;
	struct cu_hint units[16]; /* units found by name */
	size_t nunits;
	int fd;
	Elf *elf;	/* vmlinux: its symbols, its build-id */
	Elf *dw_elf;	/* the inflated copy its DWARF is read from, if any */
	int dw_fd;
	Dwarf *dwarf;
	struct idd_dwarf_alt *alt; /* dwz -m's supplementary file, if any */
	char *path;
	struct idd_dwarf_id id;
	char *cache_dir;   /* the build-id's cache directory; NULL: none */
	struct idd_dwx *index;
	bool index_tried;
	bool noted;	   /* a note on the cache was printed */
	struct cached_struct cache[CACHE_MAX];
	size_t ncache;
	/* Where the last successful search ended: the next starts there. */
	Dwarf_Off resume_cu;
	/* vmlinux's own .BTF, parsed at the first walk of every unit. */
	struct idd_btf *own_btf;
	bool own_btf_tried;
};

struct Elf *idd_dwarf_elf(struct idd_dwarf *types)
{
	return types->elf;
}

const char *idd_dwarf_alt_path(struct idd_dwarf *types)
{
	return types->alt ? types->alt->path : NULL;
}

int idd_dwarf_fd(struct idd_dwarf *types)
{
	return types->fd;
}

static void dwarf_close(void *src);

static void types_closep(struct idd_dwarf **types)
{
	dwarf_close(*types);
}

/* What the cache could not do, said once a session on stderr. */
static void cache_note(struct idd_dwarf *types, char *note)
{
	if (note && !types->noted) {
		fprintf(stderr, "vmcore-inode: %s\n", note);
		types->noted = true;
	}
	free(note);
}

/* The index of answers by name, read (or begun) at the first lookup. */
static struct idd_dwx *names(struct idd_dwarf *types)
{
	char *note;

	if (!types->index_tried) {
		types->index_tried = true;
		types->index = idd_dwx_open(&types->id, types->cache_dir,
					    &note);
		cache_note(types, note);
	}
	return types->index;
}

struct idd_dwx *idd_dwarf_answers(struct idd_dwarf *types)
{
	return names(types);
}

bool idd_dwarf_answers_kept(struct idd_dwarf *types)
{
	struct idd_dwx *x = names(types);

	return x && idd_dwx_kept(x);
}

/*
 * The cache directory of this DWARF: the build-id's; for a vmlinux
 * compressed by dwz, a folder in it per supplementary file (dwz keeps the
 * build-id: the plain -dbg vmlinux and the one dwz made from it, each its
 * own index of DIE offsets), the index's fingerprint covering both files.
 */
static struct inodedump_error *cache_place(struct idd_dwarf *types,
					   const char *root)
{
	struct inodedump_error *err;
	char *note = NULL;

	idd_dwarf_id_of(types->elf, &types->id);
	types->cache_dir = idd_cache_dir(types->id.build_id);
	if ((err = idd_dwarf_alt_find(types->elf, types->path, root,
				      &types->alt)) ||
	    !types->alt)
		return err;
	if (types->cache_dir) {
		char *dir = idd_strdup_printf("%s/dwz-%s", types->cache_dir,
					      types->alt->build_id);

		free(types->cache_dir);
		if (!(types->cache_dir = dir))
			return idd_nomem();
	}
	err = idd_dwarf_alt_begin(types->alt, types->cache_dir, &note);
	cache_note(types, note);
	if (err)
		return err;
	types->id.fingerprint = idd_dwarf_hash(types->id.fingerprint,
					       &types->alt->id.fingerprint,
					       sizeof(uint64_t));
	return NULL;
}

/* libdw on the inflated copy when there is one, else on vmlinux. */
static Dwarf *begin_dwarf(struct idd_dwarf *types)
{
	char *note;
	Dwarf *dw;

	types->dw_elf = idd_dwarf_inflated(types->elf, types->fd, &types->id,
					   types->cache_dir, IDD_DWARF_COPY,
					   &types->dw_fd, &note);
	cache_note(types, note);
	if (types->dw_elf) {
		dw = dwarf_begin_elf(types->dw_elf, DWARF_C_READ, NULL);
		if (dw)
			return dw;
		cache_note(types, idd_strdup_printf(
			"the inflated DWARF in %s was not used (%s)",
			types->cache_dir, dwarf_errmsg(-1)));
		elf_end(types->dw_elf);
		close(types->dw_fd);
		types->dw_elf = NULL;
		types->dw_fd = -1;
	}
	return dwarf_begin_elf(types->elf, DWARF_C_READ, NULL);
}

struct inodedump_error *idd_dwarf_open(const char *vmlinux,
				       const char *debug_root,
				       struct idd_dwarf **out)
{
	struct inodedump_error *err;
	_cleanup_(types_closep) struct idd_dwarf *types =
		calloc(1, sizeof(*types));
	const char *why;

	if (!types)
		return idd_nomem();
	elf_version(EV_CURRENT);
	types->fd = -1;
	types->dw_fd = -1;
	types->path = strdup(vmlinux);
	if (!types->path)
		return idd_nomem();
	/* A regular file only, without waiting on a FIFO. */
	types->fd = idd_open_input(vmlinux, false, &why);
	if (types->fd < 0)
		return idd_error(INODEDUMP_ERR_VMLINUX,
				 "cannot open vmlinux %s: %s", vmlinux, why);
	types->elf = elf_begin(types->fd, ELF_C_READ_MMAP, NULL);
	if (!types->elf || elf_kind(types->elf) != ELF_K_ELF) {
		/* libelf has no error for a file of another kind. */
		int e = elf_errno();

		return idd_error(INODEDUMP_ERR_VMLINUX,
				 "vmlinux %s is not an ELF file%s%s", vmlinux,
				 e ? ": " : "", e ? elf_errmsg(e) : "");
	}
	if ((err = cache_place(types, debug_root)))
		return err;
	types->dwarf = begin_dwarf(types);
	if (types->dwarf && types->alt)
		dwarf_setalt(types->dwarf, types->alt->dwarf);
	if (!types->dwarf)
		return idd_error(INODEDUMP_ERR_VMLINUX,
				 "vmlinux %s has no DWARF debug information "
				 "(%s); use the kernel's debuginfo vmlinux, e.g. "
				 "/usr/lib/debug/boot/vmlinux-<release>",
				 vmlinux, dwarf_errmsg(-1));
	*out = TAKE_PTR(types);
	return NULL;
}

static void dwarf_close(void *src)
{
	struct idd_dwarf *types = src;
	char *note;

	if (!types)
		return;
	idd_dwx_close(types->index, &note);
	cache_note(types, note);
	for (size_t i = 0; i < types->ncache; i++)
		free(types->cache[i].name);
	idd_dwm_free(&types->members);
	for (size_t i = 0; i < types->nhints; i++)
		free(types->hints[i].suffix);
	for (size_t i = 0; i < types->nunits; i++)
		free(types->units[i].suffix);
	idd_btf_free(types->own_btf);
	if (types->dwarf)
		dwarf_end(types->dwarf);
	idd_dwarf_alt_close(types->alt); /* after: libdw does not own it */
	if (types->dw_elf)
		elf_end(types->dw_elf);
	if (types->dw_fd >= 0)
		close(types->dw_fd);
	if (types->elf)
		elf_end(types->elf);
	if (types->fd >= 0)
		close(types->fd);
	free(types->path);
	free(types->cache_dir);
	idd_dwarf_id_free(&types->id);
	free(types);
}

static bool unit_die(struct idd_dwarf *types, Dwarf_Off off, Dwarf_Die *out)
{
	return idd_dwu_unit_die(types->dwarf, off, out);
}

/*
 * A DIE by reference (dwarf_unit.c's idd_dwu_ref(): its offset, with
 * IDD_DWU_ALT when it is in dwz's supplementary file, whose offsets may
 * equal vmlinux's own). Never 0: a unit's header is there.
 */
/* The same enum read by dwarf_enum() (its values as signed data). */
#define DIE_SDATA (UINT64_C(1) << 61)

static uint64_t die_ref(struct idd_dwarf *types, Dwarf_Die *die)
{
	return (uint64_t)idd_dwu_ref(types->dwarf, die);
}

static bool die_at(struct idd_dwarf *types, uint64_t ref, Dwarf_Die *out)
{
	return ref && idd_dwu_at(types->dwarf, (int64_t)ref, out);
}

static bool fill_struct(struct idd_dwarf *types, Dwarf_Die *die,
			struct idd_struct *out)
{
	struct idd_dwx *x = names(types);
	Dwarf_Word size;

	if (dwarf_aggregate_size(die, &size) != 0)
		return false;
	*out = (struct idd_struct){ .die = die_ref(types, die),
				    .dwarf = types, .size = size };
	if (x)
		idd_dwx_remember(x, IDD_DWX_SIZE, out->die, "", true,
				 (int64_t)size);
	return true;
}

/* The aggregate at ref: its size from the index, else from its DIE. */
static bool struct_at(struct idd_dwarf *types, uint64_t ref,
		      struct idd_struct *out)
{
	struct idd_dwx *x = names(types);
	struct idd_dwx_answer a;
	Dwarf_Die die;

	if (x && idd_dwx_recall_answer(x, IDD_DWX_SIZE, ref, "", &a) &&
	    a.found) {
		*out = (struct idd_struct){ .die = ref, .dwarf = types,
					    .size = (uint64_t)a.value };
		return true;
	}
	return die_at(types, ref, &die) && fill_struct(types, &die, out);
}

/* The first complete struct/union "name" of one unit, filled. */
static bool search_cu(struct idd_dwarf *types, Dwarf_Die *cudie,
		      const char *name, struct idd_struct *out)
{
	Dwarf_Die die;

	return idd_dwu_struct(cudie, name, &die) &&
	       fill_struct(types, &die, out);
}

static void cache_put(struct idd_dwarf *types, const char *name,
		      const struct idd_struct *s)
{
	if (types->ncache == CACHE_MAX)
		return;
	types->cache[types->ncache].name = strdup(name);
	if (!types->cache[types->ncache].name)
		return;
	types->cache[types->ncache].s = *s;
	types->ncache++;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/*
 * Whether the unit at cu is suffix's, asked once a kernel: reading a late
 * unit's DIE makes libdw read every unit before it (each one's
 * abbreviations), which a run answered from the index need not do.
 */
static bool unit_named(struct idd_dwarf *types, Dwarf_Off cu,
		       const char *suffix)
{
	struct idd_dwx *x = names(types);
	Dwarf_Die cudie;
	const char *name;
	int64_t unused;
	bool found;

	if (x && idd_dwx_recall(x, IDD_DWX_UNIT_NAMED, cu, suffix, &found,
				&unused))
		return found;
	found = unit_die(types, cu, &cudie) &&
		(name = dwarf_diename(&cudie)) && ends_with(name, suffix);
	if (x)
		idd_dwx_remember(x, IDD_DWX_UNIT_NAMED, cu, suffix, found, 0);
	return found;
}

static bool dwarf_anchored(void *src, const char *suffix);

static void dwarf_anchor(void *src, const char *suffix, uint64_t code_addr)
{
	struct idd_dwarf *types = src;
	struct idd_dwx *x = names(types);
	Dwarf_Off cu;
	int64_t at;
	bool found;

	if (types->nhints == sizeof(types->hints) / sizeof(types->hints[0]) ||
	    !code_addr || dwarf_anchored(types, suffix))
		return;
	if (x && idd_dwx_recall(x, IDD_DWX_ARANGE, code_addr, "", &found,
				&at)) {
		cu = (Dwarf_Off)at;
	} else {
		found = idd_dwu_aranges(types->dw_elf ? types->dw_elf
						      : types->elf,
					code_addr, &cu);
		if (x)
			idd_dwx_remember(x, IDD_DWX_ARANGE, code_addr, "",
					 found, found ? (int64_t)cu : 0);
	}
	if (!found || !unit_named(types, cu, suffix))
		return;
	types->hints[types->nhints].suffix = strdup(suffix);
	if (types->hints[types->nhints].suffix)
		types->hints[types->nhints++].cu = cu;
}

static bool dwarf_anchored(void *src, const char *suffix)
{
	struct idd_dwarf *types = src;

	for (size_t i = 0; i < types->nhints; i++)
		if (!strcmp(types->hints[i].suffix, suffix))
			return true;
	return false;
}

/*
 * The unit whose name ends with suffix ("kernel/printk/printk_ringbuffer.c"),
 * its header's offset: where dwarf_anchor() placed it, else the first unit
 * of that name.
 */
static bool find_unit(struct idd_dwarf *types, const char *suffix,
		      Dwarf_Off *cu)
{
	struct idd_dwx *x = names(types);
	int64_t at;
	bool found;

	for (size_t i = 0; i < types->nhints; i++)
		if (!strcmp(types->hints[i].suffix, suffix)) {
			*cu = types->hints[i].cu;
			return true;
		}
	for (size_t i = 0; i < types->nunits; i++)
		if (!strcmp(types->units[i].suffix, suffix)) {
			*cu = types->units[i].cu;
			return true;
		}
	if (x && idd_dwx_recall(x, IDD_DWX_UNIT, 0, suffix, &found, &at)) {
		*cu = (Dwarf_Off)at;
	} else {
		found = idd_dwu_walk_unit(types->dwarf, suffix, cu);
		if (x)
			idd_dwx_remember(x, IDD_DWX_UNIT, 0, suffix, found,
					 found ? (int64_t)*cu : 0);
	}
	if (!found)
		return false;
	if (types->nunits < sizeof(types->units) / sizeof(types->units[0]) &&
	    (types->units[types->nunits].suffix = strdup(suffix)))
		types->units[types->nunits++].cu = *cu;
	return true;
}

static bool find_cu(struct idd_dwarf *types, const char *suffix,
		    Dwarf_Die *out)
{
	Dwarf_Off cu;

	return find_unit(types, suffix, &cu) && unit_die(types, cu, out);
}

static struct inodedump_error *struct_any(struct idd_dwarf *types,
					  const char *name,
					  struct idd_struct *out);

/* From the cache, or in cu_hint's unit (a struct private to one file is
 * defined only in that file's CU). */
static bool struct_in_unit(struct idd_dwarf *types, const char *name,
			   const char *cu_hint, struct idd_struct *out)
{
	struct idd_dwx *x;
	Dwarf_Die cudie;
	Dwarf_Off cu;
	int64_t at;
	bool found;

	for (size_t i = 0; i < types->ncache; i++) {
		if (!strcmp(types->cache[i].name, name)) {
			*out = types->cache[i].s;
			return true;
		}
	}
	if (!cu_hint)
		return false;
	if (!(x = names(types))) {
		found = find_cu(types, cu_hint, &cudie) &&
			search_cu(types, &cudie, name, out);
	} else if (!find_unit(types, cu_hint, &cu)) {
		return false; /* no such unit */
	} else if (idd_dwx_recall(x, IDD_DWX_UNIT_STRUCT, cu, name, &found,
				  &at)) {
		found = found && struct_at(types, (uint64_t)at, out);
	} else {
		if (!unit_die(types, cu, &cudie))
			return false;
		found = search_cu(types, &cudie, name, out);
		at = found ? (int64_t)out->die : 0;
		idd_dwx_remember(x, IDD_DWX_UNIT_STRUCT, cu, name, found, at);
	}
	if (found)
		cache_put(types, name, out);
	return found;
}

static struct inodedump_error *dwarf_struct(void *src, const char *name,
					    const char *cu_hint,
					    struct idd_struct *out)
{
	struct idd_dwarf *types = src;

	if (struct_in_unit(types, name, cu_hint, out))
		return NULL;
	return struct_any(types, name, out);
}

static struct inodedump_error *dwarf_struct_in_unit(void *src,
						    const char *name,
						    const char *cu_hint,
						    struct idd_struct *out)
{
	if (struct_in_unit(src, name, cu_hint, out))
		return NULL;
	return idd_error(INODEDUMP_ERR_TYPE, "vmlinux's unit %s has no "
			 "struct %s", cu_hint ? cu_hint : "(none)", name);
}

/*
 * A question about the unit cu_hint names, answered by walk(): once, then
 * from the index (which remembers it for the next run). No index: walked.
 */
static bool ask_unit(struct idd_dwarf *types, const char *cu_hint,
		     enum idd_dwx_question q, const char *name,
		     bool (*walk)(Dwarf_Die *, const char *, int64_t *),
		     int64_t *value)
{
	struct idd_dwx *x = names(types);
	Dwarf_Die cudie;
	Dwarf_Off cu;
	bool found;

	if (!find_unit(types, cu_hint, &cu))
		return false;
	if (x && idd_dwx_recall(x, q, cu, name, &found, value))
		return found;
	if (!unit_die(types, cu, &cudie))
		return false;
	found = walk(&cudie, name, value);
	if (x)
		idd_dwx_remember(x, q, cu, name, found, found ? *value : 0);
	return found;
}

/* An enumerator of the enum DIE e, as ref's flag says to read it. */
static bool enumerator_of(Dwarf_Die *type, Dwarf_Die *e, uint64_t ref,
			  int64_t *value)
{
	Dwarf_Attribute attr;
	Dwarf_Sword v;

	if (dwarf_tag(e) != DW_TAG_enumerator)
		return false;
	if (!(ref & DIE_SDATA))
		return idd_dwu_enumerator_value(type, e, value);
	if (!dwarf_attr(e, DW_AT_const_value, &attr) ||
	    dwarf_formsdata(&attr, &v) != 0)
		return false;
	*value = v;
	return true;
}

/*
 * Every enumerator of the enum type at ref (DIE_SDATA: dwarf_enum()'s
 * reading), in order: from the index, else from the DIEs, then kept. The
 * count is kept last, so that an index holds all of an enum or none.
 */
static bool enumerators(struct idd_dwarf *types, uint64_t ref,
			idd_enumerator_fn fn, void *arg)
{
	struct idd_dwx *x = names(types);
	struct idd_dwx_answer a, e;
	Dwarf_Die type, child;
	char key[24];
	int64_t n = 0;

	if (x && idd_dwx_recall_answer(x, IDD_DWX_ENUM_COUNT, ref, "", &a)) {
		bool whole = a.found;

		for (int64_t i = 0; whole && i < a.value; i++) {
			snprintf(key, sizeof(key), "%" PRId64, i);
			whole = idd_dwx_recall_answer(x, IDD_DWX_ENUM_AT, ref,
						      key, &e) &&
				e.found;
		}
		if (whole || !a.found) {
			for (int64_t i = 0; a.found && i < a.value; i++) {
				snprintf(key, sizeof(key), "%" PRId64, i);
				idd_dwx_recall_answer(x, IDD_DWX_ENUM_AT, ref,
						      key, &e);
				fn(e.aux_name, e.value, arg);
			}
			return a.found;
		}
	}
	if (!die_at(types, ref & ~DIE_SDATA, &type) ||
	    dwarf_tag(&type) != DW_TAG_enumeration_type) {
		if (x)
			idd_dwx_remember(x, IDD_DWX_ENUM_COUNT, ref, "", false,
					 0);
		return false;
	}
	if (dwarf_child(&type, &child) != 0) {
		/* No enumerators: no enum to read, as before the index. */
		if (x)
			idd_dwx_remember(x, IDD_DWX_ENUM_COUNT, ref, "", false,
					 0);
		return false;
	}
	{
		do {
			int64_t value;
			const char *name;

			if (!enumerator_of(&type, &child, ref, &value))
				continue;
			name = dwarf_diename(&child);
			fn(name, value, arg);
			if (!x)
				continue;
			snprintf(key, sizeof(key), "%" PRId64, n++);
			idd_dwx_remember_answer(
				x, IDD_DWX_ENUM_AT, ref, key,
				&(struct idd_dwx_answer){ .found = true,
							  .value = value,
							  .aux_name = name });
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (x)
		idd_dwx_remember(x, IDD_DWX_ENUM_COUNT, ref, "", true, n);
	return true;
}

static bool dwarf_enumerator(void *src, const char *cu_hint,
			     const char *enum_hint, const char *name,
			     int64_t *value)
{
	(void)enum_hint;
	return ask_unit(src, cu_hint, IDD_DWX_UNIT_ENUMERATOR, name,
			idd_dwu_enumerator, value);
}

static bool dwarf_enum(void *src, const char *cu_hint,
		       const char *enum_name, idd_enumerator_fn fn, void *arg)
{
	struct idd_dwarf *types = src;
	int64_t at;

	return ask_unit(types, cu_hint, IDD_DWX_UNIT_ENUM, enum_name,
			idd_dwu_enum, &at) &&
	       enumerators(types, (uint64_t)at | DIE_SDATA, fn, arg);
}

static bool dwarf_function(void *src, const char *cu_hint, const char *name)
{
	int64_t unused = 0;

	return ask_unit(src, cu_hint, IDD_DWX_UNIT_FUNCTION, name,
			idd_dwu_function,
			&unused);
}

#define WALK_BEFORE_BTF 16 /* units: ~13 M instructions, the BTF's parse */

/*
 * Whether vmlinux's own BTF says it has no complete struct or union of
 * that name: then its DWARF has none either, for pahole made the BTF from
 * this DWARF, every unit's complete aggregates kept (deduplicated by
 * name and shape, never dropped). A struct newer than the kernel (5.10 has
 * no struct slab) then costs no walk of every unit: on Debian 11's vmlinux
 * that walk is 2.1 G instructions on the first run. No BTF, or a BTF
 * without struct inode (not the kernel's?): false, the DWARF is walked.
 */
static bool btf_lacks_struct(struct idd_dwarf *types, const char *name)
{
	if (!types->own_btf_tried) {
		Elf_Scn *scn = NULL;
		size_t shstrndx;

		types->own_btf_tried = true;
		if (elf_getshdrstrndx(types->elf, &shstrndx) != 0)
			return false;
		while ((scn = elf_nextscn(types->elf, scn))) {
			GElf_Shdr sh;
			const char *sname;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
			    !(sname = elf_strptr(types->elf, shstrndx,
						 sh.sh_name)) ||
			    strcmp(sname, ".BTF"))
				continue;
			if ((d = elf_getdata(scn, NULL)) && d->d_buf) {
				struct inodedump_error *err = idd_btf_parse(
					d->d_buf, d->d_size, "in vmlinux",
					&types->own_btf);

				inodedump_error_free(err);
			}
			break;
		}
		if (types->own_btf &&
		    !idd_btf_lookup(types->own_btf, "inode", 0)) {
			idd_btf_free(types->own_btf);
			types->own_btf = NULL;
		}
	}
	return types->own_btf && !idd_btf_lookup(types->own_btf, name, 0);
}

/* The first complete definition in any unit. */
static struct inodedump_error *struct_any(struct idd_dwarf *types,
					  const char *name,
					  struct idd_struct *out)
{
	struct idd_dwx *x;
	Dwarf_Die die;
	int64_t at;
	bool found;

	for (size_t i = 0; i < types->ncache; i++) {
		if (!strcmp(types->cache[i].name, name)) {
			*out = types->cache[i].s;
			return NULL;
		}
	}
	x = names(types);
	if (x && idd_dwx_recall(x, IDD_DWX_ANY_STRUCT, 0, name, &found, &at)) {
		found = found && struct_at(types, (uint64_t)at, out);
	} else {
		/*
		 * Found or not, never walked for again on this kernel. A few
		 * units first (a struct is most often found early); then, if
		 * vmlinux's BTF lacks it, no walk of the rest.
		 */
		size_t units = WALK_BEFORE_BTF;

		found = idd_dwu_walk_struct(types->dwarf, &types->resume_cu,
					    name, &units, &die);
		if (!found && !units && !btf_lacks_struct(types, name))
			found = idd_dwu_walk_struct(types->dwarf,
						    &types->resume_cu, name,
						    NULL, &die);
		found = found && fill_struct(types, &die, out);
		if (x)
			idd_dwx_remember(x, IDD_DWX_ANY_STRUCT, 0, name, found,
					 found ? (int64_t)out->die : 0);
	}
	if (!found)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "vmlinux %s has no complete definition of "
				 "struct %s",
				 types->path, name);
	cache_put(types, name, out);
	return NULL;
}

/*
 * A member's shape in an answer's aux[1]: size (32 bits), bit size and bit
 * offset (8 each), sign (1), kind (4); its type's reference in aux[0].
 */
static void member_keep(struct idd_dwx *x, uint64_t agg, const char *path,
			const struct idd_member *m)
{
	struct idd_dwx_answer a = { .found = m->present };

	if (m->present) {
		if (m->size > UINT32_MAX || m->bit_size > 0xff ||
		    m->bit_offset > 0xff)
			return; /* not kept: read from the DIEs again */
		a.value = (int64_t)m->offset;
		a.aux[0] = m->type;
		a.aux[1] = m->size | (uint64_t)m->bit_size << 32 |
			   (uint64_t)m->bit_offset << 40 |
			   (uint64_t)m->is_signed << 48 |
			   (uint64_t)m->kind << 49;
	}
	idd_dwx_remember_answer(x, IDD_DWX_MEMBER, agg, path, &a);
}

static void member_recalled(struct idd_dwarf *types,
			    const struct idd_dwx_answer *a,
			    struct idd_member *out)
{
	*out = (struct idd_member){
		.present = true,
		.offset = (uint64_t)a->value,
		.size = a->aux[1] & 0xffffffffu,
		.bit_size = (a->aux[1] >> 32) & 0xff,
		.bit_offset = (a->aux[1] >> 40) & 0xff,
		.is_signed = (a->aux[1] >> 48) & 1,
		.kind = (enum idd_kind)((a->aux[1] >> 49) & 0xf),
		.type = a->aux[0],
		.dwarf = types,
	};
}

static void dwarf_member(void *src, const struct idd_struct *s,
			 const char *path, struct idd_member *out)
{
	struct idd_dwarf *types = src;
	struct idd_dwx *x = names(types);
	struct idd_dwx_answer a;
	Dwarf_Die agg;

	memset(out, 0, sizeof(*out));
	if (x && idd_dwx_recall_answer(x, IDD_DWX_MEMBER, s->die, path, &a)) {
		if (a.found)
			member_recalled(types, &a, out);
		return;
	}
	if (!die_at(types, s->die, &agg))
		return;
	idd_dwm_read(&types->members, types, types->dwarf, types->elf, agg, path,
		     out);
	if (x)
		member_keep(x, s->die, path, out);
}

static struct inodedump_error *dwarf_pointee(void *src,
					     const struct idd_member *m,
					     struct idd_struct *out)
{
	struct idd_dwarf *types = src;
	struct idd_dwx *x = names(types);
	struct idd_dwx_answer a;
	struct inodedump_error *err;
	Dwarf_Die ptr, target;
	const char *name;

	/* Only what was found is kept: a failure is read again to say why. */
	if (m->kind == IDD_KIND_PTR && x &&
	    idd_dwx_recall_answer(x, IDD_DWX_POINTEE, m->type, "", &a) &&
	    a.found && struct_at(types, (uint64_t)a.value, out))
		return NULL;
	if (m->kind != IDD_KIND_PTR || !die_at(types, m->type, &ptr) ||
	    !idd_dwm_member_type(&ptr, &target))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "member is not a pointer to a struct");
	if (idd_dwm_is_aggregate(dwarf_tag(&target)) &&
	    idd_dwu_is_complete(&target) &&
	    fill_struct(types, &target, out)) {
		err = NULL;
	} else if (!(name = dwarf_diename(&target))) {
		return idd_error(INODEDUMP_ERR_TYPE,
				 "pointer to an anonymous incomplete type");
	} else {
		/* Only declared in this CU: the definition elsewhere. */
		err = struct_any(types, name, out);
	}
	if (!err && x)
		idd_dwx_remember(x, IDD_DWX_POINTEE, m->type, "", true,
				 (int64_t)out->die);
	return err;
}

static bool dwarf_member_enum(const struct idd_member *m, idd_enumerator_fn fn,
			      void *arg)
{
	return m->dwarf && enumerators(m->dwarf, m->type, fn, arg);
}

const struct idd_type_ops idd_dwarf_ops = {
	.close = dwarf_close,
	.find_struct = dwarf_struct,
	.member = dwarf_member,
	.pointee = dwarf_pointee,
	.enumerator = dwarf_enumerator,
	.enum_values = dwarf_enum,
	.member_enum = dwarf_member_enum,
	.anchor = dwarf_anchor,
	.anchored = dwarf_anchored,
	.find_struct_in_unit = dwarf_struct_in_unit,
	.function = dwarf_function,
};
