// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Sweep: every inode of every superblock, decoded and checked. The walk of
 * s_inodes takes each next pointer from the inode bytes the decode already
 * read, so each inode is read once. Lists are bounded and cycles detected
 * with a visited set; a broken list ends that superblock, not the sweep.
 *
 * A list that breaks on a page the dump lacks (-d 31 drops slab pages it
 * takes for user pages) is walked again backwards from its head, to the
 * break: super_blocks and each s_inodes. When anything broke, the inode
 * caches' slabs are walked after the lists (slab_sweep.c), and inodes of
 * a damaged or unreached superblock found only there are decoded and
 * handed over in one more event for that superblock (from_slabs).
 *
 * With two threads (opts.threads) the walk runs on a worker and the
 * callbacks on the caller's thread, in the same order (sweep_pipe.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "decode/inode.h"
#include "decode/opts.h"
#include "decode/slab.h"
#include "decode/sweep_pipe.h"

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
	struct idd_member s_list_prev, s_inodes_prev, i_sb_list_prev, i_sb;
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
	l->i_sb = i_sb;
	idd_types_member(t, &l->inode, "i_sb_list", &l->i_sb_list);
	idd_types_member(t, &l->inode, "i_sb_list.prev", &l->i_sb_list_prev);
	if ((err = idd_types_pointee_struct(t, &i_sb, &l->sb)))
		return err;
	idd_types_member(t, &l->sb, "s_list", &l->s_list);
	idd_types_member(t, &l->sb, "s_list.next", &l->s_list_next);
	idd_types_member(t, &l->sb, "s_inodes", &l->s_inodes);
	idd_types_member(t, &l->sb, "s_inodes.next", &l->s_inodes_next);
	idd_types_member(t, &l->sb, "s_list.prev", &l->s_list_prev);
	idd_types_member(t, &l->sb, "s_inodes.prev", &l->s_inodes_prev);
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
	inodedump_sweep_sb_fn on_sb;
	void *arg;
	struct pipe *pipe; /* NULL: callbacks run in the walk */
	struct pipe_sb *names; /* the superblock being walked (pipe) */
	struct pipe_sb *orphan; /* names of a walk cut short by ENOMEM */
	/* what broke: superblocks whose inodes the slabs may still give */
	struct damaged *damaged;
	size_t ndamaged, capdamaged;
	struct idd_visited listed; /* superblocks super_blocks gave */
	char *sb_list_broken; /* why super_blocks could not be read whole */
	/* two inodes of each walked superblock: where caches hold inodes */
	uint64_t *sample;
	size_t nsample, capsample;
};

/* A superblock whose s_inodes broke, or whose own bytes are not there. */
struct damaged {
	uint64_t sb;
	struct idd_visited seen; /* its s_inodes nodes the walk reached */
	uint64_t *found;	 /* inodes the slabs gave, on no walked list */
	size_t nfound, capfound, off_list;
	bool filtered_out; /* --fs / --sb: walked for counts, not shown */
};

static struct damaged *damaged_of(struct sweep_state *st, uint64_t sb)
{
	for (size_t i = 0; i < st->ndamaged; i++)
		if (st->damaged[i].sb == sb)
			return &st->damaged[i];
	return NULL;
}

/* An inode that passed the filters: now, or queued for the caller. */
static struct inodedump_error *emit_inode(struct sweep_state *st,
					  const struct inodedump_sweep_sb *sb,
					  struct inodedump_inode *ino)
{
	if (!st->pipe) {
		if (st->on_inode)
			st->on_inode(sb, ino, st->arg);
		inodedump_inode_free(ino);
		return NULL;
	}
	if (!st->on_inode) {
		inodedump_inode_free(ino);
		return NULL;
	}
	if (!idd_pipe_event(st->pipe, ino, st->names, sb)) {
		inodedump_inode_free(ino);
		return idd_nomem();
	}
	return NULL;
}

