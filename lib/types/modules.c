// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Symbols of loaded modules, read from the dump itself: each struct module
 * on the kernel's "modules" list keeps its kallsyms (an ELF symbol table and
 * its strings) in memory. A stock distro kernel has ext4, xfs, ... as
 * modules, and their operations tables are only named there.
 *
 * Loaded once, on the first address vmlinux cannot name. The list walk is
 * bounded and stops at a cycle that does not pass through the head. What
 * could not be read makes an address no module names an error, never a
 * symbol-less answer.
 *
 * An address inside a module's memory that its kallsyms do not name (its
 * kernel built with CONFIG_KALLSYMS_ALL off keeps the module's functions
 * only) is named from the module's debug file (module_debug.c), found
 * by the build-id of the module's notes (notes_attrs) and placed by its
 * sections' addresses (sect_attrs), both read only then; without one it
 * is "ext4+0x1c2a0", the offset in the module's memory, with why.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/cleanup.h"
#include "target/target.h"
#include "types/types.h"

#define MAX_MODULES 4096
#define MAX_MODULE_SYMS (1u << 20)
#define MODULE_NAME_MAX 64
#define MAX_REGIONS 8
#define MAX_SECTIONS 4096
#define MAX_NOTES 64
#define MAX_NOTE_SIZE 4096

struct module_sym {
	uint64_t value, size, name_addr;
};

/* Memory the module owns: its core (and init, data) layout, or mem[i]. */
struct module_region {
	uint64_t base, size, text_size; /* text_size: 0 not known */
	char label[16];			/* "" for the first */
};

enum debug_state { DEBUG_NOT_TRIED, DEBUG_LOADED, DEBUG_NONE };

struct module_syms {
	char name[MODULE_NAME_MAX];
	struct module_sym *syms;
	size_t n;
	struct module_region regions[MAX_REGIONS];
	size_t nregions;
	uint64_t sect_attrs, notes_attrs, typetab, count;
	enum debug_state debug;
	int functions_only; /* 0: not read yet, 1: no, 2: yes */
	struct idd_module_debug *dbg;
	char *debug_why; /* DEBUG_NONE: why no debug file names its data */
	bool unread;	 /* its kallsyms could not be read (list_error) */
};

struct module_layout {
	struct idd_struct module, kallsyms, sym;
	struct idd_member list_next, list, name, kallsyms_ptr, symtab,
		num_symtab, strtab, st_name, st_value, st_size, typetab;
	/* ...6.3: core_layout, init_layout (data_layout); 6.4...: mem[] */
	struct idd_member layout_base[3], layout_size[3], layout_text[3];
	struct idd_member mem, mem_base, mem_size;
	uint64_t mem_elem;
	char mem_label[MAX_REGIONS][16]; /* "text", "rodata": mod_mem_type */
	struct idd_member sect_attrs, notes_attrs, mkobj_mod;
};

/* sect_attrs and notes_attrs as this kernel lays them out. */
struct sysfs_layout {
	bool tried;
	struct inodedump_error *error; /* why they cannot be read */
	struct idd_struct sects, sect, notes, battr;
	/* ...6.13: attrs[nsections] of struct module_sect_attr */
	struct idd_member nsections, sect_array, sect_address, sect_name;
	/* 6.14...: grp.bin_attrs, NULL-terminated, address in ->private */
	struct idd_member sect_group, notes_group;
	struct idd_member nnotes, notes_array;
	struct idd_member battr_private, battr_size, battr_name;
};

struct idd_modules {
	struct module_syms *mods;
	size_t n;
	/* Why the list could not be read whole: the modules before it stay. */
	struct inodedump_error *list_error;
	struct module_layout l;
	struct sysfs_layout sl;
};

