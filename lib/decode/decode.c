// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Decode: read one struct inode, check that it is one, decode every member
 * row of kernel/members.def this kernel has, and run the VFS checks.
 *
 * The walk: one layout pass per session (build_layout: every row's member
 * looked up once), one read of the inode's bytes per decode, then pure
 * decoding from those bytes. Only what a pointer leads to is read after
 * that: the superblock (once per run of inodes sharing it), the mapping
 * when it is not &i_data, strings (i_link, s_type->name), paths, holders.
 */
#include <ctype.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "decode/inode.h"

#include "checks/checks.h"
#include "core/bytes.h"
#include "decode/layout.h"

/* ---------------------------------------------------------------- rows -- */

#define IDD_NAMES_OFFSET_FLAGS(f) offsetof(struct inodedump_inode, f##_names)
#define IDD_NAMES_OFFSET_NUM_U(f) 0
#define IDD_NAMES_OFFSET_NUM_S(f) 0
#define IDD_NAMES_OFFSET_NUM_X(f) 0
#define IDD_NAMES_OFFSET_DEV(f) 0
#define IDD_NAMES_OFFSET_STRLEN(f) 0
#define IDD_NAMES_OFFSET_TIME(f) 0
#define IDD_NAMES_OFFSET_SYM(f) 0
#define IDD_NAMES_OFFSET_ADDR(f) 0
#define IDD_NAMES_OFFSET_STR(f) 0

