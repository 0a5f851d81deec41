// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where this kernel keeps each member row (kernel/members.def), looked up
 * once per session in its type information, with the flag tables that
 * name the FLAGS rows' bits and the row lists a decode walks.
 */
#include <string.h>

#include "decode/facts.h"
#include "decode/inode.h"
#include "decode/layout.h"

/* A row read from memory, not computed from other rows or a view. */
static bool row_is_member(const struct idd_row *row)
{
	return row->kind != IDD_ROW_VIEW && row->kind != IDD_ROW_STRLEN;
}

struct enum_collect {
	struct inode_layout *l;
};

static void collect_state_enumerator(const char *name, int64_t value, void *arg)
{
	struct inode_layout *l = ((struct enum_collect *)arg)->l;

	/* Only the flag values; __I_NEW style bit numbers are not flags. */
	if (!name || strncmp(name, "I_", 2) != 0 || value <= 0 ||
	    l->nstate == MAX_FLAGS)
		return;
	/*
	 * A copy: a BTF read on demand may replace the buffer its strings
	 * are in when a later lookup reads more of it (idd_layout_free frees).
	 */
	l->state[l->nstate].name = strdup(name);
	if (!l->state[l->nstate].name)
		return;
	l->state[l->nstate].value = (uint64_t)value;
	l->nstate++;
}

/* One alternative path of a row ("i_state.__state", "s_type->name"). */
static bool find_alternative(struct idd_types *t, const struct idd_struct *base,
			     const struct idd_row *row, const char *alt,
			     struct row_layout *rl)
{
	const char *arrow = strstr(alt, "->");
	char path[128];

	memset(rl, 0, sizeof(*rl));
	if (row->kind == IDD_ROW_TIME) {
		/* a prefix: i_ctime_ + sec / nsec, __i_ctime.tv_ + sec / nsec */
		snprintf(path, sizeof(path), "%ssec", alt);
		idd_types_member(t, base, path, &rl->m);
		snprintf(path, sizeof(path), "%snsec", alt);
		idd_types_member(t, base, path, &rl->nsec);
		return rl->m.present;
	}
	if (arrow) {
		struct inodedump_error *err;

		snprintf(path, sizeof(path), "%.*s", (int)(arrow - alt), alt);
		idd_types_member(t, base, path, &rl->via);
		if (!rl->via.present)
			return false;
		err = idd_types_pointee_struct(t, &rl->via, &rl->pointee);
		if (err) {
			inodedump_error_free(err);
			return false;
		}
		rl->chained = true;
		idd_types_member(t, &rl->pointee, arrow + 2, &rl->m);
	} else {
		idd_types_member(t, base, alt, &rl->m);
	}
	/* A value, not the struct around it (i_state before 6.19's __state). */
	return rl->m.present && rl->m.kind != IDD_KIND_STRUCT;
}

static void find_row(struct idd_types *t, const struct idd_struct *base,
		     const struct idd_row *row, struct row_layout *rl)
{
	memset(rl, 0, sizeof(*rl));
	for (const char *p = row->paths; base && *p;) {
		size_t len = strcspn(p, "|");
		char alt[sizeof(rl->path)];

		snprintf(alt, sizeof(alt), "%.*s", (int)len, p);
		if (find_alternative(t, base, row, alt, rl)) {
			snprintf(rl->path, sizeof(rl->path), "%s", alt);
			return;
		}
		p += len + (p[len] == '|');
	}
	memset(rl, 0, sizeof(*rl));
}

static void find_rows(struct idd_types *t, struct inode_layout *l,
		      enum idd_row_where where, const struct idd_struct *base)
{
	for (size_t i = 0; i < IDD_NROWS; i++)
		if (row_is_member(&idd_rows[i]) && idd_rows[i].where == where)
			find_row(t, base, &idd_rows[i], &l->row[i]);
}

/* I_CTIME_QUERIED's value where this kernel keeps it, else 0. */
static uint64_t ctime_queried_flag(const struct idd_vfs_evidence *ev)
{
	struct idd_flag flags[4];
	size_t n = idd_vfs_ctime_nsec_flags(ev, flags, 4);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(flags[i].name, "I_CTIME_QUERIED"))
			return flags[i].value;
	return 0;
}

/*
 * I_LRU_ISOLATING before 6.11, where a stable backport brought it: the
 * functions that came with it in fs/inode.c, a symbol where the compiler
 * kept one, else a subprogram of that unit's DWARF (inlined: no symbol).
 * Only asked below 6.11, where the version does not say.
 */
static bool has_lru_isolating(struct inodedump *id)
{
	static const char *const fns[] = { "inode_wait_for_lru_isolating",
					   "inode_pin_lru_isolating" };
	uint64_t addr;

	if (!id->version || id->version >= IDD_KVER(6, 11, 0))
		return false;
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (idd_symbols_address(id->syms, fns[i], &addr))
			return true;
	idd_anchor(id->types, id->syms, "fs/inode.c",
		   (const char *const[]){ "iput", "evict_inodes", NULL });
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (idd_types_function(id->types, "fs/inode.c", fns[i]))
			return true;
	return false;
}