/* Remember a damaged superblock (takes seen, which may be NULL). */
static struct inodedump_error *add_damaged(struct sweep_state *st,
					   uint64_t sb, struct idd_visited *seen,
					   bool filtered_out)
{
	struct damaged *d = NULL;

	/* one entry a superblock: a later walk's nodes join the first's */
	for (size_t i = 0; i < st->ndamaged; i++)
		if (st->damaged[i].sb == sb)
			d = &st->damaged[i];
	if (d) {
		for (size_t i = 0; seen && i < seen->cap; i++) {
			bool again;
			struct inodedump_error *err;

			if (seen->slots[i] &&
			    (err = idd_visit(&d->seen, seen->slots[i], &again)))
				return err;
		}
		return NULL;
	}
	if (st->ndamaged == st->capdamaged) {
		size_t cap = st->capdamaged ? 2 * st->capdamaged : 16;
		struct damaged *n = realloc(st->damaged, cap * sizeof(*n));

		if (!n)
			return idd_nomem();
		st->damaged = n;
		st->capdamaged = cap;
	}
	d = &st->damaged[st->ndamaged++];
	memset(d, 0, sizeof(*d));
	d->sb = sb;
	d->filtered_out = filtered_out;
	if (seen) {
		d->seen = *seen;
		memset(seen, 0, sizeof(*seen));
	}
	return NULL;
}

/* An inode of the walk counted and handed over (filters applied). */
static struct inodedump_error *take_inode(struct sweep_state *st,
					  struct inodedump_sweep_sb *out,
					  struct inodedump_inode *ino)
{
	enum inodedump_inode_type type = inodedump_inode_type(ino);

	if (++out->inodes <= 2 && !out->from_slabs &&
	    st->nsample < 4096) { /* a sample, for a slab walk to learn from */
		if (st->nsample == st->capsample) {
			size_t cap = st->capsample ? 2 * st->capsample : 64;
			uint64_t *m = realloc(st->sample, cap * sizeof(*m));

			if (m) {
				st->sample = m;
				st->capsample = cap;
			}
		}
		if (st->nsample < st->capsample)
			st->sample[st->nsample++] = ino->address;
	}
	if (st->types && !(st->types & (1u << type))) {
		inodedump_inode_free(ino);
		return NULL;
	}
	out->matched++;
	out->by_type[type]++;
	if (ino->violations.n)
		out->violations++;
	return emit_inode(st, out, ino);
}

/*
 * After a break: s_inodes from its end backwards (prev pointers) to the
 * nodes already walked or to the next break; those inodes decoded in list
 * order. *back: how many. An error only for no memory.
 */
static struct inodedump_error *walk_back(struct sweep_state *st,
					 const struct sb_layout *l,
					 uint64_t head, uint64_t last,
					 struct idd_visited *seen,
					 struct inodedump_sweep_sb *out,
					 size_t *back)
{
	uint64_t *nodes = NULL, node = last,
		 prev_at = l->i_sb_list_prev.offset - l->i_sb_list.offset;
	size_t n = 0, cap = 0;
	struct inodedump_error *err = NULL;

	*back = 0;
	while (node != head && !idd_visited_has(seen, node) &&
	       n < MAX_INODES_PER_SB) {
		bool again;

		if ((err = idd_visit(seen, node, &again)))
			break;
		if (n == cap) {
			uint64_t *m = realloc(nodes, (cap = cap ? 2 * cap : 64) *
							     sizeof(*m));
			if (!m) {
				err = idd_nomem();
				break;
			}
			nodes = m;
		}
		nodes[n++] = node;
		err = idd_target_read_u64(st->id->target, node + prev_at, &node);
		if (err) {
			n--; /* its bytes are not there: the other break */
			inodedump_error_free(err);
			err = NULL;
			break;
		}
	}
	while (!err && n--) {
		struct inodedump_inode *ino = NULL;

		err = idd_decode(st->id, nodes[n] - l->i_sb_list.offset,
				 st->flags | INODEDUMP_DECODE_FORCE, NULL, &ino,
				 NULL);
		if (err && !idd_error_is_nomem(err)) {
			out->unreadable++;
			inodedump_error_free(err);
			err = NULL;
			continue;
		}
		if (!err) {
			++*back;
			err = take_inode(st, out, ino);
		}
	}
	free(nodes);
	return err;
}

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
	bool unreadable = false;

	while (node != head) {
		struct inodedump_inode *ino = NULL;
		uint64_t inode = node - l->i_sb_list.offset, next = 0;
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
				 NULL, &ino, &next);
		if (err) {
			/* Without this inode's bytes the list cannot go on. */
			if (!idd_error_is_nomem(err)) {
				out->unreadable++;
				unreadable = true;
				err = idd_error_wrap(err, "s_inodes walk stopped "
						     "after %zu inodes",
						     out->inodes);
			}
			break;
		}
		if ((err = take_inode(st, out, ino)))
			break;
		node = next;
	}
	if (unreadable && l->s_inodes_prev.present && l->i_sb_list_prev.present) {
		size_t back = 0;
		struct inodedump_error *e2 = walk_back(
			st, l, head, idd_member_uval(&l->s_inodes_prev, sb_buf),
			&seen, out, &back);

		if (e2) {
			inodedump_error_free(err);
			err = e2;
		} else if (back) {
			err = idd_error_wrap(err, "%zu more walked back from the "
					     "list's end; inodes between are "
					     "looked for in the slabs", back);
		}
	}
	if ((err && !idd_error_is_nomem(err)) ||
	    (!err && damaged_of(st, sb_addr))) {
		/* cut short, or found through the slabs: its nodes kept */
		struct inodedump_error *e2 = add_damaged(st, sb_addr, &seen, false);

		if (e2) {
			inodedump_error_free(err);
			err = e2;
		}
	}
	idd_visited_free(&seen);
	return err;
}

