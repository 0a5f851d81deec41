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
#include "decode/fs.h"
#include "decode/inode.h"
#include "decode/layout.h"
#include "decode/memo.h"
#include "decode/rows.h"
#include "decode/slab.h"

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
			err = idd_session_symbol_noted(id, p->addr, &p->symbol,
						       &p->module,
						       &p->symbol_note);
			if (err && !idd_error_is_nomem(err)) {
				err = symbol_unreadable(id, ino, p, err);
				continue;
			}
		}
		if (!err)
			idd_sym_memo_put(id, p->addr, p->symbol, p->module,
					 p->symbol_note);
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

	id->naming_sb = ino->sb.state == IDD_OK ? ino->sb.addr : 0;

	for (size_t k = 0; k < sym->n; k++) {
		size_t i = sym->id[k];
		struct idd_ptr *p;

		p = IDD_ROW_FIELD(ino, &idd_rows[i], struct idd_ptr);
		if (p->state != IDD_OK || !p->addr || p->symbol ||
		    idd_sym_memo_get(id, ino, p->addr, &p->symbol, &p->module,
				     &p->symbol_note))
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

/*
 * What the slab allocator says rules out an inode: an object of a cache
 * that holds none, the padding of a slab, or inside an inode cache's
 * object away from its inode. NULL, or why not (malloc'd).
 */
static char *not_inode_by_slab(const struct idd_slab_obj *o)
{
	if (!o->in_slab || !o->name[0])
		return NULL; /* no word, or a cache whose name is gone */
	if (!o->in_object)
		return idd_strdup_printf("it is in the padding of a slab of "
					 "kmem_cache \"%s\" (slab 0x%llx), in no "
					 "object", o->name,
					 (unsigned long long)o->slab);
	if (!o->ic)
		return idd_strdup_printf(
			"it is in an object of kmem_cache \"%s\" (0x%llx + "
			"0x%llx, object size %llu), a cache that holds no "
			"inodes", o->name, (unsigned long long)o->start,
			(unsigned long long)o->offset,
			(unsigned long long)o->object_size);
	if (o->inode_known && o->offset != o->inode_offset)
		return idd_strdup_printf(
			"it is inside a struct %s of kmem_cache \"%s\" (0x%llx "
			"+ 0x%llx), whose inode is at 0x%llx: decode that "
			"address", (o->inode_type[0] ? o->inode_type : o->ic->type), o->name,
			(unsigned long long)o->start,
			(unsigned long long)o->offset,
			(unsigned long long)(o->start + o->inode_offset));
	return NULL;
}

struct inodedump_error *inodedump_prepare(struct inodedump *id)
{
	struct inodedump_error *err;

	if (!id)
		return idd_error(INODEDUMP_ERR_USAGE, "inodedump_prepare: NULL");
	uint64_t task;

	if ((err = idd_session_need_types(id)))
		return err;
	if ((err = idd_layout_ready(id)))
		return err;
	/* A kernel whose paths cannot be walked: each decode says so. */
	inodedump_error_free(idd_paths_ready(id));
	/*
	 * The slab allocator's types, which every decode's first step needs:
	 * asked about an address that is in no slab (init_task, in the
	 * kernel image), only the types and its struct page are read.
	 */
	if (idd_symbols_address(id->syms, "init_task", &task)) {
		struct idd_slab_obj o;

		err = idd_slab_object(id, task, IDD_SLAB_NO_TYPES, &o);
		if (!err)
			idd_slab_obj_clear(&o);
		inodedump_error_free(err);
	}
	return NULL;
}

struct inodedump_error *inodedump_decode(struct inodedump *id, uint64_t address,
					 unsigned int flags,
					 struct inodedump_inode **out)
{
	struct idd_slab_obj o;
	struct inodedump_error *err;
	char *why;

	if (!id || !out)
		return idd_error(INODEDUMP_ERR_USAGE, "inodedump_decode: NULL");
	if ((err = idd_session_need_types(id)))
		return err;
	/* ERR_PTR values are said by idd_decode(), before any read */
	if (address >= (uint64_t)-4095)
		return idd_decode(id, address, flags, NULL, out, NULL);
	err = idd_slab_object(id, address, IDD_SLAB_NO_TYPES, &o);
	if (err)
		return err;
	why = not_inode_by_slab(&o);
	if (why && !(flags & INODEDUMP_DECODE_FORCE)) {
		err = idd_error_at(INODEDUMP_ERR_NOT_INODE, address,
				   "0x%llx does not look like a struct inode: "
				   "%s (--force decodes it anyway)",
				   (unsigned long long)address, why);
		free(why);
		idd_slab_obj_clear(&o);
		return err;
	}
	err = idd_decode(id, address, flags, &o, out, NULL);
	if (err && err->code == INODEDUMP_ERR_NOT_INODE && o.in_slab &&
	    o.state == INODEDUMP_SLAB_FREE)
		err = idd_error_wrap(err, "0x%llx is in a freed object of "
				     "kmem_cache \"%s\" (0x%llx, %s)",
				     (unsigned long long)address,
				     o.name[0] ? o.name : "?",
				     (unsigned long long)o.start, o.where);
	if (!err && why && !(*out)->not_inode_reason) {
		(*out)->forced = true;
		(*out)->not_inode_reason = why;
		why = NULL;
	}
	free(why);
	idd_slab_obj_clear(&o);
	return err;
}

/* The slab's word on the inode's address, kept with it. */
static struct inodedump_error *keep_slab(struct inodedump_inode *ino,
					 const struct idd_slab_obj *o)
{
	if (o && !o->in_slab && o->unknown) /* its struct page unread */
		return idd_note_incomplete(ino, INODEDUMP_PART_FIELDS, "slab",
					   false, 0, "whether it is in a slab "
					   "object: %s", o->unknown);
	if (!o || !o->in_slab)
		return NULL;
	ino->slab.known = true;
	ino->slab.object = o->start;
	ino->slab.offset = o->offset;
	ino->slab.state = o->state;
	if (o->ic && !(ino->slab.type = idd_arena_strdup(
			       &ino->arena, o->inode_type[0] ? o->inode_type
							      : o->ic->type)))
		return idd_nomem();
	if ((o->name[0] &&
	     !(ino->slab.cache = idd_arena_strdup(&ino->arena, o->name))) ||
	    (o->state == INODEDUMP_SLAB_FREE &&
	     !(ino->slab.where = idd_arena_strdup(&ino->arena, o->where))) ||
	    (o->unknown &&
	     !(ino->slab.unread = idd_arena_strdup(&ino->arena, o->unknown))))
		return idd_nomem();
	/* what the slab allocator could not tell: a part not read in full */
	if (o->unknown)
		return idd_note_incomplete(ino, INODEDUMP_PART_FIELDS, "slab",
					   false, 0, "%s", o->unknown);
	return NULL;
}

/*
 * The filesystem of an inode whose superblock the writer left out: its
 * slab cache's (a table row), else the module that defines its i_op, else
 * nothing. Said to be inferred.
 */
static struct inodedump_error *infer_fs(struct inodedump *id,
					struct inodedump_inode *ino,
					const struct idd_slab_obj *o)
{
	char *from = NULL;
	const char *fs;

	if (!(o && o->ic && o->ic->fs && o->name[0]))
		inodedump_error_free(name_ops(id, ino));
	if (o && o->ic && o->ic->fs && o->name[0]) {
		ino->fs_inferred = o->ic->fs;
		from = idd_strdup_printf("its slab cache %s", o->name);
	} else if (ino->i_op.state == IDD_OK && ino->i_op.module &&
		   ino->i_op.symbol) {
		ino->fs_inferred = ino->i_op.module;
		from = idd_strdup_printf("the module of its i_op %s",
					 ino->i_op.symbol);
	} else if (ino->i_op.state == IDD_OK &&
		   (fs = idd_fs_of_builtin_ops(ino->i_op.symbol))) {
		ino->fs_inferred = fs;
		from = idd_strdup_printf("its i_op %s, built in, used by %s "
					 "alone", ino->i_op.symbol, fs);
	} else if (ino->i_fop.state == IDD_OK &&
		   (fs = idd_fs_of_builtin_ops(ino->i_fop.symbol))) {
		ino->fs_inferred = fs;
		from = idd_strdup_printf("its i_fop %s, built in, used by %s "
					 "alone", ino->i_fop.symbol, fs);
	} else {
		return NULL;
	}
	if (!from)
		return idd_nomem();
	ino->fs_inferred_from = idd_arena_strdup(&ino->arena, from);
	free(from);
	return ino->fs_inferred_from ? NULL : idd_nomem();
}

/*
 * The superblock was left out by the dump's writer, not wrong: is the
 * rest an inode? Yes when the slab allocator says the address is the
 * inode of an inode cache's object; or its mode is a file type and it is
 * in an inode cache's object (where in it no vmlinux type says: a
 * module's) or its i_op names an operations table.
 */
static bool inode_without_sb(struct inodedump *id, struct inodedump_inode *ino,
			     const struct idd_slab_obj *o)
{
	if (!ino->sb_filtered)
		return false;
	if (o && o->in_slab && o->in_object && o->ic && o->inode_known &&
	    o->offset == o->inode_offset)
		return true;
	if (idd_mode_type((unsigned)ino->mode.v) == INODEDUMP_INODE_INVALID)
		return false;
	/* an object of an inode cache whose struct no vmlinux type gives */
	if (o && o->in_slab && o->in_object && o->ic && !o->inode_known)
		return true;
	inodedump_error_free(name_ops(id, ino));
	return ino->i_op.state == IDD_OK && ino->i_op.symbol &&
	       strstr(ino->i_op.symbol, "op");
}

/* Does it look like an inode? NULL, or why not (malloc'd) in *why. */
static struct inodedump_error *plausible(struct inodedump *id,
					 struct inodedump_inode *ino,
					 const struct idd_slab_obj *o,
					 char **why)
{
	struct inodedump_error *err = decode_sb(id, ino, why);
	char *both;

	if (err) {
		free(*why);
		*why = NULL;
		return err;
	}
	if (*why && inode_without_sb(id, ino, o)) {
		/* a part unread (the superblock's note is in ino's errors) */
		free(*why);
		*why = NULL;
		return infer_fs(id, ino, o);
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

/* The filesystem rows that are pointers named by their symbol. */
static struct inodedump_error *name_fs_syms(struct inodedump *id,
					   struct inodedump_inode *ino)
{
	for (size_t i = 0; i < ino->fs.n; i++) {
		struct idd_fs_value *v = &ino->fs.v[i];
		struct inodedump_error *err;
		char *name = NULL, *module = NULL;

		if (v->row->kind != IDD_FS_SYM || v->state != IDD_OK || !v->v)
			continue;
		/* vmlinux's symbols first, then the caller's and modules' */
		err = idd_symbols_names(id->syms, &v->v, 1, &name);
		if (!err && !name)
			err = idd_session_symbol(id, v->v, &name, &module);
		if (err && idd_error_is_nomem(err))
			return err;
		inodedump_error_free(err);
		free(module);
		v->s = name ? idd_arena_strdup(&ino->arena, name) : NULL;
		v->s_owned = true;
		err = name && !v->s ? idd_nomem() : NULL;
		free(name);
		if (err)
			return err;
	}
	return NULL;
}

/* A holder's file's f_op that vmlinux does not name: a module's. */
static struct inodedump_error *name_holder_files(struct inodedump *id,
						 struct inodedump_inode *ino)
{
	for (size_t i = 0; i < ino->nholders; i++) {
		struct idd_holder *h = &ino->holders[i];
		char *name = NULL, *module = NULL;
		struct inodedump_error *err;

		if (h->f_op[0] || !h->f_op_addr)
			continue;
		err = idd_session_symbol(id, h->f_op_addr, &name, &module);
		if (err && idd_error_is_nomem(err))
			return err;
		inodedump_error_free(err);
		if (name)
			snprintf(h->f_op, sizeof(h->f_op), "%s", name);
		free(name);
		free(module);
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
	if (!(flags & INODEDUMP_DECODE_NO_FS) &&
	    ((err = idd_decode_fs(id, ino)) || (err = idd_fs_derive(id, ino)) ||
	     (err = name_fs_syms(id, ino))))
		return err;
	if (!ino->forced && !(flags & INODEDUMP_DECODE_NO_PATHS) &&
	    (err = idd_decode_paths(id, ino)))
		return err;
	if ((flags & INODEDUMP_DECODE_HOLDERS) &&
	    ((err = idd_decode_holders(id, ino)) ||
	     (err = name_holder_files(id, ino))))
		return err;
	idd_checks_run(&id->layout->facts, ino);
	note_unreadable_checks(id, ino);
	return NULL;
}

struct inodedump_error *idd_decode(struct inodedump *id, uint64_t address,
				   unsigned int flags,
				   const struct idd_slab_obj *slab,
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
		err = keep_slab(ino, slab);
	if (!err)
		err = plausible(id, ino, slab, &why);
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
