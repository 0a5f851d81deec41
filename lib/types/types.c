// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Types' front door: a session's type source (DWARF or BTF, source.h),
 * chosen when it is opened, and every idd_types_* lookup handed to it.
 */
#include <stdlib.h>

#include "types/source.h"
#include "types/types.h"

struct idd_types {
	const struct idd_type_ops *ops;
	void *src;
	struct idd_dwarf *dwarf; /* the source, when DWARF */
	struct idd_btf *btf;	 /* the source, when BTF */
	bool big_endian;	 /* the dump's byte order */
};

void idd_types_set_big_endian(struct idd_types *types, bool big)
{
	if (types)
		types->big_endian = big;
}

struct inodedump_error *idd_types_open(const char *vmlinux,
				       const char *debug_root,
				       struct idd_types **out)
{
	struct idd_types *types = calloc(1, sizeof(*types));
	struct inodedump_error *err;

	if (!types)
		return idd_nomem();
	err = idd_dwarf_open(vmlinux, debug_root, &types->dwarf);
	if (err) {
		free(types);
		return err;
	}
	types->ops = &idd_dwarf_ops;
	types->src = types->dwarf;
	*out = types;
	return NULL;
}

struct inodedump_error *idd_types_open_btf(struct idd_btf *btf,
					   struct idd_types **out)
{
	struct idd_types *types = calloc(1, sizeof(*types));

	if (!types) {
		idd_btf_ops.close(btf);
		return idd_nomem();
	}
	types->ops = &idd_btf_ops;
	types->src = types->btf = btf;
	*out = types;
	return NULL;
}

/*
 * A session may have no types (opened without vmlinux or BTF for its log
 * and facts): every lookup then finds nothing, and the session's entry
 * points say why before any is made (idd_session_need_types()).
 */
static struct inodedump_error *no_types(void)
{
	return idd_error(INODEDUMP_ERR_TYPE, "no kernel types in this session");
}

void idd_types_close(struct idd_types *types)
{
	if (!types)
		return;
	types->ops->close(types->src);
	free(types);
}

struct idd_btf *idd_types_btf(struct idd_types *types)
{
	return types ? types->btf : NULL;
}

struct Elf *idd_types_elf(struct idd_types *types)
{
	return types && types->dwarf ? idd_dwarf_elf(types->dwarf) : NULL;
}

const char *idd_types_dwz(struct idd_types *types)
{
	return types && types->dwarf ? idd_dwarf_alt_path(types->dwarf) : NULL;
}

int idd_types_fd(struct idd_types *types)
{
	return types && types->dwarf ? idd_dwarf_fd(types->dwarf) : -1;
}

struct idd_dwx *idd_types_answers(struct idd_types *types)
{
	return types && types->dwarf ? idd_dwarf_answers(types->dwarf) : NULL;
}

bool idd_types_answers_kept(struct idd_types *types)
{
	return types && types->dwarf && idd_dwarf_answers_kept(types->dwarf);
}

void idd_types_anchor(struct idd_types *types, const char *cu_hint,
		      uint64_t code_addr)
{
	if (types && types->ops->anchor)
		types->ops->anchor(types->src, cu_hint, code_addr);
}

bool idd_types_anchored(struct idd_types *types, const char *cu_hint)
{
	return types && types->ops->anchored &&
	       types->ops->anchored(types->src, cu_hint);
}

bool idd_types_function(struct idd_types *types, const char *cu_hint,
			const char *name)
{
	return types && types->ops->function &&
	       types->ops->function(types->src, cu_hint, name);
}

struct inodedump_error *idd_types_struct(struct idd_types *types,
					 const char *name,
					 struct idd_struct *out)
{
	if (!types)
		return no_types();
	return types->ops->find_struct(types->src, name, NULL, out);
}

struct inodedump_error *idd_types_struct_in(struct idd_types *types,
					    const char *name,
					    const char *cu_hint,
					    struct idd_struct *out)
{
	if (!types)
		return no_types();
	return types->ops->find_struct(types->src, name, cu_hint, out);
}

struct inodedump_error *idd_types_struct_only_in(struct idd_types *types,
						 const char *name,
						 const char *cu_hint,
						 struct idd_struct *out)
{
	if (!types)
		return no_types();
	if (!types->ops->find_struct_in_unit)
		return types->ops->find_struct(types->src, name, cu_hint, out);
	return types->ops->find_struct_in_unit(types->src, name, cu_hint, out);
}

bool idd_types_enumerator(struct idd_types *types, const char *cu_hint,
			  const char *enum_hint, const char *name,
			  int64_t *value)
{
	return types && types->ops->enumerator(types->src, cu_hint, enum_hint, name,
				      value);
}

bool idd_types_enum(struct idd_types *types, const char *cu_hint,
		    const char *enum_name, idd_enumerator_fn fn, void *arg)
{
	return types && types->ops->enum_values(types->src, cu_hint, enum_name, fn, arg);
}

void idd_types_member(struct idd_types *types, const struct idd_struct *s,
		      const char *path, struct idd_member *out)
{
	if (!types) {
		*out = (struct idd_member){ 0 };
		return;
	}
	types->ops->member(types->src, s, path, out);
	out->big_endian = types->big_endian;
}

struct inodedump_error *idd_types_pointee_struct(struct idd_types *types,
						 const struct idd_member *m,
						 struct idd_struct *out)
{
	if (!types)
		return no_types();
	return types->ops->pointee(types->src, m, out);
}

/* No session at hand: a member found in BTF says so (m->btf). */
bool idd_types_member_enum(const struct idd_member *m, idd_enumerator_fn fn,
			   void *arg)
{
	const struct idd_type_ops *ops = m->btf ? &idd_btf_ops : &idd_dwarf_ops;

	return ops->member_enum(m, fn, arg);
}
