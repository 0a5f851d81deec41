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
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "target/target.h"
#include "types/types.h"

#define MAX_MODULES 4096
#define MAX_MODULE_SYMS (1u << 20)
#define MODULE_NAME_MAX 64

struct module_sym {
	uint64_t value, size, name_addr;
};

struct module_syms {
	char name[MODULE_NAME_MAX];
	struct module_sym *syms;
	size_t n;
};

struct idd_modules {
	struct module_syms *mods;
	size_t n;
	/* Why the list could not be read whole: the modules before it stay. */
	struct inodedump_error *list_error;
};

struct module_layout {
	struct idd_struct module, kallsyms, sym;
	struct idd_member list_next, list, name, kallsyms_ptr, symtab,
		num_symtab, strtab, st_name, st_value, st_size;
};

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
static struct inodedump_error *read_modules(struct idd_target *t,
					    struct idd_types *types,
					    struct idd_symbols *syms,
					    struct idd_modules *mods)
{
	struct module_layout l;
	struct inodedump_error *err, *first = NULL;
	uint64_t head, next = 0;

	if (!idd_symbols_address(syms, "modules", &head))
		return NULL; /* a kernel without modules */
	err = load_module_layout(types, syms, &l);
	if (!err)
		err = idd_target_read_u64(t, head, &next);
	while (!err && next != head) {
		struct module_syms *grown;
		struct inodedump_error *e;

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
		e = read_module(t, &l, next - l.list.offset,
				&mods->mods[mods->n]);
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
	}
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

struct inodedump_error *idd_module_symbol(struct idd_modules **cache,
					  struct idd_target *t,
					  struct idd_types *types,
					  struct idd_symbols *syms,
					  uint64_t addr, char **name,
					  char **module)
{
	const struct module_sym *best;
	const struct module_syms *owner = NULL;
	_cleanup_free_ char *sym = NULL;
	_cleanup_free_ char *mod = NULL;
	struct inodedump_error *err;
	bool truncated;

	*name = *module = NULL;
	if (!*cache) {
		struct idd_modules *mods = calloc(1, sizeof(*mods));

		if (!mods)
			return idd_nomem();
		err = read_modules(t, types, syms, mods);
		if (err) {
			idd_modules_free(mods);
			return err;
		}
		*cache = mods;
	}
	best = covering(*cache, addr, &owner);
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
	for (size_t i = 0; i < mods->n; i++)
		free(mods->mods[i].syms);
	free(mods->mods);
	inodedump_error_free(mods->list_error);
	free(mods);
}