/* mem[i]'s name, from enum mod_mem_type: MOD_RODATA -> "rodata". */
static void mem_label(const char *name, int64_t value, void *arg)
{
	char (*labels)[16] = arg;

	if (value < 0 || value >= MAX_REGIONS || strncmp(name, "MOD_", 4))
		return;
	snprintf(labels[value], 16, "%s", name + 4);
	for (char *c = labels[value]; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
}

/* Where the module's memory is kept: absent members leave no region. */
static void load_region_layout(struct idd_types *t, struct module_layout *l)
{
	static const char *const layouts[3] = { "core_layout", "init_layout",
						"data_layout" };
	struct idd_struct elem;

	for (size_t i = 0; i < 3; i++) {
		char path[48];

		snprintf(path, sizeof(path), "%s.base", layouts[i]);
		idd_types_member(t, &l->module, path, &l->layout_base[i]);
		snprintf(path, sizeof(path), "%s.size", layouts[i]);
		idd_types_member(t, &l->module, path, &l->layout_size[i]);
		snprintf(path, sizeof(path), "%s.text_size", layouts[i]);
		idd_types_member(t, &l->module, path, &l->layout_text[i]);
	}
	idd_types_member(t, &l->module, "mem", &l->mem);
	if (!l->mem.present || l->mem.kind != IDD_KIND_ARRAY ||
	    idd_types_struct_in(t, "module_memory", "kernel/module/main.c",
				&elem) || !elem.size)
		return;
	idd_types_member(t, &elem, "base", &l->mem_base);
	idd_types_member(t, &elem, "size", &l->mem_size);
	l->mem_elem = elem.size;
	idd_types_enum(t, "kernel/module/main.c", "mod_mem_type", mem_label,
		       l->mem_label);
}

/* The module's memory regions, from its struct module's bytes. */
static void read_regions(const struct module_layout *l, const uint8_t *mod,
			 struct module_syms *out)
{
	static const char *const labels[3] = { "", "init", "data" };

	for (size_t i = 0; i < 3; i++) {
		struct module_region *r = &out->regions[out->nregions];

		if (!l->layout_base[i].present || !l->layout_size[i].present)
			continue;
		r->base = idd_member_uval(&l->layout_base[i], mod);
		r->size = idd_member_uval(&l->layout_size[i], mod);
		r->text_size = l->layout_text[i].present
				       ? idd_member_uval(&l->layout_text[i], mod)
				       : 0;
		snprintf(r->label, sizeof(r->label), "%s", labels[i]);
		if (r->base && r->size && r->base + r->size > r->base)
			out->nregions++;
	}
	for (uint64_t i = 0; l->mem_elem && l->mem_base.present &&
			     l->mem_size.present && i < l->mem.size / l->mem_elem &&
			     out->nregions < MAX_REGIONS;
	     i++) {
		const uint8_t *e = mod + l->mem.offset + i * l->mem_elem;
		struct module_region *r = &out->regions[out->nregions];

		r->base = idd_member_uval(&l->mem_base, e);
		r->size = idd_member_uval(&l->mem_size, e);
		r->text_size = 0;
		if (!i) /* the first, as core_layout: "ext4+0x..." */
			r->label[0] = '\0';
		else if (i < MAX_REGIONS && l->mem_label[i][0])
			snprintf(r->label, sizeof(r->label), "%s",
				 l->mem_label[i]);
		else
			snprintf(r->label, sizeof(r->label), "mem%u",
				 (unsigned)i);
		if (r->base && r->size && r->base + r->size > r->base)
			out->nregions++;
	}
}

static struct inodedump_error *load_module_layout(struct idd_types *t,
						  struct idd_symbols *syms,
						  struct module_layout *l)
{
	struct inodedump_error *err;

	idd_anchor(t, syms, "kernel/module/main.c",
		   (const char *const[]){ "module_put", "__module_get", NULL });
	err = idd_types_struct_in(t, "module", "kernel/module/main.c", &l->module);
	if (err)
		return err;
	idd_types_member(t, &l->module, "list", &l->list);
	idd_types_member(t, &l->module, "list.next", &l->list_next);
	idd_types_member(t, &l->module, "name", &l->name);
	idd_types_member(t, &l->module, "kallsyms", &l->kallsyms_ptr);
	if (!l->list.present || !l->name.present || !l->kallsyms_ptr.present)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "struct module has no list/name/kallsyms");
	err = idd_types_pointee_struct(t, &l->kallsyms_ptr, &l->kallsyms);
	if (err)
		return err;
	idd_types_member(t, &l->kallsyms, "symtab", &l->symtab);
	idd_types_member(t, &l->kallsyms, "num_symtab", &l->num_symtab);
	idd_types_member(t, &l->kallsyms, "strtab", &l->strtab);
	if (!l->symtab.present || !l->num_symtab.present || !l->strtab.present)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "struct mod_kallsyms has no symtab/strtab");
	err = idd_types_pointee_struct(t, &l->symtab, &l->sym);
	if (err)
		return err;
	idd_types_member(t, &l->sym, "st_name", &l->st_name);
	idd_types_member(t, &l->sym, "st_value", &l->st_value);
	idd_types_member(t, &l->sym, "st_size", &l->st_size);
	if (!l->st_name.present || !l->st_value.present || !l->st_size.present)
		return idd_error(INODEDUMP_ERR_TYPE, "ELF symbol type incomplete");
	idd_types_member(t, &l->kallsyms, "typetab", &l->typetab);
	load_region_layout(t, l);
	idd_types_member(t, &l->module, "mkobj.mod", &l->mkobj_mod);
	idd_types_member(t, &l->module, "sect_attrs", &l->sect_attrs);
	idd_types_member(t, &l->module, "notes_attrs", &l->notes_attrs);
	return NULL;
}

