// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Sweep: every inode of every superblock, decoded and checked. The walk of
 * s_inodes takes each next pointer from the inode bytes the decode already
 * read, so each inode is read once. Lists are bounded and cycles detected
 * with a visited set; a broken list ends that superblock, not the sweep.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "decode/inode.h"
#include "decode/opts.h"

#define MAX_SUPERBLOCKS 65536
#define MAX_INODES_PER_SB (1u << 26)
#define NAME_MAX_SB 64

enum inodedump_inode_type
inodedump_inode_type(const struct inodedump_inode *ino)
{
	if (!ino || ino->mode.state != IDD_OK)
		return INODEDUMP_INODE_INVALID;
	return idd_mode_type((unsigned)ino->mode.v);
}

const char *inodedump_inode_type_name(enum inodedump_inode_type type)
{
	return idd_inode_type_name(type);
}

/* "symlink,regular" -> bit mask of enum inodedump_inode_type; 0 for NULL. */
static struct inodedump_error *parse_types(const char *types, unsigned *mask)
{
	for (const char *p = types; p && *p;) {
		size_t len = strcspn(p, ",");
		enum inodedump_inode_type type;

		if (!idd_inode_type_parse(p, len, &type)) {
			char known[128] = "";

			for (unsigned i = 0; i < INODEDUMP_INODE_TYPES; i++)
				snprintf(known + strlen(known),
					 sizeof(known) - strlen(known), "%s%s",
					 i ? ", " : "",
					 idd_inode_type_name(
						 (enum inodedump_inode_type)i));
			return idd_error(INODEDUMP_ERR_USAGE,
					 "unknown inode type '%.*s' (one of %s)",
					 (int)len, p, known);
		}
		*mask |= 1u << type;
		p += len + (p[len] == ',');
	}
	return NULL;
}

struct sb_layout {
	struct idd_struct sb, inode;
	struct idd_member s_list_next, s_list, s_inodes_next, s_inodes, s_type,
		s_id, fs_name, i_sb_list;
	struct idd_struct fstype;
};

static struct inodedump_error *sb_layout(struct inodedump *id,
					 struct sb_layout *l)
{
	struct idd_types *t = id->types;
	struct idd_member i_sb;
	struct inodedump_error *err;

	memset(l, 0, sizeof(*l));
	if ((err = idd_types_struct(t, "inode", &l->inode)))
		return err;
	idd_types_member(t, &l->inode, "i_sb", &i_sb);
	idd_types_member(t, &l->inode, "i_sb_list", &l->i_sb_list);
	if ((err = idd_types_pointee_struct(t, &i_sb, &l->sb)))
		return err;
	idd_types_member(t, &l->sb, "s_list", &l->s_list);
	idd_types_member(t, &l->sb, "s_list.next", &l->s_list_next);
	idd_types_member(t, &l->sb, "s_inodes", &l->s_inodes);
	idd_types_member(t, &l->sb, "s_inodes.next", &l->s_inodes_next);
	idd_types_member(t, &l->sb, "s_type", &l->s_type);
	idd_types_member(t, &l->sb, "s_id", &l->s_id);
	if (!l->s_list_next.present || !l->s_inodes_next.present ||
	    !l->i_sb_list.present || !l->s_type.present || !l->s_id.present)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "struct super_block/inode lack s_list, "
				 "s_inodes or i_sb_list: cannot sweep");
	if ((err = idd_types_pointee_struct(t, &l->s_type, &l->fstype)))
		return err;
	idd_types_member(t, &l->fstype, "name", &l->fs_name);
	return NULL;
}

struct sweep_state {
	struct inodedump *id;
	unsigned flags;
	unsigned types; /* 1u << enum inodedump_inode_type; 0: every type */
	inodedump_sweep_inode_fn on_inode;
	void *arg;
};

/*
 * Decode every inode on one superblock's s_inodes list. Returns why the
 * walk stopped early (a corrupt or unreadable list: the sweep goes on with
 * the next superblock), or NULL when it came back to the superblock.
 */
static struct inodedump_error *walk_inodes(struct sweep_state *st,
					   const struct sb_layout *l,
					   uint64_t sb_addr,
					   const uint8_t *sb_buf,
					   struct inodedump_sweep_sb *out)
{
	uint64_t head = sb_addr + l->s_inodes.offset;
	uint64_t node = idd_member_uval(&l->s_inodes_next, sb_buf);
	struct idd_visited seen = { 0 };
	unsigned flags = st->flags;
	struct inodedump_error *err = NULL;