/* A superblock done: now, or queued with its strings for the caller. */
static struct inodedump_error *emit_sb(struct sweep_state *st,
				       struct inodedump_sweep_sb *out)
{
	struct pipe_sb *names = st->names;

	if (!st->pipe) {
		if (st->on_sb)
			st->on_sb(out, st->arg);
		return NULL;
	}
	st->names = NULL;
	if (out->error && !(names->error = strdup(out->error))) {
		idd_pipe_free_names(names);
		return idd_nomem();
	}
	/* the caller's thread frees names after on_sb */
	st->names = names;
	if (!idd_pipe_event(st->pipe, NULL, st->names, out)) {
		st->names = NULL;
		idd_pipe_free_names(names);
		return idd_nomem();
	}
	st->names = NULL;
	return NULL;
}

/* The superblock's strings for the events of its walk (pipe only). */
static struct inodedump_error *sb_names(struct sweep_state *st,
					const struct inodedump_sweep_sb *sb)
{
	struct pipe_sb *n;

	if (!st->pipe)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n || !(n->fs_type = strdup(sb->fs_type)) ||
	    !(n->s_id = strdup(sb->s_id)) ||
	    (sb->fs_type_error &&
	     !(n->fs_type_error = strdup(sb->fs_type_error)))) {
		idd_pipe_free_names(n);
		return idd_nomem();
	}
	st->names = n;
	return NULL;
}

/*
 * s_type->name of the superblock in buf: *name malloc'd, or an error that
 * says why it is not known (fault, filtered page, no such member, no
 * short printable string): never a "?" that passes for a name.
 */