/* out->syms is malloc'd, also on error: idd_modules_free() frees it. */
static struct inodedump_error *read_module(struct idd_target *t,
					   const struct module_layout *l,
					   uint64_t mod_addr,
					   struct module_syms *out)
{
	_cleanup_free_ uint8_t *mod = malloc(l->module.size);
	_cleanup_free_ uint8_t *ks = malloc(l->kallsyms.size);
	_cleanup_free_ uint8_t *tab = NULL;
	struct inodedump_error *err;
	uint64_t ks_addr, count, strtab;

	if (!mod || !ks)
		return idd_nomem();
	err = idd_target_read(t, mod_addr, mod, l->module.size);
	if (err)
		return err;
	memcpy(out->name, mod + l->name.offset,
	       l->name.size < MODULE_NAME_MAX ? l->name.size : MODULE_NAME_MAX);
	out->name[MODULE_NAME_MAX - 1] = '\0';
	ks_addr = idd_member_uval(&l->kallsyms_ptr, mod);
	err = idd_target_read(t, ks_addr, ks, l->kallsyms.size);
	if (err)
		return err;
	count = idd_member_uval(&l->num_symtab, ks);
	strtab = idd_member_uval(&l->strtab, ks);
	read_regions(l, mod, out);
	out->sect_attrs = l->sect_attrs.present
				  ? idd_member_uval(&l->sect_attrs, mod) : 0;
	out->notes_attrs = l->notes_attrs.present
				   ? idd_member_uval(&l->notes_attrs, mod) : 0;
	out->typetab = l->typetab.present ? idd_member_uval(&l->typetab, ks)
					  : 0;
	out->count = count;
	if (count > MAX_MODULE_SYMS)
		return idd_error_at(INODEDUMP_ERR_DUMP, ks_addr,
				    "module %s claims %" PRIu64 " symbols",
				    out->name, count);
	tab = malloc(count * l->sym.size + 1);
	out->syms = calloc(count + 1, sizeof(*out->syms));
	if (!tab || !out->syms)
		return idd_nomem();
	err = idd_target_read(t, idd_member_uval(&l->symtab, ks), tab,
			      count * l->sym.size);
	if (err)
		return err;
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *s = tab + i * l->sym.size;
		struct module_sym *m = &out->syms[out->n];

		m->value = idd_member_uval(&l->st_value, s);
		m->size = idd_member_uval(&l->st_size, s);
		m->name_addr = strtab + idd_member_uval(&l->st_name, s);
		if (m->value && idd_member_uval(&l->st_name, s))
			out->n++;
	}
	return NULL;
}

/*
 * Walk the kernel's "modules" list into mods. A module whose symbols
 * cannot be read is passed over while the list itself can be followed;
 * the first such error is kept in mods->list_error (every address no
 * module read names is then unknown, not nameless) and the modules read
 * stay usable. Only running out of memory is returned.
 */
/*
 * Where the list has no known head (no symbol "modules": a kallsyms of
 * text only), it is walked from a module's own node (seed): a node whose
 * would-be struct module does not point to itself (mkobj.mod) is the
 * head, and there must be exactly one.
 */
static bool is_module_node(struct idd_target *t, const struct module_layout *l,
			   uint64_t node)
{
	uint64_t self = 0, mod = node - l->list.offset;
	struct inodedump_error *err =
		idd_target_read_u64(t, mod + l->mkobj_mod.offset, &self);

	inodedump_error_free(err);
	return !err && self == mod;
}

static struct inodedump_error *read_modules(struct idd_target *t,
					    struct idd_types *types,
					    struct idd_symbols *syms,
					    uint64_t seed,
					    struct idd_modules *mods)
{
	struct module_layout *l = &mods->l;
	struct inodedump_error *err, *first = NULL;
	uint64_t head = 0, next = 0;
	bool headless = !idd_symbols_address(syms, "modules", &head);
	size_t heads = 0;