const struct idd_row idd_rows[IDD_NROWS] = {
#define IDD_MEMBER(f, kind, where, paths, applies, aux, key, label, text, seq) \
	[IDD_M_##f] = { #f, IDD_ROW_##kind, IDD_IN_##where, paths,            \
			IDD_APPLIES_##applies, aux, key, label, IDD_TEXT_##text, \
			seq, offsetof(struct inodedump_inode, f),              \
			IDD_NAMES_OFFSET_##kind(f) },
#define IDD_VIEW(f, key, label, text, seq)                                 \
	[IDD_M_##f] = { #f, IDD_ROW_VIEW, IDD_IN_NONE, "", 0, 0, key, label, \
			IDD_TEXT_##text, seq, 0, 0 },
#include "kernel/members.def"
#undef IDD_MEMBER
#undef IDD_VIEW
};

/* A row read from memory, not computed from other rows or a view. */
static bool row_is_member(const struct idd_row *row)
{
	return row->kind != IDD_ROW_VIEW && row->kind != IDD_ROW_STRLEN;
}

/* The presence of a row's field (for a time, of its seconds); NULL: none. */
static const enum idd_presence *row_state(const struct inodedump_inode *ino,
					  const struct idd_row *row)
{
	switch (row->kind) {
	case IDD_ROW_NUM_U:
	case IDD_ROW_NUM_S:
	case IDD_ROW_NUM_X:
	case IDD_ROW_FLAGS:
	case IDD_ROW_DEV:
	case IDD_ROW_STRLEN:
		return &IDD_ROW_CFIELD(ino, row, struct idd_num)->state;
	case IDD_ROW_TIME:
		return &IDD_ROW_CFIELD(ino, row, struct idd_time)->sec.state;
	case IDD_ROW_SYM:
	case IDD_ROW_ADDR:
		return &IDD_ROW_CFIELD(ino, row, struct idd_ptr)->state;
	case IDD_ROW_STR:
		return &IDD_ROW_CFIELD(ino, row, struct idd_str)->state;
	case IDD_ROW_VIEW:
		break;
	}
	return NULL;
}

static void set_row_state(struct inodedump_inode *ino,
			  const struct idd_row *row, enum idd_presence state)
{
	/* The field is the caller's to write: ino is not const. */
	enum idd_presence *s = (enum idd_presence *)row_state(ino, row);

	if (s)
		*s = state;
	if (row->kind == IDD_ROW_TIME)
		IDD_ROW_FIELD(ino, row, struct idd_time)->nsec.state = state;
}

/* -------------------------------------------------------------- layout -- */

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
	l->state[l->nstate].name = name;
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
		if (!l->state_from_dwarf)
			l->nstate = idd_vfs_state_flags(&ev, l->state, MAX_FLAGS);
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

/*
 * Where the first alias's type lives: d_flags & DCACHE_ENTRY_TYPE of the
 * dentry whose d_alias is i_dentry.first. The type values are the
 * enumerators of enum dentry_flags (7.3 has it; 6.12 has #defines, which
 * leave alias_dtype_ok false and the lookup check skipped).
 */
static void find_alias_dtype(struct inodedump *id, struct inode_layout *l)
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
	find_alias_dtype(id, l);
	index_rows(l);
	idd_check_facts_from_layout(l, &l->facts);
	id->layout = l;
	return NULL;
}

/* -------------------------------------------------------------- decode -- */

void *idd_inode_alloc(struct inodedump_inode *ino, size_t size)
{
	size_t at = (ino->arena_used + 15) & ~(size_t)15;

	if (size <= sizeof(ino->arena) && at <= sizeof(ino->arena) - size) {
		ino->arena_used = at + size;
		return ino->arena + at;
	}
	return malloc(size ? size : 1);
}

char *idd_inode_strndup(struct inodedump_inode *ino, const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *copy = idd_inode_alloc(ino, len + 1);

	if (copy) {
		memcpy(copy, s, len);
		copy[len] = '\0';
	}
	return copy;
}

char *idd_inode_strdup(struct inodedump_inode *ino, const char *s)
{
	return idd_inode_strndup(ino, s, SIZE_MAX);
}

/* Room for one more note; false: out of memory. */
static bool notes_grow(struct inodedump_inode *ino, struct idd_notes *notes)
{
	size_t cap = notes->cap ? 2 * notes->cap : 4;
	struct idd_note *v;

	if (notes->n < notes->cap)
		return true;
	v = idd_inode_alloc(ino, cap * sizeof(*v));
	if (!v)
		return false;
	if (notes->n)
		memcpy(v, notes->v, notes->n * sizeof(*v));
	idd_inode_release(ino, notes->v);
	notes->v = v;
	notes->cap = cap;
	return true;
}

struct inodedump_error *idd_notes_add_static(struct inodedump_inode *ino,
					     struct idd_notes *notes,
					     const char *name,
					     const char *message)
{
	if (!notes_grow(ino, notes))
		return idd_nomem();
	/* never written through: free_notes() leaves borrowed ones */
	notes->v[notes->n++] = (struct idd_note){ .name = (char *)name,
						  .message = (char *)message,
						  .borrowed = true };
	return NULL;
}

struct inodedump_error *idd_notes_add(struct inodedump_inode *ino,
				      struct idd_notes *notes,
				      const char *name, bool has_address,
				      uint64_t address, const char *fmt, ...)
{
	bool room = notes_grow(ino, notes);
	char *msg = NULL, *copy = idd_inode_strdup(ino, name);
	struct idd_note *v;
	va_list ap;

	va_start(ap, fmt);
	if (!strcmp(fmt, "%s")) { /* the checks' notes: no printf for a copy */
		msg = idd_inode_strdup(ino, va_arg(ap, const char *));
	} else if (vasprintf(&msg, fmt, ap) < 0) {
		msg = NULL;
	} else {
		char *in = idd_inode_strdup(ino, msg);

		free(msg);
		msg = in;
	}
	va_end(ap);
	if (!room || !msg || !copy) {
		idd_inode_release(ino, msg);
		idd_inode_release(ino, copy);
		return idd_nomem();
	}
	v = notes->v;
	v[notes->n].borrowed = false;
	v[notes->n].name = copy;
	v[notes->n].message = msg;
	v[notes->n].has_address = has_address;
	v[notes->n].address = address;
	notes->n++;
	return NULL;
}

struct inodedump_error *idd_note_incomplete(struct inodedump_inode *ino,
					    unsigned int part, const char *name,
					    bool has_address, uint64_t address,
					    const char *fmt, ...)
{
	unsigned int bit = (unsigned int)__builtin_ctz(part);
	struct inodedump_error *failed;
	char *msg;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return idd_nomem();
	failed = idd_notes_add(ino, &ino->errors, name, has_address, address, "%s",
			       msg);
	free(msg);
	if (failed)
		return failed;
	if (!(ino->incomplete & part))
		ino->incomplete_note[bit] = ino->errors.n;
	ino->incomplete |= part;
	return NULL;
}

/* Record why a part could not be read; consumes err. */
static struct inodedump_error *note_error(struct inodedump_inode *ino,
					  const char *what,
					  struct inodedump_error *err)
{
	uint64_t addr = 0;
	bool has = inodedump_error_address(err, &addr);
	struct inodedump_error *failed;

	failed = idd_notes_add(ino, &ino->errors, what, has, addr, "%s",
			       inodedump_error_message(err));
	inodedump_error_free(err);
	return failed;
}

static void take_num(struct idd_num *out, const struct idd_member *m,
		     const uint8_t *buf)
{
	if (!m->present) {
		out->state = IDD_ABSENT;
		return;
	}
	out->state = IDD_OK;
	out->v = m->is_signed ? idd_member_sval(m, buf)
			      : (int64_t)idd_member_uval(m, buf);
}

/* A pointer member; name_ops() later names the operations tables. */
static void take_ptr(struct idd_ptr *out, const struct idd_member *m,
		     const uint8_t *buf)
{
	if (!m->present) {
		out->state = IDD_ABSENT;
		return;
	}
	out->state = IDD_OK;
	out->addr = idd_member_uval(m, buf);
}

/*
 * A row's value from the bytes of the struct that holds it (m and nsec
 * are relative to buf); the only failure is running out of memory. A
 * string behind a pointer is follow_row's.
 */
static struct inodedump_error *take_row(struct inodedump_inode *ino,
					const struct idd_row *row,
					const struct idd_member *m,
					const struct idd_member *nsec,
					const uint8_t *buf)
{
	struct idd_str *s;

	switch (row->kind) {
	case IDD_ROW_NUM_U:
	case IDD_ROW_NUM_S:
	case IDD_ROW_NUM_X:
	case IDD_ROW_FLAGS:
	case IDD_ROW_DEV:
		take_num(IDD_ROW_FIELD(ino, row, struct idd_num), m, buf);
		break;
	case IDD_ROW_TIME:
		take_num(&IDD_ROW_FIELD(ino, row, struct idd_time)->sec, m, buf);
		take_num(&IDD_ROW_FIELD(ino, row, struct idd_time)->nsec, nsec,
			 buf);
		break;
	case IDD_ROW_SYM:
	case IDD_ROW_ADDR:
		take_ptr(IDD_ROW_FIELD(ino, row, struct idd_ptr), m, buf);
		break;
	case IDD_ROW_STR:
		s = IDD_ROW_FIELD(ino, row, struct idd_str);
		if (!m->present || m->kind != IDD_KIND_ARRAY)
			break;
		s->s = idd_inode_strndup(ino, (const char *)buf + m->offset,
					 m->size);
		if (!s->s)
			return idd_nomem();
		s->state = IDD_OK;
		break;
	case IDD_ROW_STRLEN:
	case IDD_ROW_VIEW:
		break;
	}
	return NULL;
}

/* Bytes at a kernel address, into a buffer of the caller's or malloc'd. */
static struct inodedump_error *read_bytes(struct inodedump *id, uint64_t addr,
					  uint64_t size, uint8_t **out)
{
	uint8_t *buf = malloc(size ? size : 1);
	struct inodedump_error *err;

	*out = NULL;
	if (!buf)
		return idd_nomem();
	err = idd_target_read(id->target, addr, buf, size);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	return NULL;
}

/*
 * A row that needs reads beyond its struct's bytes: "a->b" (read b where a
 * points), and strings behind a pointer (at most aux bytes). A NULL
 * pointer is "nothing there" for a member of one file type only (a
 * symlink's i_link), and an error for every other.
 */
static struct inodedump_error *follow_row(struct inodedump *id,
					  struct inodedump_inode *ino,
					  const struct idd_row *row,
					  const struct row_layout *rl,
					  const uint8_t *buf)
{
	struct idd_member m = rl->m;
	uint8_t *pointee = NULL;
	struct inodedump_error *err = NULL;
	struct idd_str *s;
	uint64_t ptr;

	if (rl->chained) {
		uint64_t base = idd_member_uval(&rl->via, buf);

		if (!base)
			return idd_error(INODEDUMP_ERR_FAULT, "%.*s is NULL",
					 (int)(strstr(rl->path, "->") - rl->path),
					 rl->path);
		err = read_bytes(id, base + m.offset, m.size, &pointee);
		if (err)
			return err;
		m.offset = 0;
		buf = pointee;
	}
	if (row->kind != IDD_ROW_STR || m.kind != IDD_KIND_PTR) {
		err = take_row(ino, row, &m, &rl->nsec, buf);
		free(pointee);
		return err;
	}
	s = IDD_ROW_FIELD(ino, row, struct idd_str);
	ptr = idd_member_uval(&m, buf);
	free(pointee);
	if (!ptr && row->applies) {
		s->state = IDD_NA;
		return NULL;
	}
	if (!ptr)
		return idd_error(INODEDUMP_ERR_FAULT, "%s is NULL", rl->path);
	err = idd_target_read_string(id->target, ptr, (size_t)row->aux, &s->s,
				     &s->truncated);
	if (!err)
		s->state = IDD_OK;
	return err;
}

/*
 * Operations tables repeat across inodes: a sweep asks for the same few
 * dozen addresses thousands of times, so answers are remembered.
 */
#define SYM_MEMO_SIZE 1024 /* power of two */

struct sym_memo {
	uint64_t addr;
	char *symbol, *module;
	bool used;
};

static struct sym_memo *memo_slot(struct inodedump *id, uint64_t addr,
				   bool *found)
{
	struct sym_memo *memo;
	size_t slot;

	if (!id->sym_memo)
		id->sym_memo = calloc(SYM_MEMO_SIZE, sizeof(struct sym_memo));
	memo = id->sym_memo;
	slot = (size_t)((addr >> 4) * 0x9e3779b97f4a7c15ull >> 54) &
	       (SYM_MEMO_SIZE - 1);
	for (size_t probe = 0; memo && probe < 8; probe++) {
		struct sym_memo *e = &memo[(slot + probe) & (SYM_MEMO_SIZE - 1)];

		if (!e->used || e->addr == addr) {
			*found = e->used;
			return e;
		}
	}
	*found = false;
	return NULL;
}

static bool memo_get(struct inodedump *id, struct inodedump_inode *ino,
		     uint64_t addr, char **symbol, char **module)
{
	bool found;
	struct sym_memo *e = memo_slot(id, addr, &found);

	if (!found)
		return false;
	*symbol = e->symbol ? idd_inode_strdup(ino, e->symbol) : NULL;
	*module = e->module ? idd_inode_strdup(ino, e->module) : NULL;
	return true;
}

static void memo_put(struct inodedump *id, uint64_t addr, const char *symbol,
		     const char *module)
{
	bool found;
	struct sym_memo *e = memo_slot(id, addr, &found);

	if (!e || found)
		return;
	e->used = true;
	e->addr = addr;
	e->symbol = symbol ? strdup(symbol) : NULL;
	e->module = module ? strdup(module) : NULL;
}

void idd_free_sym_memo(struct sym_memo *memo)
{
	for (size_t i = 0; memo && i < SYM_MEMO_SIZE; i++) {
		free(memo[i].symbol);
		free(memo[i].module);
	}
	free(memo);
}

/*
 * Name up to 8 pointers: one pass over vmlinux's symbols, then the
 * caller's symbols and the modules for the rest. A module symbol that
 * cannot be read leaves its pointer unnamed; running out of memory is
 * the error.
 */
static struct inodedump_error *name_batch(struct inodedump *id,
					  struct idd_ptr **pending, size_t n)
{
	uint64_t want[8] = { 0 };
	char *names[8] = { NULL };
	struct inodedump_error *err;

	for (size_t k = 0; k < n; k++)
		want[k] = pending[k]->addr;
	err = idd_symbols_names(id->syms, want, n, names);
	for (size_t k = 0; !err && k < n; k++) {
		struct idd_ptr *p = pending[k];

		p->symbol = names[k];
		names[k] = NULL;
		if (!p->symbol) {
			err = idd_session_symbol(id, p->addr, &p->symbol,
						 &p->module);
			if (!idd_error_is_nomem(err)) {
				inodedump_error_free(err);
				err = NULL;
			}
		}
		if (!err)
			memo_put(id, p->addr, p->symbol, p->module);
	}
	for (size_t k = 0; k < n; k++)
		free(names[k]);
	return err;
}

/*
 * Name an inode's operations pointers (the SYM rows): remembered answers
 * first, then the symbol tables for the rest.
 */
static struct inodedump_error *name_ops(struct inodedump *id,
					struct inodedump_inode *ino)
{
	struct idd_ptr *pending[8];
	struct inodedump_error *err;
	size_t n = 0;

	const struct row_list *sym = &id->layout->sym_rows;

	for (size_t k = 0; k < sym->n; k++) {
		size_t i = sym->id[k];
		struct idd_ptr *p;

		p = IDD_ROW_FIELD(ino, &idd_rows[i], struct idd_ptr);
		if (p->state != IDD_OK || !p->addr || p->symbol ||
		    memo_get(id, ino, p->addr, &p->symbol, &p->module))
			continue;
		pending[n++] = p;
		if (n == 8) {
			err = name_batch(id, pending, n);
			if (err)
				return err;
			n = 0;
		}
	}
	return n ? name_batch(id, pending, n) : NULL;
}

static bool printable_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isprint((unsigned char)*s))
			return false;
	return true;
}