static struct inodedump_error *fs_type_name(struct inodedump *id,
					    const struct sb_layout *l,
					    const uint8_t *buf, char **name)
{
	uint64_t s_type = idd_member_uval(&l->s_type, buf), at;
	struct inodedump_error *err;
	bool truncated, unprintable = false;

	*name = NULL;
	if (!l->fs_name.present)
		return idd_error(INODEDUMP_ERR_TYPE, "struct file_system_type "
				 "has no member name in this kernel's types");
	err = idd_target_read_u64(id->target, s_type + l->fs_name.offset, &at);
	if (err)
		return idd_error_wrap(err, "s_type 0x%" PRIx64 " unreadable",
				      s_type);
	err = idd_target_read_string(id->target, at, NAME_MAX_SB, name,
				     &truncated);
	if (err)
		return idd_error_wrap(err, "s_type->name 0x%" PRIx64
				      " unreadable", at);
	for (const char *p = *name; !truncated && *p; p++)
		unprintable |= (unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e;
	if (truncated || unprintable || !**name) {
		free(*name);
		*name = NULL;
		return idd_error_at(INODEDUMP_ERR_DUMP, at, "s_type->name 0x%"
				    PRIx64 " is not a short printable string",
				    at);
	}
	return NULL;
}

struct walk_args {
	struct sweep_state *st;
	const struct sb_layout *l;
	const char *fs;
	uint64_t only_sb, head;
	struct inodedump_error *err;
};

/*
 * One superblock: its names, the filters, its s_inodes walked, its event.
 * A superblock whose own bytes are not in the dump is handed over with
 * why (its inodes may come from the slabs). An error stops the sweep.
 */
static struct inodedump_error *walk_one_sb(struct walk_args *w,
					   uint64_t sb_addr, uint8_t *buf)
{
	struct sweep_state *st = w->st;
	const struct sb_layout *l = w->l;
	struct inodedump *id = st->id;
	struct inodedump_sweep_sb out = { .address = sb_addr };
	char s_id[NAME_MAX_SB] = "", *fs_type = NULL, *own = NULL;
	struct inodedump_error *fs_error = NULL, *err, *stopped = NULL;
	bool again;

	if ((err = idd_visit(&st->listed, sb_addr, &again)))
		return err;
	err = idd_target_read(id->target, sb_addr, buf, l->sb.size);
	if (err) {
		/* its s_inodes head is in those bytes: only the slabs are left */
		own = idd_strdup_printf("the superblock's own bytes are not in "
					"the dump: %s; its inodes are looked for "
					"in the slabs",
					inodedump_error_message(err));
		inodedump_error_free(err);
		if (!own)
			return idd_nomem();
		fs_error = idd_error(INODEDUMP_ERR_FILTERED, "%s", own);
	} else {
		memcpy(s_id, buf + l->s_id.offset,
		       l->s_id.size < sizeof(s_id) ? l->s_id.size
						   : sizeof(s_id) - 1);
		fs_error = fs_type_name(id, l, buf, &fs_type);
	}
	if (fs_error && idd_error_is_nomem(fs_error)) {
		free(own);
		return fs_error;
	}
	out.fs_type = fs_type ? fs_type : "?";
	if (fs_error && w->fs)
		fs_error = idd_error_wrap(fs_error, "not walked, it may be the %s "
					  "asked for", w->fs);
	out.fs_type_error = fs_error ? inodedump_error_message(fs_error) : NULL;
	out.s_id = s_id;
	/*
	 * A superblock whose name is unreadable may be the one --fs asks
	 * for: it is said (not walked), never left out unsaid.
	 */
	if ((!w->fs || fs_error || !strcmp(fs_type, w->fs)) &&
	    (!w->only_sb || w->only_sb == sb_addr)) {
		stopped = sb_names(st, &out);
		if (!stopped && own)
			stopped = add_damaged(st, sb_addr, NULL, !!w->fs);
		if (!stopped && own)
			stopped = idd_error(INODEDUMP_ERR_FILTERED, "%s", own);
		else if (!stopped && !(w->fs && fs_error))
			stopped = walk_inodes(st, l, sb_addr, buf, &out);
		if (stopped && idd_error_is_nomem(stopped)) {
			/*
			 * Queued inodes of this superblock may still point at
			 * its strings: freed after the join.
			 */
			free(fs_type);
			free(own);
			inodedump_error_free(fs_error);
			st->orphan = st->names;
			st->names = NULL;
			return stopped;
		}
		out.error = stopped ? inodedump_error_message(stopped) : NULL;
		err = emit_sb(st, &out);
		inodedump_error_free(stopped);
	}
	free(fs_type);
	free(own);
	inodedump_error_free(fs_error);
	return err;
}

/* Append a to the array (*v, *n, *cap); false: no memory. */
static bool push(uint64_t **v, size_t *n, size_t *cap, uint64_t a)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		uint64_t *m = realloc(*v, c * sizeof(*m));

		if (!m)
			return false;
		*v = m;
		*cap = c;
	}
	(*v)[(*n)++] = a;
	return true;
}

/*
 * The nodes of super_blocks in order: forward from its head; where a
 * node's link cannot be read, backward from its end to the break. What
 * broke is said in st->sb_list_broken.
 */
