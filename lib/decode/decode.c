// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Decode: read one struct inode, check that it is one, take its member
 * rows in order, name its operations, walk what was asked, run the checks.
 *
 * The walk: one layout pass per session (layout.c: every row's member
 * looked up once), one read of the inode's bytes per decode, then pure
 * decoding from those bytes (rows.c). Only what a pointer leads to is read
 * after that: the superblock (once per run of inodes sharing it, memo.c),
 * the mapping when it is not &i_data, strings (i_link, s_type->name),
 * paths, holders.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "decode/facts.h"
#include "decode/inode.h"
#include "decode/layout.h"
#include "decode/memo.h"
#include "decode/rows.h"

/*
 * A symbol the modules' symbol tables could not give: the pointer keeps
 * why (in ino's arena) and the session says it once per cause. Not
 * remembered: the next inode asks again and learns the same.
 */
static struct inodedump_error *symbol_unreadable(struct inodedump *id,
						 struct inodedump_inode *ino,
						 struct idd_ptr *p,
						 struct inodedump_error *err)
{
	char *why = idd_strdup_printf("module symbols unreadable: %s",
				      inodedump_error_message(err));

	inodedump_error_free(err);
	if (!why)
		return idd_nomem();
	idd_session_note(id, "%s", why);
	p->symbol_error = idd_arena_strdup(&ino->arena, why);
	free(why);
	return p->symbol_error ? NULL : idd_nomem();
}

/*
 * Name up to 8 pointers: one pass over vmlinux's symbols, then the
 * caller's symbols and the modules for the rest. A module symbol that
 * cannot be read leaves its pointer unnamed, saying why; running out of
 * memory is the error.
 */
static struct inodedump_error *name_batch(struct inodedump *id,
					  struct inodedump_inode *ino,
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
			if (err && !idd_error_is_nomem(err)) {
				err = symbol_unreadable(id, ino, p, err);
				continue;
			}
		}
		if (!err)
			idd_sym_memo_put(id, p->addr, p->symbol, p->module);
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
		    idd_sym_memo_get(id, ino, p->addr, &p->symbol, &p->module))
			continue;
		pending[n++] = p;
		if (n == 8) {
			err = name_batch(id, ino, pending, n);
			if (err)
				return err;
			n = 0;
		}
	}
	return n ? name_batch(id, ino, pending, n) : NULL;
}

/*
 * A check skipped because its input could not be read: damage in the
 * dump, said by the session once per check (the inode's skipped note
 * keeps each one's reason), which makes the run partial.
 */
static void note_unreadable_checks(struct inodedump *id,
				   const struct inodedump_inode *ino)
{
	static const size_t plen = sizeof(IDD_CHECK_UNREADABLE) - 1;

	for (size_t i = 0; i < ino->skipped.n; i++) {
		const struct idd_note *n = &ino->skipped.v[i];
		char head[96];

		if (strncmp(n->message, IDD_CHECK_UNREADABLE, plen))
			continue;
		snprintf(head, sizeof(head), "check %s was not run",
			 n->name);
		if (idd_session_noted(id, head))
			continue;
		idd_session_note(id, "%s where its input could not be read "
				 "(the first: inode 0x%llx: %s)", head,
				 (unsigned long long)ino->address,
				 n->message + plen);
	}
}

/*
 * The superblock rows, from the memo when the last inode had the same
 * superblock. *why is set (malloc'd) when i_sb does not look like one.
 */
static struct inodedump_error *decode_sb(struct inodedump *id,
					 struct inodedump_inode *ino,
					 char **why)
{
	const struct inodedump_inode *memo;
	struct inodedump_error *err;

	*why = NULL;
	if (!ino->sb.addr) {
		*why = strdup("i_sb is NULL");
		return *why ? NULL : idd_nomem();
	}
	if (!id->layout->have_sb)
		return NULL;
	memo = idd_sb_memo_find(id, ino->sb.addr);
	if (memo)
		return idd_copy_sb_rows(id->layout, ino, memo);
	err = idd_decode_sb_rows(id, ino, why);
	if (err || *why)
		return err;
	return idd_sb_memo_put(id, ino);
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

static struct inodedump_error *decode_rest(struct inodedump *id,
					   struct inodedump_inode *ino,
					   const uint8_t *buf,
					   unsigned int flags)
{
	struct inodedump_error *err;

	if ((err = idd_decode_mapping_rows(id, ino, buf)) ||
	    (err = idd_follow_inode_rows(id, ino, buf)) ||
	    (err = idd_decode_flag_names(id->layout, ino)) ||
	    (err = idd_decode_alias_dtype(id, ino)) ||
	    (err = name_ops(id, ino)))
		return err;
	if (!ino->forced && !(flags & INODEDUMP_DECODE_NO_PATHS) &&
	    (err = idd_decode_paths(id, ino)))
		return err;
	if ((flags & INODEDUMP_DECODE_HOLDERS) &&
	    (err = idd_decode_holders(id, ino)))
		return err;
	idd_checks_run(&id->layout->facts, ino);
	note_unreadable_checks(id, ino);
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
	memset(ino, 0, offsetof(struct inodedump_inode, arena.bytes));
	if (l->inode.size <= sizeof(stack_buf)) {
		buf = stack_buf;
		err = idd_target_read(id->target, address, buf, l->inode.size);
	} else {
		err = idd_read_bytes(id, address, l->inode.size, &buf);
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
	err = idd_take_row(ino, &idd_rows[IDD_M_mode], &l->row[IDD_M_mode].m,
			   NULL, buf);
	if (!err)
		err = idd_decode_inode_rows(l, ino, buf);
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