	if (headless && !seed)
		return NULL; /* a kernel without modules, or none known */
	err = load_module_layout(types, syms, l);
	if (!err && headless && !l->mkobj_mod.present)
		err = idd_error(INODEDUMP_ERR_TYPE, "struct module has no "
				"mkobj.mod: its list cannot be told from its "
				"head");
	if (!err && headless)
		head = seed + l->list.offset;
	if (!err)
		err = headless ? NULL : idd_target_read_u64(t, head, &next);
	if (headless)
		next = head;
	do {
		struct module_syms *grown;
		struct inodedump_error *e;

		if (err)
			break;
		if (headless && !is_module_node(t, l, next)) {
			if (++heads > 1) {
				err = idd_error_at(INODEDUMP_ERR_DUMP, next,
						   "module list walked from "
						   "0x%" PRIx64 ": a second "
						   "node that is no module",
						   seed);
				break;
			}
			err = idd_target_read_u64(t, next, &next);
			continue;
		}
		if (mods->n == MAX_MODULES) {
			err = idd_error(INODEDUMP_ERR_DUMP,
					"module list longer than %d entries: "
					"corrupt or cyclic", MAX_MODULES);
			break;
		}
		grown = realloc(mods->mods, (mods->n + 1) * sizeof(*grown));
		if (!grown) {
			inodedump_error_free(first);
			return idd_nomem();
		}
		mods->mods = grown;
		memset(&mods->mods[mods->n], 0, sizeof(*grown));
		e = read_module(t, l, next - l->list.offset,
				&mods->mods[mods->n]);
		mods->mods[mods->n].unread = e != NULL;
		mods->n++;
		if (idd_error_is_nomem(e)) {
			inodedump_error_free(first);
			return e;
		}
		if (e && !first)
			first = e;
		else
			inodedump_error_free(e);
		err = idd_target_read_u64(t, next, &next);
	} while (!err && next != head);
	if (idd_error_is_nomem(err)) {
		inodedump_error_free(first);
		return err;
	}
	if (first) {
		inodedump_error_free(err);
		err = first;
	}
	mods->list_error = err;
	return NULL;
}

/* The module symbol covering addr, and its module; NULL when none. */
static const struct module_sym *covering(const struct idd_modules *mods,
					 uint64_t addr,
					 const struct module_syms **owner)
{
	const struct module_sym *best = NULL;

	for (size_t m = 0; m < mods->n; m++) {
		const struct module_syms *ms = &mods->mods[m];

		for (size_t i = 0; i < ms->n; i++) {
			const struct module_sym *s = &ms->syms[i];

			if (s->value > addr || addr - s->value >= (s->size ? s->size : 1))
				continue;
			if (!best || s->value > best->value ||
			    (s->value == best->value && s->size > best->size)) {
				best = s;
				*owner = ms;
			}
		}
	}
	return best;
}

/* sect_attrs and notes_attrs as this kernel lays them out, once. */
static struct inodedump_error *load_sysfs_layout(struct idd_types *t,
						 struct idd_symbols *syms,
						 const struct module_layout *l,
						 struct sysfs_layout *sl)
{
	struct inodedump_error *err;
	static const char *const sysfs_cu = "kernel/module/sysfs.c";

	if (!l->sect_attrs.present || !l->notes_attrs.present)
		return idd_error(INODEDUMP_ERR_TYPE, "struct module has no "
				 "sect_attrs/notes_attrs (CONFIG_SYSFS off?)");
	idd_anchor(t, syms, sysfs_cu,
		   (const char *const[]){ "mod_sysfs_setup",
					  "mod_sysfs_teardown", NULL });
	if ((err = idd_types_pointee_struct(t, &l->sect_attrs, &sl->sects)) ||
	    (err = idd_types_pointee_struct(t, &l->notes_attrs, &sl->notes)) ||
	    (err = idd_types_struct_in(t, "bin_attribute", sysfs_cu,
				       &sl->battr)))
		return err;
	idd_types_member(t, &sl->battr, "private", &sl->battr_private);
	idd_types_member(t, &sl->battr, "size", &sl->battr_size);
	idd_types_member(t, &sl->battr, "attr.name", &sl->battr_name);
	if (!sl->battr_private.present || !sl->battr_size.present ||
	    !sl->battr_name.present)
		return idd_error(INODEDUMP_ERR_TYPE, "struct bin_attribute "
				 "has no private/size/attr.name");
	idd_types_member(t, &sl->sects, "nsections", &sl->nsections);
	idd_types_member(t, &sl->sects, "attrs", &sl->sect_array);
	idd_types_member(t, &sl->sects, "grp.bin_attrs", &sl->sect_group);
	if (sl->nsections.present) { /* ...6.13 */
		if ((err = idd_types_struct_in(t, "module_sect_attr", sysfs_cu,
					       &sl->sect)))
			return err;
		idd_types_member(t, &sl->sect, "address", &sl->sect_address);
		idd_types_member(t, &sl->sect, "battr.attr.name",
				 &sl->sect_name);
		if (!sl->sect_name.present) /* ...5.7 */
			idd_types_member(t, &sl->sect, "name", &sl->sect_name);
		if (!sl->sect_array.present || !sl->sect_address.present ||
		    !sl->sect_name.present || !sl->sect.size)
			return idd_error(INODEDUMP_ERR_TYPE,
					 "struct module_sect_attr has no "
					 "address/name");
	} else if (!sl->sect_group.present) {
		return idd_error(INODEDUMP_ERR_TYPE, "struct module_sect_attrs "
				 "has neither nsections nor grp.bin_attrs");
	}
	idd_types_member(t, &sl->notes, "notes", &sl->nnotes);
	idd_types_member(t, &sl->notes, "attrs", &sl->notes_array);
	idd_types_member(t, &sl->notes, "grp.bin_attrs", &sl->notes_group);
	if (!(sl->nnotes.present && sl->notes_array.present) &&
	    !sl->notes_group.present)
		return idd_error(INODEDUMP_ERR_TYPE, "struct module_notes_attrs "
				 "has neither notes nor grp.bin_attrs");
	return NULL;
}

