// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The member rows' values: taken from the bytes of the struct that holds
 * them (inode, superblock, mapping), or read where a pointer leads, and
 * the names of the FLAGS rows' bits.
 */
#include <ctype.h>
#include <string.h>

#include "decode/inode.h"
#include "decode/layout.h"
#include "decode/rows.h"

/*
 * Why a value could not be read, in ino's errors, and the fields marked
 * incomplete (the run is partial); consumes err.
 */
static struct inodedump_error *note_error(struct inodedump_inode *ino,
					  const char *what,
					  struct inodedump_error *err)
{
	return idd_notes_add_error_incomplete(&ino->arena, &ino->errors,
					      &ino->incomplete,
					      INODEDUMP_PART_FIELDS, what, err);
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
struct inodedump_error *idd_take_row(struct inodedump_inode *ino,
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
		s->s = idd_arena_strndup(&ino->arena,
					 (const char *)buf + m->offset, m->size);
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
struct inodedump_error *idd_read_bytes(struct inodedump *id, uint64_t addr,
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
		err = idd_read_bytes(id, base + m.offset, m.size, &pointee);
		if (err)
			return err;
		m.offset = 0;
		buf = pointee;
	}
	if (row->kind != IDD_ROW_STR || m.kind != IDD_KIND_PTR) {
		err = idd_take_row(ino, row, &m, &rl->nsec, buf);
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

static bool printable_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isprint((unsigned char)*s))
			return false;
	return true;
}

/* The superblock's rows from its bytes; *why says if it is none. */
struct inodedump_error *idd_decode_sb_rows(struct inodedump *id,
					   struct inodedump_inode *ino,
					   char **why)
{
	struct inode_layout *l = id->layout;
	struct inodedump_error *err, *failed = NULL;
	uint8_t *buf;

	err = idd_read_bytes(id, ino->sb.addr, l->sb.size, &buf);
	if (idd_error_is_nomem(err))
		return err;
	if (err) {
		ino->sb_filtered = err->code == INODEDUMP_ERR_FILTERED;
		/* every superblock row: unreadable, not absent */
		for (size_t k = 0; k < l->sb_members.n; k++)
			idd_row_set_state(ino, &idd_rows[l->sb_members.id[k]],
					  IDD_UNREADABLE);
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

		err = rl->follow
			      ? follow_row(id, ino, row, rl, buf)
			      : idd_take_row(ino, row, &rl->m, &rl->nsec, buf);
		if (!err)
			continue;
		if (idd_error_is_nomem(err)) {
			failed = err;
			break;
		}
		idd_row_set_state(ino, row, IDD_UNREADABLE);
		if (i == IDD_M_fs_type)
			ino->sb_filtered = err->code == INODEDUMP_ERR_FILTERED;
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

/* The MAPPING rows: in the inode's bytes when i_mapping is &i_data. */
struct inodedump_error *idd_decode_mapping_rows(struct inodedump *id,
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
			err = idd_take_row(ino, row, &m, &nsec, inode_buf);
			if (err)
				return err;
			continue;
		}
		if (!m.present || row->kind == IDD_ROW_TIME)
			continue;
		err = idd_read_bytes(id, ino->mapping.addr + m.offset, m.size,
				     &buf);
		if (idd_error_is_nomem(err))
			return err;
		if (err) {
			idd_row_set_state(ino, row, IDD_UNREADABLE);
			snprintf(what, sizeof(what), "i_mapping->%s",
				 l->row[i].path);
			err = note_error(ino, what, err);
			if (err)
				return err;
			continue;
		}
		m.offset = 0;
		err = idd_take_row(ino, row, &m, &m, buf);
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
struct inodedump_error *idd_decode_inode_rows(const struct inode_layout *l,
					      struct inodedump_inode *ino,
					      const uint8_t *buf)
{
	for (size_t k = 0; k < l->inode_members.n; k++) {
		size_t i = l->inode_members.id[k];
		const struct idd_row *row = &idd_rows[i];
		const struct row_layout *rl = &l->row[i];
		struct inodedump_error *err;

		if (!idd_row_applies(row, ino)) {
			idd_row_set_state(ino, row, rl->m.present ? IDD_NA
							      : IDD_ABSENT);
		} else if (!rl->follow) {
			err = idd_take_row(ino, row, &rl->m, &rl->nsec, buf);
			if (err)
				return err;
		}
	}
	take_ctime_queried(l, &ino->ctime);
	drop_stale_linklen(l, ino);
	return NULL;
}

/* The INODE rows behind a pointer (i_link's string), then lengths. */
struct inodedump_error *idd_follow_inode_rows(struct inodedump *id,
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
			idd_row_set_state(ino, row, IDD_UNREADABLE);
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
	names = idd_arena_alloc(&ino->arena, rl->names_size);
	if (!names)
		return NULL;
	memcpy(names, rl->names_block, rl->names_size);
	for (char **p = names; *p; p++) /* point into the copy */
		*p = (char *)names + (*p - (char *)rl->names_block);
	return names;
}

struct inodedump_error *idd_decode_flag_names(struct inode_layout *l,
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