static struct inodedump_error *sb_list(struct walk_args *w, uint64_t **order,
				       size_t *n)
{
	struct sweep_state *st = w->st;
	const struct sb_layout *l = w->l;
	uint64_t head = w->head, node, next_at = l->s_list_next.offset -
						 l->s_list.offset,
		 prev_at = l->s_list_prev.offset - l->s_list.offset;
	struct idd_visited seen = { 0 };
	uint64_t *back = NULL;
	size_t cap = 0, nback = 0, capback = 0;
	struct inodedump_error *err, *broke;
	bool again;

	*n = 0;
	broke = idd_target_read_u64(st->id->target, head + next_at, &node);
	while (!broke && node != head) {
		if ((err = idd_visit(&seen, node, &again)))
			goto out;
		if (again || *n >= MAX_SUPERBLOCKS) {
			err = idd_error_at(INODEDUMP_ERR_DUMP, node,
					   "super_blocks list loops at 0x%" PRIx64
					   ": corrupt", node);
			goto out;
		}
		if (!push(order, n, &cap, node)) {
			err = idd_nomem();
			goto out;
		}
		broke = idd_target_read_u64(st->id->target, node + next_at, &node);
	}
	err = NULL;
	if (!broke)
		goto out;
	if (idd_error_is_nomem(broke)) {
		err = broke;
		broke = NULL;
		goto out;
	}
	/* backward from the end, to the nodes already met or the next break */
	if (l->s_list_prev.present &&
	    !(err = idd_target_read_u64(st->id->target, head + prev_at, &node))) {
		while (node != head && !idd_visited_has(&seen, node) &&
		       nback < MAX_SUPERBLOCKS) {
			struct inodedump_error *e;

			if ((err = idd_visit(&seen, node, &again)))
				goto out;
			if (!push(&back, &nback, &capback, node)) {
				err = idd_nomem();
				goto out;
			}
			e = idd_target_read_u64(st->id->target, node + prev_at,
						&node);
			if (e) {
				inodedump_error_free(e);
				break;
			}
		}
	}
	if (err && idd_error_is_nomem(err))
		goto out;
	inodedump_error_free(err); /* the end not read either: said below */
	err = NULL;
	st->sb_list_broken = idd_strdup_printf(
		"super_blocks could not be read whole (%s): %zu superblocks "
		"walked from its start, %zu back from its end",
		inodedump_error_message(broke), *n, nback);
	while (nback--)
		if (!push(order, n, &cap, back[nback])) {
			err = idd_nomem();
			goto out;
		}
	if (!st->sb_list_broken)
		err = idd_nomem();
out:
	inodedump_error_free(broke);
	free(back);
	idd_visited_free(&seen);
	return err;
}

/* ---- the slabs, when a list broke ---- */

struct slab_args {
	struct walk_args *w;
	struct inodedump_error *err;
};

/* An allocated inode of the slabs: kept when no walked list had it. */
static bool on_slab_inode(uint64_t inode, uint64_t i_sb, void *arg)
{
	struct slab_args *a = arg;
	struct sweep_state *st = a->w->st;
	uint64_t node = inode + a->w->l->i_sb_list.offset;
	struct damaged *d = damaged_of(st, i_sb);

	if (!d) {
		/* a whole list, or a superblock --fs/--sb left out */
		if (!i_sb || idd_visited_has(&st->listed, i_sb))
			return true;
		if ((a->err = add_damaged(st, i_sb, NULL, false)))
			return false;
		d = &st->damaged[st->ndamaged - 1];
	}
	if (idd_visited_has(&d->seen, node))
		return true;
	if (!push(&d->found, &d->nfound, &d->capfound, inode)) {
		a->err = idd_nomem();
		return false;
	}
	return true;
}