/* A copy of one row's value (strings duplicated, names left out). */
static struct inodedump_error *copy_row(struct inodedump_inode *to,
					const struct inodedump_inode *from,
					const struct idd_row *row)
{
	switch (row->kind) {
	case IDD_ROW_SYM:
	case IDD_ROW_ADDR: {
		const struct idd_ptr *f = IDD_ROW_CFIELD(from, row, struct idd_ptr);
		struct idd_ptr *t = IDD_ROW_FIELD(to, row, struct idd_ptr);

		*t = (struct idd_ptr){ f->state, f->addr, NULL, NULL };
		if ((f->symbol && !(t->symbol = idd_inode_strdup(to, f->symbol))) ||
		    (f->module && !(t->module = idd_inode_strdup(to, f->module))))
			return idd_nomem();
		return NULL;
	}
	case IDD_ROW_STR: {
		const struct idd_str *f = IDD_ROW_CFIELD(from, row, struct idd_str);
		struct idd_str *t = IDD_ROW_FIELD(to, row, struct idd_str);

		*t = *f;
		t->s = NULL;
		if (f->s && !(t->s = idd_inode_strdup(to, f->s)))
			return idd_nomem();
		return NULL;
	}
	case IDD_ROW_TIME:
		*IDD_ROW_FIELD(to, row, struct idd_time) =
			*IDD_ROW_CFIELD(from, row, struct idd_time);
		return NULL;
	case IDD_ROW_VIEW:
		return NULL;
	default:
		*IDD_ROW_FIELD(to, row, struct idd_num) =
			*IDD_ROW_CFIELD(from, row, struct idd_num);
		return NULL;
	}
}