	while (node != head) {
		struct inodedump_inode *ino = NULL;
		uint64_t inode = node - l->i_sb_list.offset, next = 0;
		enum inodedump_inode_type type;
		bool again;

		err = idd_visit(&seen, node, &again);
		if (err)
			break;
		if (again || out->inodes >= MAX_INODES_PER_SB) {
			err = idd_error_at(INODEDUMP_ERR_DUMP, node,
					   "s_inodes list loops back to 0x%" PRIx64
					   " after %zu inodes without returning "
					   "to the superblock: corrupt",
					   node, out->inodes);
			break;
		}
		err = idd_decode(st->id, inode, flags | INODEDUMP_DECODE_FORCE,
				 &ino, &next);
		if (err) {
			/* Without this inode's bytes the list cannot go on. */
			out->unreadable++;
			err = idd_error_wrap(err, "s_inodes walk stopped after "
					     "%zu inodes", out->inodes);
			break;
		}
		out->inodes++;
		type = inodedump_inode_type(ino);
		if (!st->types || (st->types & (1u << type))) {
			out->matched++;
			out->by_type[type]++;
			if (ino->violations.n)
				out->violations++;
			if (st->on_inode)
				st->on_inode(out, ino, st->arg);
		}
		inodedump_inode_free(ino);
		node = next;
	}
	idd_visited_free(&seen);
	return err;
}

struct inodedump_error *inodedump_sweep(struct inodedump *id,
					const struct inodedump_sweep_opts *opts,
					inodedump_sweep_inode_fn on_inode,
					inodedump_sweep_sb_fn on_sb, void *arg)
{
	struct sb_layout l;
	struct sweep_state st = { id, 0, 0, on_inode, arg };
	struct inodedump_error *err;
	struct idd_visited seen = { 0 };
	const char *fs = OPTS_GET(opts, fs, NULL);
	uint64_t only_sb = OPTS_GET(opts, sb, 0);
	uint64_t head, node;
	uint8_t *buf = NULL;
	size_t count = 0;

	if ((err = OPTS_VALID(opts, inodedump_sweep_opts)))
		return err;
	st.flags = OPTS_GET(opts, flags, 0);
	st.types = OPTS_GET(opts, type_mask, 0);
	if (st.types >> INODEDUMP_INODE_TYPES)
		return idd_error(INODEDUMP_ERR_USAGE,
				 "struct inodedump_sweep_opts: type_mask 0x%x "
				 "has bits of no inode type", st.types);
	if ((err = parse_types(OPTS_GET(opts, types, NULL), &st.types)) ||
	    (err = idd_layout_ready(id)) || (err = sb_layout(id, &l)))
		return err;
	idd_symbols_expect_many(id->syms);
	if (!idd_symbols_address(id->syms, "super_blocks", &head))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "no symbol super_blocks in vmlinux");
	buf = malloc(l.sb.size);
	if (!buf)
		return idd_nomem();
	err = idd_target_read_u64(id->target, head, &node);
	while (!err && node != head) {
		uint64_t sb_addr = node - l.s_list.offset;
		struct inodedump_sweep_sb out = { .address = sb_addr };
		char s_id[NAME_MAX_SB] = "", *fs_type = NULL;
		uint64_t name;
		bool truncated, again;

		if ((err = idd_visit(&seen, node, &again)))
			break;
		if (again || ++count > MAX_SUPERBLOCKS) {
			err = idd_error_at(INODEDUMP_ERR_DUMP, node,
					   "super_blocks list loops at 0x%" PRIx64
					   ": corrupt", node);
			break;
		}
		err = idd_target_read(id->target, sb_addr, buf, l.sb.size);
		if (err)
			break;
		memcpy(s_id, buf + l.s_id.offset,
		       l.s_id.size < sizeof(s_id) ? l.s_id.size : sizeof(s_id) - 1);
		if (l.fs_name.present) {
			struct inodedump_error *e2 = idd_target_read_u64(
				id->target,
				idd_member_uval(&l.s_type, buf) + l.fs_name.offset,
				&name);

			if (!e2)
				e2 = idd_target_read_string(id->target, name, 64,
							    &fs_type, &truncated);
			inodedump_error_free(e2);
		}
		out.fs_type = fs_type ? fs_type : "?";
		out.s_id = s_id;
		if ((!fs || (fs_type && !strcmp(fs_type, fs))) &&
		    (!only_sb || only_sb == sb_addr)) {
			struct inodedump_error *stopped =
				walk_inodes(&st, &l, sb_addr, buf, &out);

			if (stopped && idd_error_is_nomem(stopped)) {
				free(fs_type);
				err = stopped;
				break;
			}
			out.error = stopped ? inodedump_error_message(stopped)
					    : NULL;
			if (on_sb)
				on_sb(&out, arg);
			inodedump_error_free(stopped);
		}
		free(fs_type);
		node = idd_member_uval(&l.s_list_next, buf);
	}
	idd_visited_free(&seen);
	free(buf);
	return err ? idd_error_wrap(err, "walking super_blocks") : NULL;
}
