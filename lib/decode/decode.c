// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Decode: open a dump with its vmlinux, read one struct inode, check that it
 * is one, decode every member this kernel has, and run the VFS checks.
 */
#include <ctype.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "decode/inode.h"

#include "checks/checks.h"
#include "decode/layout.h"

/* -------------------------------------------------------------- layout -- */

static void find_time(struct idd_types *t, const struct idd_struct *inode,
		      const char *which, struct member_time *out)
{
	char sec[32], nsec[32];

	/* 6.11+: i_atime_sec / i_atime_nsec */
	snprintf(sec, sizeof(sec), "i_%s_sec", which);
	snprintf(nsec, sizeof(nsec), "i_%s_nsec", which);
	idd_types_member(t, inode, sec, &out->sec);
	idd_types_member(t, inode, nsec, &out->nsec);
	if (out->sec.present)
		return;
	/* 6.6-6.10: struct timespec64 __i_atime; before: i_atime */
	for (int hidden = 1; hidden >= 0; hidden--) {
		snprintf(sec, sizeof(sec), "%si_%s.tv_sec", hidden ? "__" : "",
			 which);
		snprintf(nsec, sizeof(nsec), "%si_%s.tv_nsec", hidden ? "__" : "",
			 which);
		idd_types_member(t, inode, sec, &out->sec);
		idd_types_member(t, inode, nsec, &out->nsec);
		if (out->sec.present) {
			out->timespec = true;
			return;
		}
	}
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
	l->state[l->nstate].name = name;
	l->state[l->nstate].value = (uint64_t)value;
	l->nstate++;
}

static struct inodedump_error *build_layout(struct inodedump *id)
{
	struct idd_types *t = id->types;
	struct inode_layout *l = calloc(1, sizeof(*l));
	struct inodedump_error *err;
	struct idd_vfs_evidence ev = { .version = id->version };
	static const char *const which[3] = { "atime", "mtime", "ctime" };

	if (!l)
		return idd_nomem();
	err = idd_types_struct(t, "inode", &l->inode);
	if (err) {
		free(l);
		return err;
	}
#define M(field, path) idd_types_member(t, &l->inode, path, &l->field)
	M(i_mode, "i_mode");
	M(i_opflags, "i_opflags");
	M(i_uid, "i_uid.val");
	M(i_gid, "i_gid.val");
	M(i_flags, "i_flags");
	M(i_op, "i_op");
	M(i_sb, "i_sb");
	M(i_mapping, "i_mapping");
	M(i_ino, "i_ino");
	M(i_nlink, "i_nlink");
	M(i_rdev, "i_rdev");
	M(i_size, "i_size");
	M(i_generation, "i_generation");
	M(i_bytes, "i_bytes");
	M(i_blkbits, "i_blkbits");
	M(i_blocks, "i_blocks");
	M(i_state, "i_state");
	M(i_count, "i_count.counter");
	M(i_writecount, "i_writecount.counter");
	M(i_version, "i_version.counter");
	M(i_fop, "i_fop");
	M(i_data, "i_data");
	M(i_link, "i_link");
	M(i_pipe, "i_pipe");
	M(i_cdev, "i_cdev");
	M(i_dir_seq, "i_dir_seq");
	M(i_linklen, "i_linklen");
	M(i_sb_list_next, "i_sb_list.next");
	M(i_dentry_first, "i_dentry.first");
#undef M
	if (!l->i_mode.present || !l->i_sb.present) {
		free(l);
		return idd_error(INODEDUMP_ERR_TYPE,
				 "struct inode in %s has no i_mode or i_sb: "
				 "not a Linux vmlinux?",
				 id->vmlinux);
	}
	/* 6.19: i_state became a struct holding the enum __state. */
	if (l->i_state.present && l->i_state.kind == IDD_KIND_STRUCT)
		idd_types_member(t, &l->inode, "i_state.__state", &l->i_state);
	for (int i = 0; i < 3; i++)
		find_time(t, &l->inode, which[i], &l->times[i]);