/*
 * The address of attribute i: &attrs[i] (count known), or the i-th
 * pointer of a NULL-terminated grp.bin_attrs (*end at its NULL).
 */
static struct inodedump_error *attr_at(struct idd_target *t, uint64_t obj,
				       const uint8_t *bytes,
				       const struct idd_member *group,
				       const struct idd_member *array,
				       uint64_t elem, uint64_t i,
				       uint64_t *addr, bool *end)
{
	*end = false;
	if (!group) {
		*addr = obj + array->offset + i * elem;
		return NULL;
	}
	struct inodedump_error *err = idd_target_read_u64(
		t, idd_member_uval(group, bytes) + 8 * i, addr);

	*end = !err && !*addr;
	return err;
}

/* The sections the module loaded, by name, at their addresses. */
static struct inodedump_error *read_sections(struct idd_target *t,
					     const struct sysfs_layout *sl,
					     const struct module_syms *ms,
					     struct idd_module_section **out,
					     size_t *n)
{
	_cleanup_free_ uint8_t *obj = malloc(sl->sects.size);
	_cleanup_free_ uint8_t *one = NULL;
	struct idd_module_section *secs;
	bool by_count = sl->nsections.present;
	uint64_t count = MAX_SECTIONS, elem = by_count ? sl->sect.size
							: sl->battr.size;
	struct inodedump_error *err;

	*out = NULL;
	*n = 0;
	if (!obj || !(one = malloc(elem)))
		return idd_nomem();
	if ((err = idd_target_read(t, ms->sect_attrs, obj, sl->sects.size)))
		return idd_error_wrap(err, "module %s's sect_attrs", ms->name);
	if (by_count && (count = idd_member_uval(&sl->nsections, obj)) >
				MAX_SECTIONS)
		return idd_error_at(INODEDUMP_ERR_DUMP, ms->sect_attrs,
				    "module %s's sect_attrs claims %" PRIu64
				    " sections", ms->name, count);
	if (!(secs = calloc(count + 1, sizeof(*secs))))
		return idd_nomem();
	for (uint64_t i = 0; i < count; i++) {
		const struct idd_member *name_m = by_count ? &sl->sect_name
							   : &sl->battr_name;
		const struct idd_member *addr_m = by_count ? &sl->sect_address
							   : &sl->battr_private;
		_cleanup_free_ char *name = NULL;
		uint64_t at;
		bool end, trunc;

		err = attr_at(t, ms->sect_attrs, obj,
			      by_count ? NULL : &sl->sect_group,
			      &sl->sect_array, elem, i, &at, &end);
		if (!err && end)
			break;
		if (!err && !by_count && i == MAX_SECTIONS - 1)
			err = idd_error_at(INODEDUMP_ERR_DUMP, ms->sect_attrs,
					   "module %s's sect_attrs: no end in "
					   "%d sections", ms->name, MAX_SECTIONS);
		if (!err)
			err = idd_target_read(t, at, one, elem);
		if (!err)
			err = idd_target_read_string(
				t, idd_member_uval(name_m, one),
				sizeof(secs->name), &name, &trunc);
		if (err) {
			free(secs);
			return idd_error_wrap(err, "module %s's section %" PRIu64,
					      ms->name, i);
		}
		snprintf(secs[*n].name, sizeof(secs->name), "%s", name);
		secs[(*n)++].addr = idd_member_uval(addr_m, one);
	}
	*out = secs;
	return NULL;
}

/* The GNU build-id in an ELF note buffer (the kernel's byte order) as
 * hex, or NULL. */