static void find_flag_tables(struct inodedump *id, struct inode_layout *l)
{
	struct idd_vfs_evidence ev = { .version = id->version };
	const struct idd_member *state = &l->row[IDD_M_state].m;

	ev.has_linklen = l->i_linklen.present;
	ev.has_ctime_nsec = !strcmp(l->row[IDD_M_ctime].path, "i_ctime_") &&
			    l->row[IDD_M_ctime].nsec.present;
	l->ctime_queried = ctime_queried_flag(&ev);
	l->niop = idd_vfs_iop_flags(&ev, l->iop, MAX_FLAGS);
	l->niflags = idd_vfs_inode_flags(&ev, l->iflags, MAX_FLAGS);
	if (state->present) {
		struct enum_collect c = { l };

		idd_types_member_enum(state, collect_state_enumerator, &c);
		l->state_from_dwarf = l->nstate > 0;
		if (!l->state_from_dwarf) {
			ev.has_lru_isolating = has_lru_isolating(id);
			l->nstate = idd_vfs_state_flags(&ev, l->state, MAX_FLAGS);
		}
	}
	for (size_t i = 0; i < l->niop; i++)
		if (!strcmp(l->iop[i].name, "IOP_CACHED_LINK"))
			l->cached_link = l->iop[i].value;
	for (size_t i = 0; i < IDD_NROWS; i++) {
		struct row_layout *rl = &l->row[i];

		if (idd_rows[i].kind != IDD_ROW_FLAGS)
			continue;
		switch (idd_rows[i].aux) {
		case IDD_FLAGS_IOP:
			rl->flags = l->iop, rl->nflags = l->niop;
			break;
		case IDD_FLAGS_INODE:
			rl->flags = l->iflags, rl->nflags = l->niflags;
			break;
		case IDD_FLAGS_STATE:
			rl->flags = l->state, rl->nflags = l->nstate;
			break;
		}
	}
}

/* A row that needs reads beyond its struct's bytes (follow_row). */
static bool needs_follow(const struct row_layout *rl, const struct idd_row *row)
{
	return rl->chained ||
	       (row->kind == IDD_ROW_STR && rl->m.kind == IDD_KIND_PTR);
}

static void list_add(struct row_list *list, size_t i)
{
	list->id[list->n++] = (unsigned short)i;
}

/* The row lists of struct inode_layout (layout.h). */
static void index_rows(struct inode_layout *l)
{
	for (size_t i = 0; i < IDD_NROWS; i++) {
		const struct idd_row *row = &idd_rows[i];
		bool member = row_is_member(row);

		l->row[i].follow = needs_follow(&l->row[i], row);
		if (row->where == IDD_IN_INODE && member)
			list_add(&l->inode_members, i);
		if (row->where == IDD_IN_INODE && member && l->row[i].follow)
			list_add(&l->inode_follow, i);
		if (row->where == IDD_IN_SB)
			list_add(&l->sb_rows, i);
		if (row->where == IDD_IN_SB && member)
			list_add(&l->sb_members, i);
		if (row->where == IDD_IN_MAPPING && member)
			list_add(&l->mapping_members, i);
		if (row->kind == IDD_ROW_STRLEN)
			list_add(&l->strlen_rows, i);
		if (row->kind == IDD_ROW_FLAGS)
			list_add(&l->flags_rows, i);
		if (row->kind == IDD_ROW_SYM)
			list_add(&l->sym_rows, i);
	}
}

static struct inodedump_error *build_layout(struct inodedump *id)
{
	struct idd_types *t = id->types;
	struct inode_layout *l = calloc(1, sizeof(*l));
	struct inodedump_error *err;

	if (!l)
		return idd_nomem();
	err = idd_types_struct(t, "inode", &l->inode);
	if (err) {
		free(l);
		return err;
	}
	find_rows(t, l, IDD_IN_INODE, &l->inode);
	if (!l->row[IDD_M_mode].m.present || !l->row[IDD_M_sb].m.present) {
		free(l);
		return idd_error(INODEDUMP_ERR_TYPE,
				 "struct inode in %s has no i_mode or i_sb: "
				 "not a Linux kernel?",
				 id->types_source);
	}
	err = idd_types_pointee_struct(t, &l->row[IDD_M_sb].m, &l->sb);
	l->have_sb = !err;
	inodedump_error_free(err);
	find_rows(t, l, IDD_IN_SB, l->have_sb ? &l->sb : NULL);
	idd_types_member(t, &l->inode, "i_data", &l->i_data);
	if (l->i_data.present && l->i_data.kind == IDD_KIND_STRUCT) {
		l->mapping = idd_member_struct(&l->i_data);
		l->have_mapping = true;
	}
	find_rows(t, l, IDD_IN_MAPPING, l->have_mapping ? &l->mapping : NULL);
	l->i_linklen = l->row[IDD_M_linklen].m;
	l->i_dentry_first = l->row[IDD_M_dentry_first].m;
	find_flag_tables(id, l);
	idd_layout_find_alias_dtype(id, l);
	index_rows(l);
	idd_layout_check_facts(l, &l->facts);
	id->layout = l;
	return NULL;
}

void idd_layout_free(struct inode_layout *l)
{
	for (size_t i = 0; l && i < IDD_NROWS; i++)
		free(l->row[i].names_block);
	for (size_t i = 0; l && l->state_from_dwarf && i < l->nstate; i++)
		free((char *)l->state[i].name);
	free(l);
}

struct inodedump_error *idd_layout_ready(struct inodedump *id)
{
	return id->layout ? NULL : build_layout(id);
}