	if (!idd_types_pointee_struct(t, &l->i_sb, &l->sb)) {
		l->have_sb = true;
		idd_types_member(t, &l->sb, "s_id", &l->s_id);
		idd_types_member(t, &l->sb, "s_type", &l->s_type);
		idd_types_member(t, &l->sb, "s_dev", &l->s_dev);
		idd_types_member(t, &l->sb, "s_magic", &l->s_magic);
		idd_types_member(t, &l->sb, "s_op", &l->s_op);
		if (l->s_type.present &&
		    !idd_types_pointee_struct(t, &l->s_type, &l->fstype)) {
			l->have_fstype = true;
			idd_types_member(t, &l->fstype, "name", &l->fs_name);
		}
	}
	if (l->i_data.present && l->i_data.kind == IDD_KIND_STRUCT) {
		struct idd_struct mapping = { .die = l->i_data.type,
					      .size = l->i_data.size };

		idd_types_member(t, &mapping, "a_ops", &l->a_ops);
		idd_types_member(t, &mapping, "nrpages", &l->nrpages);
	}

	ev.has_linklen = l->i_linklen.present;
	l->niop = idd_vfs_iop_flags(&ev, l->iop, MAX_FLAGS);
	l->niflags = idd_vfs_inode_flags(&ev, l->iflags, MAX_FLAGS);
	if (l->i_state.present) {
		struct enum_collect c = { l };

		idd_types_member_enum(&l->i_state, collect_state_enumerator, &c);
		l->state_from_dwarf = l->nstate > 0;
		if (!l->state_from_dwarf)
			l->nstate = idd_vfs_state_flags(&ev, l->state, MAX_FLAGS);
	}
	for (size_t i = 0; i < l->niop; i++)
		if (!strcmp(l->iop[i].name, "IOP_CACHED_LINK"))
			l->cached_link = l->iop[i].value;
	id->layout = l;
	return NULL;
}

/* -------------------------------------------------------------- decode -- */

void idd_notes_add(struct idd_notes *notes, const char *name, bool has_address,
		   uint64_t address, const char *fmt, ...)
{
	struct idd_note *v = realloc(notes->v, (notes->n + 1) * sizeof(*v));
	va_list ap;
	char *msg = NULL;

	if (!v)
		return;
	notes->v = v;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	v[notes->n].name = strdup(name);
	v[notes->n].message = msg;
	v[notes->n].has_address = has_address;
	v[notes->n].address = address;
	notes->n++;
}

static void note_error(struct inodedump_inode *ino, const char *what,
		       struct inodedump_error *err)
{
	uint64_t addr = 0;
	bool has = inodedump_error_address(err, &addr);