static char *build_id_of_notes(const uint8_t *p, uint64_t size, bool big)
{
	uint64_t off = 0;

	while (off + 12 <= size) {
		uint64_t namesz = idd_load(p + off, 4, big),
			 descsz = idd_load(p + off + 4, 4, big),
			 type = idd_load(p + off + 8, 4, big);
		uint64_t name = off + 12, desc = name + ((namesz + 3) & ~3ull);
		char *hex;

		if (namesz > size || descsz > size || desc + descsz > size)
			return NULL;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 &&
		    !memcmp(p + name, "GNU", 4) && descsz && descsz <= 64 &&
		    (hex = malloc(2 * descsz + 1))) {
			for (uint64_t i = 0; i < descsz; i++)
				sprintf(hex + 2 * i, "%02x", p[desc + i]);
			return hex;
		}
		off = desc + ((descsz + 3) & ~3ull);
	}
	return NULL;
}

/* The module's build-id from its notes_attrs (drgn's way), or NULL. */
static struct inodedump_error *read_build_id(struct idd_target *t,
					     const struct sysfs_layout *sl,
					     const struct module_syms *ms,
					     char **hex)
{
	_cleanup_free_ uint8_t *obj = malloc(sl->notes.size);
	_cleanup_free_ uint8_t *one = malloc(sl->battr.size);
	bool by_count = !sl->notes_group.present;
	uint64_t count = by_count ? 0 : MAX_NOTES;
	struct inodedump_error *err;

	*hex = NULL;
	if (!obj || !one)
		return idd_nomem();
	if (!ms->notes_attrs)
		return NULL; /* a module without notes */
	if ((err = idd_target_read(t, ms->notes_attrs, obj, sl->notes.size)))
		return idd_error_wrap(err, "module %s's notes_attrs", ms->name);
	if (by_count)
		count = idd_member_uval(&sl->nnotes, obj);
	for (uint64_t i = 0; i < count && i < MAX_NOTES && !*hex; i++) {
		_cleanup_free_ uint8_t *note = NULL;
		uint64_t at, size;
		bool end;

		err = attr_at(t, ms->notes_attrs, obj,
			      by_count ? NULL : &sl->notes_group,
			      &sl->notes_array, sl->battr.size, i, &at, &end);
		if (!err && end)
			break;
		if (!err)
			err = idd_target_read(t, at, one, sl->battr.size);
		size = err ? 0 : idd_member_uval(&sl->battr_size, one);
		if (!err && (size > MAX_NOTE_SIZE || !(note = malloc(size + 1))))
			continue;
		if (!err)
			err = idd_target_read(t, idd_member_uval(&sl->battr_private,
								 one),
					      note, size);
		if (err)
			return idd_error_wrap(err, "module %s's note %" PRIu64,
					      ms->name, i);
		*hex = build_id_of_notes(note, size, idd_target_big_endian(t));
	}
	return NULL;
}

/* The region of a module holding addr, or NULL. */
static const struct module_region *region_of(const struct idd_modules *mods,
					     uint64_t addr,
					     struct module_syms **owner)
{
	for (size_t m = 0; m < mods->n; m++)
		for (size_t i = 0; i < mods->mods[m].nregions; i++) {
			const struct module_region *r = &mods->mods[m].regions[i];

			if (addr >= r->base && addr - r->base < r->size) {
				*owner = &mods->mods[m];
				return r;
			}
		}
	return NULL;
}

/* Whether the module's kallsyms keep functions only (typetab t/T/w/W). */
static bool functions_only(struct idd_target *t, const struct module_syms *ms)
{
	_cleanup_free_ char *types = NULL;

	struct inodedump_error *err;

	if (!ms->typetab || !ms->count || ms->count > MAX_MODULE_SYMS ||
	    !(types = malloc(ms->count)))
		return false;
	if ((err = idd_target_read(t, ms->typetab, types, ms->count))) {
		inodedump_error_free(err);
		return false;
	}
	for (uint64_t i = 1; i < ms->count; i++) /* 0: the null symbol */
		if (!strchr("tTwW", types[i]) || !types[i])
			return false;
	return true;
}

/*
 * Only sections inside the module's memory place its symbols (an init
 * section freed after loading, or garbage, does not); false: none is.
 */
static bool keep_own_sections(const struct module_syms *ms,
			      struct idd_module_section *secs, size_t *n)
{
	size_t kept = 0, all = *n;

	for (size_t i = 0; i < all; i++)
		for (size_t r = 0; r < ms->nregions; r++)
			if (secs[i].addr >= ms->regions[r].base &&
			    secs[i].addr - ms->regions[r].base <
				    ms->regions[r].size) {
				secs[kept++] = secs[i];
				break;
			}
	*n = kept ? kept : all;
	return kept > 0;
}

/*
 * The module's debug file, looked for once: its sections and build-id
 * read from the dump, then the file found and checked (module_debug.c).
 * Said once through where->note either way.
 */
