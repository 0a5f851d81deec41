// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The decoded inode as a record: the member rows' places in it (idd_rows),
 * a row's presence, and what the public API reads of it and frees.
 */
#include <string.h>

#include "decode/inode.h"

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

const enum idd_presence *idd_row_state(const struct inodedump_inode *ino,
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

void idd_row_set_state(struct inodedump_inode *ino, const struct idd_row *row,
		       enum idd_presence state)
{
	/* The field is the caller's to write: ino is not const. */
	enum idd_presence *s = (enum idd_presence *)idd_row_state(ino, row);

	if (s)
		*s = state;
	if (row->kind == IDD_ROW_TIME)
		IDD_ROW_FIELD(ino, row, struct idd_time)->nsec.state = state;
}

static void free_names(char **names)
{
	if (!names)
		return;
	for (char **p = names; *p; p++)
		free(*p);
	free(names);
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
		struct idd_arena *a = &ino->arena;
		struct idd_ptr *ptr;

		switch (row->kind) {
		case IDD_ROW_SYM:
		case IDD_ROW_ADDR:
			ptr = IDD_ROW_FIELD(ino, row, struct idd_ptr);
			idd_arena_release(a, ptr->symbol);
			idd_arena_release(a, ptr->module);
			idd_arena_release(a, ptr->symbol_error);
			idd_arena_release(a, ptr->symbol_note);
			break;
		case IDD_ROW_STR:
			idd_arena_release(
				a, IDD_ROW_FIELD(ino, row, struct idd_str)->s);
			break;
		case IDD_ROW_FLAGS:
			/* one block: idd_flag_names() */
			idd_arena_release(a, *(char ***)(void *)((char *)ino +
							row->names_offset));
			break;
		default:
			break;
		}
	}
	/* the filesystem's rows: what came from the arena, or past it */
	for (size_t i = 0; ino->fs.v && i < ino->fs.n; i++) {
		if (ino->fs.v[i].s_owned)
			idd_arena_release(&ino->arena, (void *)ino->fs.v[i].s);
		idd_arena_release(&ino->arena, (void *)ino->fs.v[i].names);
	}
	idd_arena_release(&ino->arena, ino->fs.v);
	for (size_t i = 0; i < ino->fs.nd; i++)
		if (ino->fs.d[i].is_str)
			idd_arena_release(&ino->arena, (void *)ino->fs.d[i].s);
	free(ino->fs.unavailable_buf);
	idd_arena_release(&ino->arena, (void *)ino->slab.cache);
	idd_arena_release(&ino->arena, (void *)ino->slab.type);
	idd_arena_release(&ino->arena, (void *)ino->slab.where);
	idd_arena_release(&ino->arena, (void *)ino->slab.unread);
	idd_arena_release(&ino->arena, (void *)ino->fs_inferred_from);
	free(ino->not_inode_reason);
	free_names(ino->paths);
	for (size_t i = 0; i < ino->npath_rows; i++)
		free(ino->path_rows[i].path);
	free(ino->path_rows);
	free(ino->holders);
	idd_notes_free(&ino->arena, &ino->violations);
	idd_notes_free(&ino->arena, &ino->skipped);
	idd_notes_free(&ino->arena, &ino->errors);
	free(ino);
}

size_t inodedump_inode_violations(const struct inodedump_inode *ino)
{
	return ino->violations.n;
}

unsigned int inodedump_inode_incomplete(const struct inodedump_inode *ino)
{
	return ino->incomplete.parts;
}

const char *inodedump_inode_incomplete_reason(const struct inodedump_inode *ino,
					      unsigned int part)
{
	if (part != INODEDUMP_PART_PATHS && part != INODEDUMP_PART_HOLDERS &&
	    part != INODEDUMP_PART_FIELDS)
		return NULL;
	return idd_incomplete_reason(&ino->incomplete, &ino->errors, part);
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