/* One damaged superblock's inodes from the slabs, and its event. */
static struct inodedump_error *slab_event(struct walk_args *w, struct damaged *d,
					  uint8_t *buf, size_t *found)
{
	struct sweep_state *st = w->st;
	const struct sb_layout *l = w->l;
	struct inodedump_sweep_sb out = { .address = d->sb, .from_slabs = true };
	char s_id[NAME_MAX_SB] = "", *fs_type = NULL;
	struct inodedump_error *fs_error, *err = NULL;

	if ((fs_error = idd_target_read(st->id->target, d->sb, buf, l->sb.size)))
		fs_error = idd_error_wrap(fs_error, "the superblock's own bytes "
					  "are not in the dump");
	else {
		memcpy(s_id, buf + l->s_id.offset,
		       l->s_id.size < sizeof(s_id) ? l->s_id.size
						   : sizeof(s_id) - 1);
		fs_error = fs_type_name(st->id, l, buf, &fs_type);
	}
	if (fs_error && idd_error_is_nomem(fs_error))
		return fs_error;
	out.fs_type = fs_type ? fs_type : "?";
	out.fs_type_error = fs_error ? inodedump_error_message(fs_error) : NULL;
	out.s_id = s_id;
	if ((w->fs && !fs_error && strcmp(fs_type, w->fs)) ||
	    (w->only_sb && w->only_sb != d->sb) || d->filtered_out)
		goto done;
	if ((err = sb_names(st, &out)))
		goto done;
	for (size_t i = 0; !err && !(w->fs && fs_error) && i < d->nfound; i++) {
		uint64_t node = d->found[i] + l->i_sb_list.offset, next;
		struct inodedump_inode *ino = NULL;

		if (idd_visited_has(&d->seen, node))
			continue; /* its list, walked after the slabs */
		err = idd_target_read_u64(st->id->target, node, &next);
		if (!err && next == node) { /* on no s_inodes list */
			d->off_list++;
			continue;
		}
		inodedump_error_free(err);
		err = idd_decode(st->id, d->found[i],
				 st->flags | INODEDUMP_DECODE_FORCE, NULL, &ino,
				 NULL);
		if (err && !idd_error_is_nomem(err)) {
			out.unreadable++;
			inodedump_error_free(err);
			err = NULL;
			continue;
		}
		if (!err)
			err = take_inode(st, &out, ino);
	}
	out.off_list = d->off_list;
	*found += out.inodes;
	if (!err && (out.inodes || out.off_list || out.unreadable))
		err = emit_sb(st, &out);
	else if (!err) {
		idd_pipe_free_names(st->names);
		st->names = NULL;
	}
done:
	free(fs_type);
	inodedump_error_free(fs_error);
	return err;
}

/* The inode caches' slabs, for the superblocks whose lists broke. */
static struct inodedump_error *slabs_pass(struct walk_args *w, uint8_t *buf)
{
	struct sweep_state *st = w->st;
	struct slab_args a = { w, NULL };
	struct idd_slab_sweep_stats stats;
	struct inodedump_error *err;
	size_t found = 0, nknown = 0, capknown = 0;
	uint64_t *known = NULL;

	/* inodes lists reached: where caches keep inodes */
	for (size_t i = 0; i < st->nsample; i++)
		if (!push(&known, &nknown, &capknown, st->sample[i])) {
			free(known);
			return idd_nomem();
		}
	for (size_t i = 0; i < st->ndamaged; i++) {
		const struct idd_visited *seen = &st->damaged[i].seen;
		size_t took = 0;

		for (size_t k = 0; k < seen->cap && took < 4; k++)
			if (seen->slots[k] &&
			    push(&known, &nknown, &capknown,
				 seen->slots[k] - w->l->i_sb_list.offset))
				took++;
	}
	err = idd_slab_each_inode(st->id, &w->l->i_sb, known, nknown,
				  on_slab_inode, &a, &stats);
	free(known);
	if (stats.memmap_error && !a.err && !idd_error_is_nomem(err))
		idd_session_note(st->id, "the memory map (struct pages) could not "
				 "be read in full for the slab walk: %" PRIu64
				 " pages not seen (the first read that failed: %s)",
				 stats.memmap_unread, stats.memmap_error);
	free(stats.memmap_error);
	if (a.err || err)
		free(stats.unread_by_cache);
	if (a.err) {
		inodedump_error_free(err);
		return a.err;
	}
	if (err) {
		if (idd_error_is_nomem(err))
			return err;
		idd_session_note(st->id, "lists broke on pages the dump does "
				 "not hold%s%s, and the inode caches' slabs could "
				 "not be walked: %s",
				 st->sb_list_broken ? "; " : "",
				 st->sb_list_broken ? st->sb_list_broken : "",
				 inodedump_error_message(err));
		inodedump_error_free(err);
		return NULL;
	}
	/*
	 * A superblock the slabs name that super_blocks did not give (the
	 * list broke before it): its own s_inodes walked, as any other's.
	 */
	for (size_t i = 0, n = st->ndamaged; i < n && !err; i++)
		if (!idd_visited_has(&st->listed, st->damaged[i].sb))
			err = walk_one_sb(w, st->damaged[i].sb, buf);
	for (size_t i = 0; i < st->ndamaged && !err; i++)
		err = slab_event(w, &st->damaged[i], buf, &found);
	if (err) {
		free(stats.unread_by_cache);
		return err;
	}
	idd_session_note(
		st->id,
		"lists broke on pages the dump does not hold%s%s: the inode "
		"caches' slabs were walked (%zu caches, %zu slabs, %zu "
		"allocated inodes; %zu caches' inode offset learned from an "
		"inode a list reached): %zu inodes were on no list the sweep "
		"could read; %zu allocated inode objects are not in the dump "
		"(%zu slabs whose freelist is not either; by cache: %s); not "
		"walked: %zu caches whose name is not in the dump, %zu caches "
		"of inodes whose inode offset is not known",
		st->sb_list_broken ? "; " : "",
		st->sb_list_broken ? st->sb_list_broken : "", stats.caches,
		stats.slabs, stats.objects, stats.caches_learned, found,
		stats.objects_unread, stats.slabs_unread,
		stats.unread_by_cache ? stats.unread_by_cache : "none",
		stats.caches_unnamed, stats.caches_no_offset);
	free(stats.unread_by_cache);
	return NULL;
}