static struct inodedump_error *load_debug(struct idd_modules *mods,
					  struct idd_target *t,
					  struct idd_types *types,
					  struct idd_symbols *syms,
					  const struct idd_module_where *where,
					  struct module_syms *ms)
{
	_cleanup_free_ struct idd_module_section *secs = NULL;
	_cleanup_free_ char *build_id = NULL;
	struct inodedump_error *err = NULL;
	char *why = NULL, *said;
	size_t nsecs = 0;

	ms->debug = DEBUG_NONE;
	if (!mods->sl.tried) {
		mods->sl.tried = true;
		mods->sl.error = load_sysfs_layout(types, syms, &mods->l,
						   &mods->sl);
	}
	if (mods->sl.error)
		err = idd_error(mods->sl.error->code, "%s",
				mods->sl.error->message);
	if (!err)
		err = read_build_id(t, &mods->sl, ms, &build_id);
	if (!err)
		err = read_sections(t, &mods->sl, ms, &secs, &nsecs);
	if (!err && !keep_own_sections(ms, secs, &nsecs))
		err = idd_error_at(INODEDUMP_ERR_DUMP, ms->sect_attrs,
				   "its sect_attrs place none of its %zu "
				   "sections in its memory", nsecs);
	if (idd_error_is_nomem(err))
		return err;
	if (err) {
		why = idd_strdup_printf("its sections or build-id cannot be "
					"read from the dump: %s",
					inodedump_error_message(err));
		inodedump_error_free(err);
	} else {
		struct idd_module_debug_query q = {
			.debug_root = where ? where->debug_root : NULL,
			.release = where ? where->release : NULL,
			.module = ms->name,
			.build_id = build_id,
			.secs = secs,
			.nsecs = nsecs,
			.fetch = where ? where->fetch : NULL,
			.fetch_arg = where ? where->fetch_arg : NULL,
		};

		ms->dbg = idd_module_debug_open(&q, &why);
		if (ms->dbg) {
			ms->debug = DEBUG_LOADED;
			said = idd_strdup_printf(
				"module %s: names from its debug file %s "
				"(build-id %s%s)", ms->name,
				idd_module_debug_path(ms->dbg),
				build_id ? build_id
					 : "not known: its notes hold none",
				idd_module_debug_cached(ms->dbg)
					? "; its symbols as the cache kept them"
					: "");
			goto say;
		}
	}
	ms->debug_why = why ? why : strdup("no debug file found");
	said = idd_strdup_printf("module %s: no debug file names its data: %s",
				 ms->name, ms->debug_why ? ms->debug_why : "");
say:
	if (said && where && where->note)
		where->note(where->note_arg, said);
	free(said);
	return NULL;
}

/* addr named by module ms's debug file (looked for once), or *name NULL. */
static struct inodedump_error *from_debug(struct idd_modules *mods,
					  struct idd_target *t,
					  struct idd_types *types,
					  struct idd_symbols *syms,
					  const struct idd_module_where *where,
					  struct module_syms *ms, uint64_t addr,
					  char **name)
{
	struct inodedump_error *err;
	const char *sym;
	uint64_t off;

	*name = NULL;
	if (ms->debug == DEBUG_NOT_TRIED &&
	    (err = load_debug(mods, t, types, syms, where, ms)))
		return err;
	if (!ms->dbg || !idd_module_debug_name(ms->dbg, addr, &sym, &off))
		return NULL;
	*name = off ? idd_strdup_printf("%s+0x%" PRIx64, sym, off)
		    : strdup(sym);
	return *name ? NULL : idd_nomem();
}

/*
 * An address in module ms's memory r that its kallsyms do not name: from
 * its debug file, else "ext4+0x1c2a0" with why in *note.
 */
static struct inodedump_error *name_unnamed(struct idd_modules *mods,
					    struct idd_target *t,
					    struct idd_types *types,
					    struct idd_symbols *syms,
					    const struct idd_module_where *where,
					    struct module_syms *ms,
					    const struct module_region *r,
					    uint64_t addr, char **name,
					    char **note)
{
	struct inodedump_error *err;
	const char *kind;
	bool fonly;

	if ((err = from_debug(mods, t, types, syms, where, ms, addr, name)) ||
	    *name)
		return err;
	kind = !r->text_size ? "module memory"
	       : addr - r->base < r->text_size ? "module text" : "module data";
	if (!ms->functions_only) /* read once a module */
		ms->functions_only = functions_only(t, ms) ? 2 : 1;
	fonly = ms->functions_only == 2;
	*name = idd_strdup_printf("%s%s%s+0x%" PRIx64, ms->name,
				  r->label[0] ? "." : "", r->label,
				  addr - r->base);
	if (ms->dbg)
		*note = idd_strdup_printf("%s; no name: %s, nor does its debug "
					  "file %s", kind,
					  fonly ? "its kallsyms keep functions "
						  "only"
						: "no symbol of its kallsyms "
						  "covers it",
					  idd_module_debug_path(ms->dbg));
	else if (ms->debug_why && !strncmp(ms->debug_why, "no debug file", 13))
		*note = idd_strdup_printf(
			"%s; no name: %s, and no debug file of %s was found: "
			"install linux-image-%s-dbg (or give its root with "
			"--debug-root)", kind,
			fonly ? "its kallsyms keep functions only"
			      : "no symbol of its kallsyms covers it",
			ms->name,
			where && where->release ? where->release : "RELEASE");
	else
		*note = idd_strdup_printf("%s; no name: %s, and %s", kind,
					  fonly ? "its kallsyms keep functions "
						  "only"
						: "no symbol of its kallsyms "
						  "covers it",
					  ms->debug_why ? ms->debug_why
							: "no debug file");
	if (!*name || !*note) {
		free(*name);
		free(*note);
		*name = *note = NULL;
		return idd_nomem();
	}
	return NULL;
}