static struct inodedump_error *copy_sb_rows(const struct inode_layout *l,
					    struct inodedump_inode *to,
					    const struct inodedump_inode *from)
{
	for (size_t k = 0; k < l->sb_rows.n; k++) {
		struct inodedump_error *err;

		err = copy_row(to, from, &idd_rows[l->sb_rows.id[k]]);
		if (err)
			return err;
	}
	return NULL;
}

void idd_free_sb_memo(struct sb_memo *m)
{
	inodedump_inode_free(m->rows);
	memset(m, 0, sizeof(*m));
}

/* Inodes of one superblock come in runs: remember the last good one. */
static struct inodedump_error *sb_to_memo(struct inodedump *id,
					  const struct inodedump_inode *ino)
{
	struct sb_memo *m = &id->sb_memo;
	struct inodedump_error *err;

	/* A memory image may change under us (fuzzers): no memo there. */
	if (idd_target_is_memory(id->target))
		return NULL;
	for (size_t k = 0; k < id->layout->sb_rows.n; k++) {
		size_t i = id->layout->sb_rows.id[k];

		if (id->layout->row[i].m.present &&
		    *row_state(ino, &idd_rows[i]) != IDD_OK)
			return NULL;
	}
	idd_free_sb_memo(m);
	m->rows = calloc(1, sizeof(*m->rows));
	if (!m->rows)
		return idd_nomem();
	err = copy_sb_rows(id->layout, m->rows, ino);
	if (err) {
		idd_free_sb_memo(m);
		return err;
	}
	m->addr = ino->sb.addr;
	m->valid = true;
	return NULL;
}

