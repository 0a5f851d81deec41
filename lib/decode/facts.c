// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The facts the checks need beyond the member rows: this kernel's flag
 * values and dentry types, found once per layout, and the type of the
 * dentry that names an inode first, read per inode.
 */
#include <string.h>

#include "core/bytes.h"
#include "decode/facts.h"
#include "decode/inode.h"
#include "decode/layout.h"

/*
 * Where the first alias's type lives: d_flags & DCACHE_ENTRY_TYPE of the
 * dentry whose d_alias is i_dentry.first. The type values are the
 * enumerators of enum dentry_flags (7.3 has it; 6.12 has #defines, which
 * leave alias_dtype_ok false and the lookup check skipped).
 */
void idd_layout_find_alias_dtype(struct inodedump *id, struct inode_layout *l)
{
	struct idd_types *t = id->types;
	struct idd_struct dentry;
	struct inodedump_error *err;
	int64_t mask, dir;

	err = idd_types_struct(t, "dentry", &dentry);
	if (err) {
		inodedump_error_free(err);
		return;
	}
	idd_types_member(t, &dentry, "d_flags", &l->d_flags);
	idd_types_member(t, &dentry, "d_u.d_alias", &l->d_alias);
	if (!l->d_alias.present) /* 7.1+: d_u is an anonymous union */
		idd_types_member(t, &dentry, "d_alias", &l->d_alias);
	if (!l->d_flags.present || !l->d_alias.present ||
	    l->d_flags.size > 8 || !l->i_dentry_first.present)
		return;
	/*
	 * The enum came with 6.15 (before, DCACHE_* are #defines). On an
	 * older kernel its lookup is a miss, and a miss reads all of a BTF
	 * in no order (6.12's): not looked for below 6.14, a release early
	 * to be safe.
	 */
	if (id->version && id->version < IDD_KVER(6, 14, 0))
		return;
	idd_anchor(t, id->syms, "fs/dcache.c",
		   (const char *const[]){ "dput", "d_alloc", NULL });
	if (!idd_types_enumerator(t, "fs/dcache.c", "dentry_flags",
				  "DCACHE_ENTRY_TYPE",
				  &mask) ||
	    !idd_types_enumerator(t, "fs/dcache.c", "dentry_flags",
				  "DCACHE_DIRECTORY_TYPE",
				  &dir) ||
	    mask <= 0 || dir <= 0 || (dir & ~mask))
		return;
	l->dcache_entry_type = (uint64_t)mask;
	l->dcache_directory_type = (uint64_t)dir;
	l->alias_dtype_ok = true;
}

struct inodedump_error *idd_decode_alias_dtype(struct inodedump *id,
					       struct inodedump_inode *ino)
{
	const struct inode_layout *l = id->layout;
	uint8_t bytes[8];
	uint64_t dentry;
	struct inodedump_error *err;

	ino->alias_dtype.state = IDD_ABSENT;
	if (!l->alias_dtype_ok || !idd_inode_has_alias(ino))
		return NULL;
	dentry = ino->dentry_first.addr - l->d_alias.offset;
	err = idd_target_read(id->target, dentry + l->d_flags.offset, bytes,
			      (size_t)l->d_flags.size);
	if (idd_error_is_nomem(err))
		return err;
	if (err) {
		ino->alias_dtype.state = IDD_UNREADABLE;
		return idd_notes_add_error_incomplete(
			&ino->arena, &ino->errors, &ino->incomplete,
			INODEDUMP_PART_FIELDS, "i_dentry.first's d_flags", err);
	}
	ino->alias_dtype = (struct idd_num){
		IDD_OK, (int64_t)(idd_target_uint(id->target, bytes,
						  (size_t)l->d_flags.size) &
				  l->dcache_entry_type)
	};
	return NULL;
}

/* A flag's value in one of the layout's tables, 0 when it has none. */
static uint64_t flag_value(const struct idd_flag *table, size_t n,
			   const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(table[i].name, name))
			return table[i].value;
	return 0;
}

/* Found once per layout (build_layout), not again per inode. */
void idd_layout_check_facts(const struct inode_layout *l,
			    struct idd_check_facts *facts)
{
	*facts = (struct idd_check_facts){
		.iop_cached_link = l->cached_link,
		.iop_flctx = flag_value(l->iop, l->niop, "IOP_FLCTX"),
		.i_freeing = flag_value(l->state, l->nstate, "I_FREEING"),
		.i_clear = flag_value(l->state, l->nstate, "I_CLEAR"),
		.i_will_free = flag_value(l->state, l->nstate, "I_WILL_FREE"),
		.s_private = flag_value(l->iflags, l->niflags, "S_PRIVATE"),
		.s_anon_inode = flag_value(l->iflags, l->niflags,
					   "S_ANON_INODE"),
		.dcache_directory_type = l->alias_dtype_ok
						 ? l->dcache_directory_type
						 : 0,
		.has_i_linklen = l->i_linklen.present,
		.has_i_dentry = l->i_dentry_first.present,
		.has_i_flctx = l->row[IDD_M_i_flctx].m.present,
	};
}