struct inodedump_error *idd_module_symbol(struct idd_modules **cache,
					  struct idd_target *t,
					  struct idd_types *types,
					  struct idd_symbols *syms,
					  const struct idd_module_where *where,
					  uint64_t addr, char **name,
					  char **module, char **note)
{
	const struct module_sym *best;
	const struct module_syms *owner = NULL;
	const struct module_region *region;
	struct module_syms *holder = NULL;
	_cleanup_free_ char *sym = NULL;
	_cleanup_free_ char *mod = NULL;
	struct inodedump_error *err;
	bool truncated;

	*name = *module = *note = NULL;
	if (!*cache) {
		struct idd_modules *mods = calloc(1, sizeof(*mods));
		uint64_t seed = where && where->seed
					? where->seed(where->note_arg) : 0;

		if (!mods)
			return idd_nomem();
		err = read_modules(t, types, syms, seed, mods);
		if (err) {
			idd_modules_free(mods);
			return err;
		}
		if (!mods->n && !mods->list_error &&
		    !idd_symbols_address(syms, "modules", &(uint64_t){ 0 })) {
			idd_modules_free(mods); /* no list yet: a later seed */
			return NULL;
		}
		*cache = mods;
	}
	region = region_of(*cache, addr, &holder);
	best = covering(*cache, addr, &owner);
	/* A diagnostic: names from the debug file before kallsyms' own. */
	if (best && region && getenv("INODEDUMP_MODULE_DEBUG_FIRST")) {
		err = from_debug(*cache, t, types, syms, where, holder, addr,
				 &sym);
		if (err || (sym && !(mod = strdup(holder->name))))
			return err ? err : idd_nomem();
		if (sym) {
			*name = TAKE_PTR(sym);
			*module = TAKE_PTR(mod);
			return NULL;
		}
	}
	/* a module whose own symbols could not be read: unknown, below */
	if (!best && region && !holder->unread) {
		err = name_unnamed(*cache, t, types, syms, where, holder,
				   region, addr, &sym, note);
		if (err)
			return err;
		if (!(mod = strdup(holder->name))) {
			free(*note);
			*note = NULL;
			return idd_nomem();
		}
		*name = TAKE_PTR(sym);
		*module = TAKE_PTR(mod);
		return NULL;
	}
	if (!best && (*cache)->list_error) { /* unknown, not nameless */
		const struct inodedump_error *why = (*cache)->list_error;

		return why->has_address
			       ? idd_error_at(why->code, why->address, "%s",
					      why->message)
			       : idd_error(why->code, "%s", why->message);
	}
	if (!best)
		return NULL;
	err = idd_target_read_string(t, best->name_addr, 128, &sym, &truncated);
	if (err)
		return idd_error_wrap(err, "name of module %s's symbol at 0x%"
				      PRIx64, owner->name, best->value);
	mod = strdup(owner->name);
	if (!mod)
		return idd_nomem();
	if (addr != best->value) {
		char *full = idd_strdup_printf("%s+0x%" PRIx64, sym,
					       addr - best->value);

		if (!full)
			return idd_nomem();
		free(sym);
		sym = full;
	}
	*name = TAKE_PTR(sym);
	*module = TAKE_PTR(mod);
	return NULL;
}

void idd_modules_free(struct idd_modules *mods)
{
	if (!mods)
		return;
	for (size_t i = 0; i < mods->n; i++) {
		free(mods->mods[i].syms);
		idd_module_debug_free(mods->mods[i].dbg);
		free(mods->mods[i].debug_why);
	}
	free(mods->mods);
	inodedump_error_free(mods->list_error);
	inodedump_error_free(mods->sl.error);
	free(mods);
}