/* The superblock's rows from its bytes; *why says if it is none. */
static struct inodedump_error *decode_sb_memory(struct inodedump *id,
						struct inodedump_inode *ino,
						char **why)
{
	struct inode_layout *l = id->layout;
	struct inodedump_error *err, *failed = NULL;
	uint8_t *buf;

	err = read_bytes(id, ino->sb.addr, l->sb.size, &buf);
	if (idd_error_is_nomem(err))
		return err;
	if (err) {
		*why = idd_strdup_printf("i_sb 0x%llx unreadable: %s",
					 (unsigned long long)ino->sb.addr,
					 inodedump_error_message(err));
		failed = note_error(ino, "i_sb", err);
		return *why ? failed : idd_nomem();
	}
	for (size_t k = 0; k < l->sb_members.n && !failed; k++) {
		size_t i = l->sb_members.id[k];
		const struct idd_row *row = &idd_rows[i];
		const struct row_layout *rl = &l->row[i];

		err = needs_follow(rl, row)
			      ? follow_row(id, ino, row, rl, buf)
			      : take_row(ino, row, &rl->m, &rl->nsec, buf);
		if (!err)
			continue;
		if (idd_error_is_nomem(err)) {
			failed = err;
			break;
		}
		set_row_state(ino, row, IDD_UNREADABLE);
		if (i == IDD_M_fs_type && !*why &&
		    !(*why = idd_strdup_printf(
			      "superblock 0x%llx: %s unreadable: %s",
			      (unsigned long long)ino->sb.addr, rl->path,
			      inodedump_error_message(err)))) {
			inodedump_error_free(err);
			failed = idd_nomem();
			break;
		}
		failed = note_error(ino, rl->path, err);
	}
	free(buf);
	/* Plausibility: s_type->name is a short printable string. */
	if (!failed && !*why && ino->fs_type.state == IDD_OK &&
	    (ino->fs_type.truncated || !printable_name(ino->fs_type.s)) &&
	    !(*why = idd_strdup_printf("superblock 0x%llx: s_type->name is "
				       "not a short printable string",
				       (unsigned long long)ino->sb.addr)))
		failed = idd_nomem();
	return failed;
}

/*
 * The superblock rows, from the memo when the last inode had the same
 * superblock. *why is set (malloc'd) when i_sb does not look like one.
 */
static struct inodedump_error *decode_sb(struct inodedump *id,
					 struct inodedump_inode *ino,
					 char **why)
{
	struct inodedump_error *err;

	*why = NULL;
	if (!ino->sb.addr) {
		*why = strdup("i_sb is NULL");
		return *why ? NULL : idd_nomem();
	}
	if (!id->layout->have_sb)
		return NULL;
	if (id->sb_memo.valid && id->sb_memo.addr == ino->sb.addr)
		return copy_sb_rows(id->layout, ino, id->sb_memo.rows);
	err = decode_sb_memory(id, ino, why);
	if (err || *why)
		return err;
	return sb_to_memo(id, ino);
}

/* The MAPPING rows: in the inode's bytes when i_mapping is &i_data. */
static struct inodedump_error *decode_mapping(struct inodedump *id,
					      struct inodedump_inode *ino,
					      const uint8_t *inode_buf)
{
	struct inode_layout *l = id->layout;
	uint64_t i_data = ino->address + l->i_data.offset;

	if (ino->mapping.state != IDD_OK || !ino->mapping.addr)
		return NULL;
	ino->mapping_is_i_data = l->i_data.present && ino->mapping.addr == i_data;
	for (size_t k = 0; k < l->mapping_members.n; k++) {
		size_t i = l->mapping_members.id[k];
		const struct idd_row *row = &idd_rows[i];
		struct idd_member m, nsec;
		struct inodedump_error *err;
		uint8_t *buf;
		char what[128];

		m = l->row[i].m;
		nsec = l->row[i].nsec;
		if (ino->mapping_is_i_data) {
			/* Already read with the inode. */
			m.offset += l->i_data.offset;
			nsec.offset += l->i_data.offset;
			err = take_row(ino, row, &m, &nsec, inode_buf);
			if (err)
				return err;
			continue;
		}
		if (!m.present || row->kind == IDD_ROW_TIME)
			continue;
		err = read_bytes(id, ino->mapping.addr + m.offset, m.size, &buf);
		if (idd_error_is_nomem(err))
			return err;
		if (err) {
			set_row_state(ino, row, IDD_UNREADABLE);
			snprintf(what, sizeof(what), "i_mapping->%s",
				 l->row[i].path);
			err = note_error(ino, what, err);
			if (err)
				return err;
			continue;
		}
		m.offset = 0;
		err = take_row(ino, row, &m, &m, buf);
		free(buf);
		if (err)
			return err;
	}
	return NULL;
}