	idd_notes_add(&ino->errors, what, has, addr, "%s",
		      inodedump_error_message(err));
	inodedump_error_free(err);
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

static bool memo_get(struct inodedump *id, uint64_t addr, char **symbol,
		     char **module)
{
	bool found;
	struct sym_memo *e = memo_slot(id, addr, &found);

	if (!found)
		return false;
	*symbol = e->symbol ? strdup(e->symbol) : NULL;
	*module = e->module ? strdup(e->module) : NULL;
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

/* A pointer member; name_ops() later names the operations tables. */
static void take_ptr(struct inodedump *id, struct idd_ptr *out,
		     const struct idd_member *m, const uint8_t *buf)
{
	if (!m->present) {
		out->state = IDD_ABSENT;
		return;
	}
	out->state = IDD_OK;
	out->addr = idd_member_uval(m, buf);
	(void)id;
}

/*
 * Name an inode's operations pointers: remembered answers first, then one
 * pass over vmlinux's symbols for all the rest, then the modules.
 */
static struct inodedump_error *name_ops(struct inodedump *id,
					struct inodedump_inode *ino)
{
	struct inodedump_error *err;
	struct idd_ptr *ops[] = { &ino->i_op, &ino->i_fop, &ino->a_ops,
				  &ino->s_op };
	uint64_t want[4];
	char *names[4] = { NULL };
	struct idd_ptr *pending[4];
	size_t n = 0;

	for (size_t i = 0; i < 4; i++) {
		struct idd_ptr *p = ops[i];

		if (p->state != IDD_OK || !p->addr || p->symbol)
			continue;
		if (memo_get(id, p->addr, &p->symbol, &p->module))
			continue;
		pending[n] = p;
		want[n++] = p->addr;
	}
	if (!n)
		return NULL;
	err = idd_symbols_names(id->syms, want, n, names);
	for (size_t i = 0; !err && i < n; i++) {
		struct idd_ptr *p = pending[i];

		p->symbol = names[i];
		names[i] = NULL;
		if (!p->symbol) {
			err = idd_session_symbol(id, p->addr, &p->symbol,
						 &p->module);
			/* An unreadable module symbol leaves it unnamed. */
			if (!idd_error_is_nomem(err)) {
				inodedump_error_free(err);
				err = NULL;
			}
		}
		if (!err)
			memo_put(id, p->addr, p->symbol, p->module);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
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

/* The superblock part; returns why it does not look like one, or NULL. */
static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

void idd_free_sb_memo(struct sb_memo *m)
{
	free(m->s_id);
	free(m->fs_type);
	free(m->s_op_symbol);
	free(m->s_op_module);
	memset(m, 0, sizeof(*m));
}

/* Inodes of one superblock come in runs: remember the last good one. */
static bool sb_from_memo(struct inodedump *id, struct inodedump_inode *ino)
{
	const struct sb_memo *m = &id->sb_memo;

	if (!m->valid || m->addr != ino->sb.addr)
		return false;
	ino->s_id.state = IDD_OK;
	ino->s_id.s = dup_or_null(m->s_id);
	ino->fs_type.state = IDD_OK;
	ino->fs_type.s = dup_or_null(m->fs_type);
	ino->s_dev = (struct idd_num){ m->has_dev ? IDD_OK : IDD_ABSENT, m->s_dev };
	ino->s_magic = (struct idd_num){ m->has_magic ? IDD_OK : IDD_ABSENT,
					 m->s_magic };
	ino->s_op.state = m->has_op ? IDD_OK : IDD_ABSENT;
	ino->s_op.addr = m->s_op;
	ino->s_op.symbol = dup_or_null(m->s_op_symbol);
	ino->s_op.module = dup_or_null(m->s_op_module);
	return true;
}

static void sb_to_memo(struct inodedump *id, const struct inodedump_inode *ino)
{
	struct sb_memo *m = &id->sb_memo;

	/* A memory image may change under us (fuzzers): no memo there. */
	if (ino->s_id.state != IDD_OK || ino->fs_type.state != IDD_OK ||
	    idd_target_is_memory(id->target))
		return;
	idd_free_sb_memo(m);
	m->addr = ino->sb.addr;
	m->s_id = dup_or_null(ino->s_id.s);
	m->fs_type = dup_or_null(ino->fs_type.s);
	m->has_dev = ino->s_dev.state == IDD_OK;
	m->s_dev = ino->s_dev.v;
	m->has_magic = ino->s_magic.state == IDD_OK;
	m->s_magic = ino->s_magic.v;
	m->has_op = ino->s_op.state == IDD_OK;
	m->s_op = ino->s_op.addr;
	m->s_op_symbol = dup_or_null(ino->s_op.symbol);
	m->s_op_module = dup_or_null(ino->s_op.module);
	m->valid = true;
}

static char *decode_sb_memory(struct inodedump *id, struct inodedump_inode *ino);

static char *decode_sb(struct inodedump *id, struct inodedump_inode *ino)
{
	char *why;

	if (!ino->sb.addr)
		return strdup("i_sb is NULL");
	if (!id->layout->have_sb || sb_from_memo(id, ino))
		return NULL;
	why = decode_sb_memory(id, ino);
	if (!why)
		sb_to_memo(id, ino);
	return why;
}

static char *decode_sb_memory(struct inodedump *id, struct inodedump_inode *ino)
{
	struct inode_layout *l = id->layout;
	uint8_t *buf;
	struct inodedump_error *err;
	char *why = NULL;

	buf = malloc(l->sb.size);
	if (!buf)
		return NULL;
	err = idd_target_read(id->target, ino->sb.addr, buf, l->sb.size);
	if (err) {
		why = idd_strdup_printf("i_sb 0x%llx unreadable: %s",
					(unsigned long long)ino->sb.addr,
					inodedump_error_message(err));
		note_error(ino, "i_sb", err);
		free(buf);
		return why;
	}
	if (l->s_id.present && l->s_id.kind == IDD_KIND_ARRAY) {
		ino->s_id.state = IDD_OK;
		ino->s_id.s = strndup((const char *)buf + l->s_id.offset,
				      l->s_id.size);
	}
	take_num(&ino->s_dev, &l->s_dev, buf);
	take_num(&ino->s_magic, &l->s_magic, buf);
	take_ptr(id, &ino->s_op, &l->s_op, buf);
	if (l->have_fstype && l->fs_name.present) {
		uint64_t fstype = idd_member_uval(&l->s_type, buf);
		uint8_t name_ptr[8] = { 0 };
		struct idd_member rel = l->fs_name;

		err = fstype ? idd_target_read(id->target,
					       fstype + l->fs_name.offset,
					       name_ptr, l->fs_name.size)
			     : idd_error(INODEDUMP_ERR_FAULT,
					 "s_type is NULL");
		rel.offset = 0;
		if (!err) {
			uint64_t name = idd_member_uval(&rel, name_ptr);

			err = idd_target_read_string(id->target, name,
						     FS_NAME_MAX,
						     &ino->fs_type.s,
						     &ino->fs_type.truncated);
		}
		if (err) {
			ino->fs_type.state = IDD_UNREADABLE;
			why = idd_strdup_printf(
				"superblock 0x%llx: s_type->name unreadable: %s",
				(unsigned long long)ino->sb.addr,
				inodedump_error_message(err));
			note_error(ino, "s_type->name", err);
		} else {
			ino->fs_type.state = IDD_OK;
			if (ino->fs_type.truncated ||
			    !printable_name(ino->fs_type.s))
				why = idd_strdup_printf(
					"superblock 0x%llx: s_type->name is "
					"not a short printable string",
					(unsigned long long)ino->sb.addr);
		}
	}
	free(buf);
	return why;
}

static void decode_mapping(struct inodedump *id, struct inodedump_inode *ino,
			   const uint8_t *inode_buf)
{
	struct inode_layout *l = id->layout;
	uint64_t i_data = ino->address + l->i_data.offset;
	struct idd_member a_ops = l->a_ops, nrpages = l->nrpages;
	uint8_t buf[16];
	struct inodedump_error *err;

	if (ino->mapping.state != IDD_OK || !ino->mapping.addr)
		return;
	ino->mapping_is_i_data = l->i_data.present && ino->mapping.addr == i_data;
	if (ino->mapping_is_i_data) {
		/* Already read with the inode. */
		a_ops.offset += l->i_data.offset;
		nrpages.offset += l->i_data.offset;
		take_ptr(id, &ino->a_ops, &a_ops, inode_buf);
		take_num(&ino->nrpages, &nrpages, inode_buf);
		return;
	}
	const struct idd_member *parts[2] = { &l->a_ops, &l->nrpages };
	for (int i = 0; i < 2; i++) {
		struct idd_member rel = *parts[i];

		if (!rel.present || rel.size > sizeof(buf))
			continue;
		err = idd_target_read(id->target, ino->mapping.addr + rel.offset,
				      buf, rel.size);
		if (err) {
			if (i == 0)
				ino->a_ops.state = IDD_UNREADABLE;
			else
				ino->nrpages.state = IDD_UNREADABLE;
			note_error(ino, i == 0 ? "i_mapping->a_ops"
					       : "i_mapping->nrpages", err);
			continue;
		}
		rel.offset = 0;
		if (i == 0)
			take_ptr(id, &ino->a_ops, &rel, buf);
		else
			take_num(&ino->nrpages, &rel, buf);
	}
}

static void decode_union(struct inodedump *id, struct inodedump_inode *ino,
			 const uint8_t *buf)
{
	struct inode_layout *l = id->layout;
	const char *type = idd_mode_type_name((unsigned)ino->mode.v);

	ino->i_link.state = ino->i_pipe.state = ino->i_cdev.state = IDD_NA;
	ino->dir_seq.state = ino->link.state = ino->link_strlen.state = IDD_NA;
	ino->linklen.state = l->i_linklen.present ? IDD_NA : IDD_ABSENT;
	if (!strcmp(type, "symlink")) {
		take_ptr(id, &ino->i_link, &l->i_link, buf);
		take_num(&ino->linklen, &l->i_linklen, buf);
		if (ino->i_link.state == IDD_OK && ino->i_link.addr) {
			struct inodedump_error *err = idd_target_read_string(
				id->target, ino->i_link.addr, LINK_MAX_BYTES,
				&ino->link.s, &ino->link.truncated);

			if (err) {
				ino->link.state = IDD_UNREADABLE;
				note_error(ino, "i_link", err);
			} else {
				ino->link.state = IDD_OK;
				ino->link_strlen.state = IDD_OK;
				ino->link_strlen.v = (int64_t)strlen(ino->link.s);
			}
		}
	} else if (!strcmp(type, "fifo")) {
		take_ptr(id, &ino->i_pipe, &l->i_pipe, buf);
	} else if (!strcmp(type, "chardev")) {
		take_ptr(id, &ino->i_cdev, &l->i_cdev, buf);
	} else if (!strcmp(type, "directory")) {
		take_num(&ino->dir_seq, &l->i_dir_seq, buf);
	}
}

static void decode_times(struct inodedump *id, struct inodedump_inode *ino,
			 const uint8_t *buf)
{
	struct idd_time *out[3] = { &ino->atime, &ino->mtime, &ino->ctime };

	for (int i = 0; i < 3; i++) {
		take_num(&out[i]->sec, &id->layout->times[i].sec, buf);
		take_num(&out[i]->nsec, &id->layout->times[i].nsec, buf);
	}
}

static void decode_flags(struct inode_layout *l, struct inodedump_inode *ino)
{
	if (ino->opflags.state == IDD_OK)
		ino->opflags_names = idd_flag_names(l->iop, l->niop,
						    (uint64_t)ino->opflags.v);
	if (ino->flags.state == IDD_OK)
		ino->flags_names = idd_flag_names(l->iflags, l->niflags,
						  (uint64_t)ino->flags.v);
	if (ino->state.state == IDD_OK)
		ino->state_names = idd_flag_names(l->state, l->nstate,
						  (uint64_t)ino->state.v);
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

struct inodedump_error *idd_decode(struct inodedump *id, uint64_t address,
				   unsigned int flags,
				   struct inodedump_inode **out,
				   uint64_t *sb_list_next)
{
	struct inodedump_inode *ino;
	struct inodedump_error *err;
	struct inode_layout *l;
	uint8_t *buf;
	char *why;

	err = idd_layout_ready(id);
	if (err)
		return err;
	l = id->layout;
	buf = malloc(l->inode.size);
	ino = calloc(1, sizeof(*ino));
	if (!buf || !ino) {
		free(buf);
		free(ino);
		return idd_nomem();
	}
	err = idd_target_read(id->target, address, buf, l->inode.size);
	if (err) {
		free(buf);
		free(ino);
		return idd_error_wrap(err, "struct inode at 0x%llx (%llu bytes)",
				      (unsigned long long)address,
				      (unsigned long long)l->inode.size);
	}
	ino->address = address;
	/* A sweep walks s_inodes through the bytes it already has. */
	if (sb_list_next)
		*sb_list_next = l->i_sb_list_next.present
					? idd_member_uval(&l->i_sb_list_next, buf)
					: 0;
	take_num(&ino->mode, &l->i_mode, buf);
	take_ptr(id, &ino->sb, &l->i_sb, buf);
	ino->has_alias = l->i_dentry_first.present &&
			 idd_member_uval(&l->i_dentry_first, buf) != 0;
	why = decode_sb(id, ino);
	if (why && !strcmp(idd_mode_type_name((unsigned)ino->mode.v), "invalid")) {
		char *both = idd_strdup_printf(
			"%s, and i_mode 0%o is no file type", why,
			(unsigned)ino->mode.v);
		free(why);
		why = both;
	}
	if (why) {
		if (!(flags & INODEDUMP_DECODE_FORCE)) {
			err = idd_error_at(INODEDUMP_ERR_NOT_INODE, address,
					   "0x%llx does not look like a struct "
					   "inode: %s (--force decodes it "
					   "anyway)",
					   (unsigned long long)address,
					   why ? why : "?");
			free(why);
			free(buf);
			inodedump_inode_free(ino);
			return err;
		}
		ino->forced = true;
		ino->not_inode_reason = why;
	}

	take_num(&ino->opflags, &l->i_opflags, buf);
	take_num(&ino->uid, &l->i_uid, buf);
	take_num(&ino->gid, &l->i_gid, buf);
	take_num(&ino->flags, &l->i_flags, buf);
	take_num(&ino->ino, &l->i_ino, buf);
	take_num(&ino->nlink, &l->i_nlink, buf);
	take_num(&ino->rdev, &l->i_rdev, buf);
	take_num(&ino->size, &l->i_size, buf);
	take_num(&ino->generation, &l->i_generation, buf);
	take_num(&ino->bytes, &l->i_bytes, buf);
	take_num(&ino->blkbits, &l->i_blkbits, buf);
	take_num(&ino->blocks, &l->i_blocks, buf);
	take_num(&ino->state, &l->i_state, buf);
	take_num(&ino->count, &l->i_count, buf);
	take_num(&ino->writecount, &l->i_writecount, buf);
	take_num(&ino->version, &l->i_version, buf);
	take_ptr(id, &ino->i_op, &l->i_op, buf);
	take_ptr(id, &ino->i_fop, &l->i_fop, buf);
	take_ptr(id, &ino->mapping, &l->i_mapping, buf);
	decode_times(id, ino, buf);
	decode_mapping(id, ino, buf);
	decode_union(id, ino, buf);
	decode_flags(l, ino);
	err = name_ops(id, ino);
	if (!err && !ino->forced && !(flags & INODEDUMP_DECODE_NO_PATHS))
		err = idd_decode_paths(id, ino);
	if (!err && (flags & INODEDUMP_DECODE_HOLDERS))
		err = idd_decode_holders(id, ino);
	if (err) {
		free(buf);
		inodedump_inode_free(ino);
		return err;
	}
	idd_run_checks(id->layout, ino);
	free(buf);
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

static void free_notes(struct idd_notes *notes)
{
	for (size_t i = 0; i < notes->n; i++) {
		free(notes->v[i].name);
		free(notes->v[i].message);
	}
	free(notes->v);
}

void inodedump_inode_free(struct inodedump_inode *ino)
{
	if (!ino) /* before the member addresses below: NULL has none */
		return;

	struct idd_ptr *ptrs[] = { &ino->sb,	  &ino->i_op,	 &ino->i_fop,
				   &ino->a_ops,	  &ino->s_op,	 &ino->mapping,
				   &ino->i_link, &ino->i_pipe, &ino->i_cdev };

	for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) {
		free(ptrs[i]->symbol);
		free(ptrs[i]->module);
	}
	free_names(ino->opflags_names);
	free_names(ino->flags_names);
	free_names(ino->state_names);
	free(ino->fs_type.s);
	free(ino->s_id.s);
	free(ino->link.s);
	free(ino->not_inode_reason);
	free_names(ino->paths);
	free(ino->holders);
	free_notes(&ino->violations);
	free_notes(&ino->skipped);
	free_notes(&ino->errors);
	free(ino);
}

size_t inodedump_inode_violations(const struct inodedump_inode *ino)
{
	return ino->violations.n;
}

bool inodedump_inode_number(const struct inodedump_inode *ino,
			    const char *key, int64_t *value)
{
	static const struct {
		const char *key;
		size_t offset;
	} keys[] = {
#define K(name, field) { name, offsetof(struct inodedump_inode, field) }
		K("ino", ino),	       K("generation", generation),
		K("mode", mode),       K("opflags", opflags),
		K("flags", flags),     K("state", state),
		K("count", count),     K("nlink", nlink),
		K("uid", uid),	       K("gid", gid),
		K("size", size),       K("blocks", blocks),
		K("bytes", bytes),     K("blkbits", blkbits),
		K("rdev", rdev),       K("writecount", writecount),
		K("version", version), K("linklen", linklen),
		K("link_strlen", link_strlen), K("nrpages", nrpages),
		K("s_dev", s_dev),     K("s_magic", s_magic),
#undef K
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct idd_num *n;

		if (strcmp(keys[i].key, key))
			continue;
		n = (const struct idd_num *)((const char *)ino + keys[i].offset);
		if (n->state != IDD_OK)
			return false;
		*value = n->v;
		return true;
	}
	return false;
}