/* super_blocks, and each superblock that passes the filters. */
static struct inodedump_error *walk_superblocks(struct walk_args *w)
{
	struct sweep_state *st = w->st;
	uint64_t *order = NULL;
	size_t n = 0;
	uint8_t *buf = malloc(w->l->sb.size);
	struct inodedump_error *err;

	if (!buf)
		return idd_nomem();
	err = sb_list(w, &order, &n);
	for (size_t i = 0; !err && i < n; i++)
		err = walk_one_sb(w, order[i] - w->l->s_list.offset, buf);
	if (!err && (st->ndamaged || st->sb_list_broken))
		err = slabs_pass(w, buf);
	free(order);
	free(buf);
	return err;
}

/* The walk, for idd_pipe_run(): on the worker, or here without one. */
static struct inodedump_error *walk_fn(void *arg, struct pipe *p)
{
	struct walk_args *w = arg;

	w->st->pipe = p;
	return walk_superblocks(w);
}

static struct inodedump_error *walk_two_threads(struct walk_args *w)
{
	struct inodedump_error *err;

	err = idd_pipe_run(walk_fn, w, &w->st->orphan, w->st->on_inode,
			   w->st->on_sb, w->st->arg);
	w->st->pipe = NULL;
	return err;
}

struct inodedump_error *inodedump_sweep(struct inodedump *id,
					const struct inodedump_sweep_opts *opts,
					inodedump_sweep_inode_fn on_inode,
					inodedump_sweep_sb_fn on_sb, void *arg)
{
	struct sb_layout l;
	struct sweep_state st = { .id = id, .on_inode = on_inode,
				  .on_sb = on_sb, .arg = arg };
	struct walk_args w = { &st, &l, NULL, 0, 0, NULL };
	struct inodedump_error *err;

	if ((err = OPTS_VALID(opts, inodedump_sweep_opts)) ||
	    (err = idd_session_need_types(id)))
		return err;
	st.flags = OPTS_GET(opts, flags, 0);
	st.types = OPTS_GET(opts, type_mask, 0);
	w.fs = OPTS_GET(opts, fs, NULL);
	w.only_sb = OPTS_GET(opts, sb, 0);
	if (st.types >> INODEDUMP_INODE_TYPES)
		return idd_error(INODEDUMP_ERR_USAGE,
				 "struct inodedump_sweep_opts: type_mask 0x%x "
				 "has bits of no inode type", st.types);
	if ((err = parse_types(OPTS_GET(opts, types, NULL), &st.types)) ||
	    (err = idd_layout_ready(id)) || (err = sb_layout(id, &l)))
		return err;
	idd_symbols_expect_many(id->syms);
	if (!idd_symbols_address(id->syms, "super_blocks", &w.head))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "no symbol super_blocks in %s",
				 idd_session_symbols_whence(id));
	err = OPTS_GET(opts, threads, 0) >= 2 ? walk_two_threads(&w)
					       : walk_superblocks(&w);
	for (size_t i = 0; i < st.ndamaged; i++) {
		idd_visited_free(&st.damaged[i].seen);
		free(st.damaged[i].found);
	}
	free(st.damaged);
	free(st.sample);
	idd_visited_free(&st.listed);
	free(st.sb_list_broken);
	return err ? idd_error_wrap(err, "walking super_blocks") : NULL;
}