/*
 * inode_get_ctime_nsec(): the nanoseconds are i_ctime_nsec without
 * I_CTIME_QUERIED, a state of its own (getattr saw this ctime, so the next
 * change takes a fine-grained timestamp).
 */
static void take_ctime_queried(const struct inode_layout *l,
			       struct idd_time *ctime)
{
	if (!l->ctime_queried || ctime->nsec.state != IDD_OK)
		return;
	ctime->has_queried = true;
	ctime->queried = ((uint64_t)ctime->nsec.v & l->ctime_queried) != 0;
	ctime->nsec.v = (int64_t)((uint64_t)ctime->nsec.v & ~l->ctime_queried);
}

/*
 * i_linklen means something only with IOP_CACHED_LINK: vfs_readlink()
 * reads it then, and 6.14+ keeps it in a union with i_devices, so on any
 * other symlink it is half a list pointer. Not applicable there.
 */
static void drop_stale_linklen(const struct inode_layout *l,
			       struct inodedump_inode *ino)
{
	if (!l->cached_link || ino->linklen.state != IDD_OK ||
	    ino->opflags.state != IDD_OK ||
	    ((uint64_t)ino->opflags.v & l->cached_link))
		return;
	ino->linklen = (struct idd_num){ IDD_NA, 0 };
}

/* The INODE rows from the inode's bytes: no read. */
static struct inodedump_error *decode_inode_rows(const struct inode_layout *l,
						 struct inodedump_inode *ino,
						 const uint8_t *buf)
{
	for (size_t k = 0; k < l->inode_members.n; k++) {
		size_t i = l->inode_members.id[k];
		const struct idd_row *row = &idd_rows[i];
		const struct row_layout *rl = &l->row[i];
		struct inodedump_error *err;

		if (!idd_row_applies(row, ino)) {
			set_row_state(ino, row, rl->m.present ? IDD_NA
							      : IDD_ABSENT);
		} else if (!rl->follow) {
			err = take_row(ino, row, &rl->m, &rl->nsec, buf);
			if (err)
				return err;
		}
	}
	take_ctime_queried(l, &ino->ctime);
	drop_stale_linklen(l, ino);
	return NULL;
}

/* The INODE rows behind a pointer (i_link's string), then lengths. */
static struct inodedump_error *follow_inode_rows(struct inodedump *id,
						 struct inodedump_inode *ino,
						 const uint8_t *buf)
{
	const struct inode_layout *l = id->layout;

	for (size_t k = 0; k < l->inode_follow.n; k++) {
		size_t i = l->inode_follow.id[k];
		const struct idd_row *row = &idd_rows[i];
		const struct row_layout *rl = &l->row[i];
		struct inodedump_error *err;

		if (!idd_row_applies(row, ino))
			continue;
		err = follow_row(id, ino, row, rl, buf);
		if (idd_error_is_nomem(err))
			return err;
		if (err) {
			set_row_state(ino, row, IDD_UNREADABLE);
			err = note_error(ino, rl->path, err);
			if (err)
				return err;
		}
	}
	for (size_t k = 0; k < l->strlen_rows.n; k++) {
		const struct idd_row *row = &idd_rows[l->strlen_rows.id[k]];
		struct idd_num *n = IDD_ROW_FIELD(ino, row, struct idd_num);
		const struct idd_str *s;

		s = IDD_ROW_CFIELD(ino, &idd_rows[row->aux], struct idd_str);
		n->state = !idd_row_applies(row, ino) &&
					   !l->row[row->aux].m.present
				   ? IDD_ABSENT
			   : s->state == IDD_OK ? IDD_OK
						: IDD_NA;
		n->v = s->state == IDD_OK ? (int64_t)strlen(s->s) : 0;
	}
	return NULL;
}

/* The bytes of idd_flag_names()'s block: pointers, then the strings. */
static size_t names_block_size(char **names)
{
	size_t n = 0;

	while (names[n])
		n++;
	return n ? (size_t)(names[n - 1] - (char *)names) +
			   strlen(names[n - 1]) + 1
		 : sizeof(*names);
}

/* The names of value's bits into ino's arena, from the row's memo. */
static char **row_flag_names(struct row_layout *rl,
			     struct inodedump_inode *ino, uint64_t value)
{
	char **names;

	if (!rl->names_block || rl->names_value != value) {
		char **block = idd_flag_names(rl->flags, rl->nflags, value);

		if (!block)
			return NULL;
		free(rl->names_block);
		rl->names_block = block;
		rl->names_value = value;
		rl->names_size = names_block_size(block);
	}
	names = idd_inode_alloc(ino, rl->names_size);
	if (!names)
		return NULL;
	memcpy(names, rl->names_block, rl->names_size);
	for (char **p = names; *p; p++) /* point into the copy */
		*p = (char *)names + (*p - (char *)rl->names_block);
	return names;
}

void idd_layout_free(struct inode_layout *l)
{
	for (size_t i = 0; l && i < IDD_NROWS; i++)
		free(l->row[i].names_block);
	free(l);
}

static struct inodedump_error *decode_flags(struct inode_layout *l,
					    struct inodedump_inode *ino)
{
	for (size_t k = 0; k < l->flags_rows.n; k++) {
		size_t i = l->flags_rows.id[k];
		const struct idd_row *row = &idd_rows[i];
		const struct idd_num *n;
		char **names;

		n = IDD_ROW_CFIELD(ino, row, struct idd_num);
		if (n->state != IDD_OK)
			continue;
		names = row_flag_names(&l->row[i], ino, (uint64_t)n->v);
		if (!names)
			return idd_nomem();
		*(char ***)(void *)((char *)ino + row->names_offset) = names;
	}
	return NULL;
}

struct inodedump_error *idd_layout_ready(struct inodedump *id)
{
	return id->layout ? NULL : build_layout(id);
}

struct inodedump_error *inodedump_decode(struct inodedump *id, uint64_t address,
					 unsigned int flags,
					 struct inodedump_inode **out)
{
	return idd_decode(id, address, flags, out, NULL);
}

/* Does it look like an inode? NULL, or why not (malloc'd) in *why. */
static struct inodedump_error *plausible(struct inodedump *id,
					 struct inodedump_inode *ino,
					 char **why)
{
	struct inodedump_error *err = decode_sb(id, ino, why);
	char *both;

	if (err) {
		free(*why);
		*why = NULL;
		return err;
	}
	if (*why &&
	    idd_mode_type((unsigned)ino->mode.v) == INODEDUMP_INODE_INVALID) {
		both = idd_strdup_printf("%s, and i_mode 0%o is no file type",
					 *why, (unsigned)ino->mode.v);
		free(*why);
		*why = both;
		if (!both)
			return idd_nomem();
	}
	return NULL;
}

/* The type of the dentry that names the inode first (the lookup check). */
static struct inodedump_error *decode_alias_dtype(struct inodedump *id,
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
		return note_error(ino, "i_dentry.first's d_flags", err);
	}
	ino->alias_dtype = (struct idd_num){
		IDD_OK, (int64_t)(idd_load_le(bytes, (size_t)l->d_flags.size) &
				  l->dcache_entry_type)
	};
	return NULL;
}

static struct inodedump_error *decode_rest(struct inodedump *id,
					   struct inodedump_inode *ino,
					   const uint8_t *buf,
					   unsigned int flags)
{
	struct inodedump_error *err;

	if ((err = decode_mapping(id, ino, buf)) ||
	    (err = follow_inode_rows(id, ino, buf)) ||
	    (err = decode_flags(id->layout, ino)) ||
	    (err = decode_alias_dtype(id, ino)) ||
	    (err = name_ops(id, ino)))
		return err;
	if (!ino->forced && !(flags & INODEDUMP_DECODE_NO_PATHS) &&
	    (err = idd_decode_paths(id, ino)))
		return err;
	if ((flags & INODEDUMP_DECODE_HOLDERS) &&
	    (err = idd_decode_holders(id, ino)))
		return err;
	idd_run_checks(id->layout, ino);
	return NULL;
}

struct inodedump_error *idd_decode(struct inodedump *id, uint64_t address,
				   unsigned int flags,
				   struct inodedump_inode **out,
				   uint64_t *sb_list_next)
{
	struct inodedump_inode *ino;
	struct inodedump_error *err;
	struct inode_layout *l;
	uint8_t *buf, stack_buf[4096];
	char *why = NULL;

	/*
	 * The kernel's error pointers (ERR_PTR(-errno), the top 4095 values):
	 * what a caller got back instead of an inode, never memory. The
	 * kernel's own dump_inode() prints them as "unreadable inode:".
	 */
	if (address >= (uint64_t)-4095) {
		int e = (int)(0 - address);
		const char *name = strerrorname_np(e);
		char num[16];

		snprintf(num, sizeof(num), "%d", e);
		return idd_error_at(INODEDUMP_ERR_NOT_INODE, address,
				    "0x%llx is ERR_PTR(-%s), an error code, not a "
				    "pointer to an inode",
				    (unsigned long long)address, name ? name : num);
	}
	err = idd_layout_ready(id);
	if (err)
		return err;
	l = id->layout;
	/* the arena needs no zeroes: a sweep decodes every inode */
	ino = malloc(sizeof(*ino));
	if (!ino)
		return idd_nomem();
	memset(ino, 0, offsetof(struct inodedump_inode, arena));
	if (l->inode.size <= sizeof(stack_buf)) {
		buf = stack_buf;
		err = idd_target_read(id->target, address, buf, l->inode.size);
	} else {
		err = read_bytes(id, address, l->inode.size, &buf);
	}
	if (err) {
		free(ino);
		if (idd_error_is_nomem(err))
			return err;
		return idd_error_wrap(err, "struct inode at 0x%llx (%llu bytes)",
				      (unsigned long long)address,
				      (unsigned long long)l->inode.size);
	}
	ino->address = address;
	/* The mode first: which rows apply depends on the file type. */
	err = take_row(ino, &idd_rows[IDD_M_mode], &l->row[IDD_M_mode].m, NULL,
		       buf);
	if (!err)
		err = decode_inode_rows(l, ino, buf);
	/* A sweep walks s_inodes through the bytes it already has. */
	if (sb_list_next)
		*sb_list_next = ino->sb_list_next.state == IDD_OK
					? ino->sb_list_next.addr
					: 0;
	if (!err)
		err = plausible(id, ino, &why);
	if (!err && why && !(flags & INODEDUMP_DECODE_FORCE))
		err = idd_error_at(INODEDUMP_ERR_NOT_INODE, address,
				   "0x%llx does not look like a struct "
				   "inode: %s (--force decodes it anyway)",
				   (unsigned long long)address, why);
	if (!err && why) {
		ino->forced = true;
		ino->not_inode_reason = why;
		why = NULL;
	}
	if (!err)
		err = decode_rest(id, ino, buf, flags);
	free(why);
	if (buf != stack_buf)
		free(buf);
	if (err) {
		inodedump_inode_free(ino);
		return err;
	}
	*out = ino;
	return NULL;
}

static void free_names(char **names)
{
	if (!names)
		return;
	for (char **p = names; *p; p++)
		free(*p);
	free(names);
}

static void free_notes(const struct inodedump_inode *ino,
		       struct idd_notes *notes)
{
	for (size_t i = 0; i < notes->n; i++) {
		if (notes->v[i].borrowed)
			continue;
		idd_inode_release(ino, notes->v[i].name);
		idd_inode_release(ino, notes->v[i].message);
	}
	idd_inode_release(ino, notes->v);
}

/* The rows whose field holds pointers to free (kernel/members.def). */
#define IDD_OWNS_SYM(f) IDD_M_##f,
#define IDD_OWNS_ADDR(f) IDD_M_##f,
#define IDD_OWNS_STR(f) IDD_M_##f,
#define IDD_OWNS_FLAGS(f) IDD_M_##f,
#define IDD_OWNS_NUM_U(f)
#define IDD_OWNS_NUM_S(f)
#define IDD_OWNS_NUM_X(f)
#define IDD_OWNS_DEV(f)
#define IDD_OWNS_STRLEN(f)
#define IDD_OWNS_TIME(f)
static const unsigned short owning_rows[] = {
#define IDD_MEMBER(f, kind, ...) IDD_OWNS_##kind(f)
#define IDD_VIEW(...)
#include "kernel/members.def"
#undef IDD_MEMBER
#undef IDD_VIEW
};

void inodedump_inode_free(struct inodedump_inode *ino)
{
	if (!ino) /* before the member addresses below: NULL has none */
		return;
	for (size_t k = 0; k < sizeof(owning_rows) / sizeof(owning_rows[0]);
	     k++) {
		const struct idd_row *row = &idd_rows[owning_rows[k]];

		switch (row->kind) {
		case IDD_ROW_SYM:
		case IDD_ROW_ADDR:
			idd_inode_release(
				ino, IDD_ROW_FIELD(ino, row, struct idd_ptr)->symbol);
			idd_inode_release(
				ino, IDD_ROW_FIELD(ino, row, struct idd_ptr)->module);
			break;
		case IDD_ROW_STR:
			idd_inode_release(
				ino, IDD_ROW_FIELD(ino, row, struct idd_str)->s);
			break;
		case IDD_ROW_FLAGS:
			/* one block: idd_flag_names() */
			idd_inode_release(ino, *(char ***)(void *)((char *)ino +
								   row->names_offset));
			break;
		default:
			break;
		}
	}
	free(ino->not_inode_reason);
	free_names(ino->paths);
	free(ino->holders);
	free_notes(ino, &ino->violations);
	free_notes(ino, &ino->skipped);
	free_notes(ino, &ino->errors);
	free(ino);
}

size_t inodedump_inode_violations(const struct inodedump_inode *ino)
{
	return ino->violations.n;
}

unsigned int inodedump_inode_incomplete(const struct inodedump_inode *ino)
{
	return ino->incomplete;
}

const char *inodedump_inode_incomplete_reason(const struct inodedump_inode *ino,
					      unsigned int part)
{
	size_t at;

	if (part != INODEDUMP_PART_PATHS && part != INODEDUMP_PART_HOLDERS)
		return NULL;
	if (!(ino->incomplete & part))
		return NULL;
	at = ino->incomplete_note[__builtin_ctz(part)];
	return at && at <= ino->errors.n ? ino->errors.v[at - 1].message : NULL;
}

/* Every row whose field is a struct idd_num has a number by its key. */
bool inodedump_inode_number(const struct inodedump_inode *ino,
			    const char *key, int64_t *value)
{
	for (size_t i = 0; i < IDD_NROWS; i++) {
		const struct idd_row *row = &idd_rows[i];
		const struct idd_num *n;

		switch (row->kind) {
		case IDD_ROW_NUM_U:
		case IDD_ROW_NUM_S:
		case IDD_ROW_NUM_X:
		case IDD_ROW_FLAGS:
		case IDD_ROW_DEV:
		case IDD_ROW_STRLEN:
			break;
		default:
			continue;
		}
		if (!row->key || strcmp(row->key, key))
			continue;
		n = IDD_ROW_CFIELD(ino, row, struct idd_num);
		if (n->state != IDD_OK)
			return false;
		*value = n->v;
		return true;
	}
	return false;
}
