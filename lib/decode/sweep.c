// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Sweep: every inode of every superblock, decoded and checked. The walk of
 * s_inodes takes each next pointer from the inode bytes the decode already
 * read, so each inode is read once. Lists are bounded and cycles detected
 * with a visited set; a broken list ends that superblock, not the sweep.
 *
 * With two threads (opts.threads) the walk and the decoding run on a
 * worker that hands its results, in order, to the caller's thread in
 * batches through a bounded queue; the caller's thread runs the callbacks
 * (the JSON or text writer) on them and frees them. Same calls, same
 * order, same arguments: the output is the one-thread output, byte for
 * byte. The queue bounds what is in flight, so memory stays flat.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* ------------------------------------------------------------ pipe -- */

#define PIPE_BATCH 128 /* events a batch */
#define PIPE_DEPTH 8   /* batches in flight */

/* A superblock's strings, alive until its on_sb event has run. */
struct pipe_sb {
	char *fs_type, *s_id, *error, *fs_type_error;
};

/* One callback to run: on_inode (ino) or, with ino NULL, on_sb. */
struct pipe_event {
	struct inodedump_inode *ino;
	struct pipe_sb *names;
	struct inodedump_sweep_sb sb; /* as the walk had it at the event */
};

struct pipe_batch {
	size_t n;
	struct pipe_batch *next; /* on the spent list */
	struct pipe_event ev[PIPE_BATCH];
};

struct pipe {
	pthread_mutex_t mu;
	pthread_cond_t changed;
	struct pipe_batch *q[PIPE_DEPTH];
	size_t head, count;
	bool done; /* the worker has pushed its last batch */
	/*
	 * Batches whose callbacks have run: the worker frees them (and their
	 * inodes), so that the caller's thread only writes.
	 */
	struct pipe_batch *spent;
	struct pipe_batch *filling; /* the worker's */
	bool nomem;
};

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
};

static void free_names(struct pipe_sb *names);

/* Spent batches: their inodes, and the superblock strings of on_sb events. */
static void free_spent(struct pipe_batch *b)
{
	while (b) {
		struct pipe_batch *next = b->next;

		for (size_t i = 0; i < b->n; i++) {
			if (b->ev[i].ino)
				inodedump_inode_free(b->ev[i].ino);
			else
				free_names(b->ev[i].names);
		}
		free(b);
		b = next;
	}
}

static void pipe_push(struct pipe *p, struct pipe_batch *b)
{
	struct pipe_batch *spent;

	pthread_mutex_lock(&p->mu);
	while (p->count == PIPE_DEPTH)
		pthread_cond_wait(&p->changed, &p->mu);
	p->q[(p->head + p->count) % PIPE_DEPTH] = b;
	p->count++;
	spent = p->spent;
	p->spent = NULL;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->mu);
	free_spent(spent);
}

/* The next batch, or NULL when the worker is done; done: the last one. */
static struct pipe_batch *pipe_pop(struct pipe *p, struct pipe_batch *done)
{
	struct pipe_batch *b = NULL;

	pthread_mutex_lock(&p->mu);
	if (done) {
		done->next = p->spent;
		p->spent = done;
	}
	while (!p->count && !p->done)
		pthread_cond_wait(&p->changed, &p->mu);
	if (p->count) {
		b = p->q[p->head];
		p->head = (p->head + 1) % PIPE_DEPTH;
		p->count--;
		pthread_cond_broadcast(&p->changed);
	}
	pthread_mutex_unlock(&p->mu);
	return b;
}

static void pipe_flush(struct pipe *p)
{
	if (p->filling && p->filling->n)
		pipe_push(p, p->filling);
	else
		free(p->filling);
	p->filling = NULL;
}

/* Queue one event; false when out of memory (the event is not queued). */
static bool pipe_event(struct sweep_state *st, struct inodedump_inode *ino,
		       const struct inodedump_sweep_sb *sb)
{
	struct pipe *p = st->pipe;
	struct pipe_event *ev;

	if (!p->filling) {
		if (!(p->filling = malloc(sizeof(*p->filling))))
			return false;
		p->filling->n = 0;
	}
	ev = &p->filling->ev[p->filling->n++];
	ev->ino = ino;
	ev->names = st->names;
	ev->sb = *sb;
	if (p->filling->n == PIPE_BATCH) {
		pipe_push(p, p->filling);
		p->filling = NULL;
	}
	return true;
}

static void free_names(struct pipe_sb *names)
{
	if (!names)
		return;
	free(names->fs_type);
	free(names->s_id);
	free(names->error);
	free(names->fs_type_error);
	free(names);
}

/*
 * The caller's side: run the callbacks of every batch, in order, and hand
 * each batch back to the worker to free.
 */
static void pipe_drain(struct pipe *p, inodedump_sweep_inode_fn on_inode,
		       inodedump_sweep_sb_fn on_sb, void *arg)
{
	struct pipe_batch *b = NULL;

	while ((b = pipe_pop(p, b))) {
		for (size_t i = 0; i < b->n; i++) {
			struct pipe_event *ev = &b->ev[i];

			ev->sb.fs_type = ev->names->fs_type;
			ev->sb.s_id = ev->names->s_id;
			ev->sb.error = ev->names->error;
			ev->sb.fs_type_error = ev->names->fs_type_error;
			if (ev->ino) {
				if (on_inode)
					on_inode(&ev->sb, ev->ino, arg);
			} else if (on_sb) {
				on_sb(&ev->sb, arg);
			}
		}
	}
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
	if (!pipe_event(st, ino, sb)) {
		inodedump_inode_free(ino);
		return idd_nomem();
	}
	return NULL;
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
				 NULL, &ino, &next);
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
			err = emit_inode(st, out, ino);
			if (err)
				break;
		} else {
			inodedump_inode_free(ino);
		}
		node = next;
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
		free_names(names);
		return idd_nomem();
	}
	/* the caller's thread frees names after on_sb */
	st->names = names;
	if (!pipe_event(st, NULL, out)) {
		st->names = NULL;
		free_names(names);
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
		free_names(n);
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

/* super_blocks, and each superblock that passes the filters. */
static struct inodedump_error *walk_superblocks(struct walk_args *w)
{
	struct sweep_state *st = w->st;
	const struct sb_layout *l = w->l;
	struct inodedump *id = st->id;
	struct idd_visited seen = { 0 };
	uint64_t head = w->head, node;
	struct inodedump_error *err;
	uint8_t *buf = malloc(l->sb.size);
	size_t count = 0;

	if (!buf)
		return idd_nomem();
	err = idd_target_read_u64(id->target, head, &node);
	while (!err && node != head) {
		uint64_t sb_addr = node - l->s_list.offset;
		struct inodedump_sweep_sb out = { .address = sb_addr };
		char s_id[NAME_MAX_SB] = "", *fs_type = NULL;
		struct inodedump_error *fs_error;
		bool again;

		if ((err = idd_visit(&seen, node, &again)))
			break;
		if (again || ++count > MAX_SUPERBLOCKS) {
			err = idd_error_at(INODEDUMP_ERR_DUMP, node,
					   "super_blocks list loops at 0x%" PRIx64
					   ": corrupt", node);
			break;
		}
		err = idd_target_read(id->target, sb_addr, buf, l->sb.size);
		if (err)
			break;
		memcpy(s_id, buf + l->s_id.offset,
		       l->s_id.size < sizeof(s_id) ? l->s_id.size
						   : sizeof(s_id) - 1);
		fs_error = fs_type_name(id, l, buf, &fs_type);
		if (fs_error && idd_error_is_nomem(fs_error)) {
			err = fs_error;
			break;
		}
		out.fs_type = fs_type ? fs_type : "?";
		if (fs_error && w->fs)
			fs_error = idd_error_wrap(fs_error, "not walked, it may "
						  "be the %s asked for", w->fs);
		out.fs_type_error =
			fs_error ? inodedump_error_message(fs_error) : NULL;
		out.s_id = s_id;
		/*
		 * A superblock whose name is unreadable may be the one --fs
		 * asks for: it is said (not walked), never left out unsaid.
		 */
		if ((!w->fs || fs_error || !strcmp(fs_type, w->fs)) &&
		    (!w->only_sb || w->only_sb == sb_addr)) {
			struct inodedump_error *stopped = sb_names(st, &out);

			if (!stopped && !(w->fs && fs_error))
				stopped = walk_inodes(st, l, sb_addr, buf, &out);
			if (stopped && idd_error_is_nomem(stopped)) {
				/*
				 * Queued inodes of this superblock may still
				 * point at its strings: freed after the join.
				 */
				free(fs_type);
				inodedump_error_free(fs_error);
				st->orphan = st->names;
				st->names = NULL;
				err = stopped;
				break;
			}
			out.error = stopped ? inodedump_error_message(stopped)
					    : NULL;
			err = emit_sb(st, &out);
			inodedump_error_free(stopped);
		}
		free(fs_type);
		inodedump_error_free(fs_error);
		node = idd_member_uval(&l->s_list_next, buf);
	}
	idd_visited_free(&seen);
	free(buf);
	return err;
}

/* The worker of a two-thread sweep: the walk, then the last batch. */
static void *walk_thread(void *arg)
{
	struct walk_args *w = arg;
	struct pipe *p = w->st->pipe;

	w->err = walk_superblocks(w);
	pipe_flush(p);
	pthread_mutex_lock(&p->mu);
	p->done = true;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/*
 * Can threads wait for each other here? glibc's condition variables and
 * pthread_join() use futex(2); a kernel without CONFIG_FUTEX (a tiny
 * guest's, under --live) makes them abort.
 */
static bool have_futex(void)
{
#ifdef SYS_futex
	int word = 0;

	return syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL,
		       0) >= 0 || errno != ENOSYS;
#else
	return true;
#endif
}

static struct inodedump_error *walk_two_threads(struct walk_args *w)
{
	struct pipe p = { .mu = PTHREAD_MUTEX_INITIALIZER,
			  .changed = PTHREAD_COND_INITIALIZER };
	pthread_t worker;

	w->st->pipe = &p;
	if (!have_futex() || pthread_create(&worker, NULL, walk_thread, w)) {
		/* no second thread: the same sweep on this one */
		w->st->pipe = NULL;
		return walk_superblocks(w);
	}
	pipe_drain(&p, w->st->on_inode, w->st->on_sb, w->st->arg);
	pthread_join(worker, NULL);
	free_spent(p.spent);
	free_names(w->st->orphan);
	w->st->orphan = NULL;
	pthread_cond_destroy(&p.changed);
	pthread_mutex_destroy(&p.mu);
	w->st->pipe = NULL;
	return w->err;
}

struct inodedump_error *inodedump_sweep(struct inodedump *id,
					const struct inodedump_sweep_opts *opts,
					inodedump_sweep_inode_fn on_inode,
					inodedump_sweep_sb_fn on_sb, void *arg)
{
	struct sb_layout l;
	struct sweep_state st = { id, 0, 0, on_inode, on_sb, arg, NULL, NULL,
				  NULL };
	struct walk_args w = { &st, &l, NULL, 0, 0, NULL };
	struct inodedump_error *err;

	if ((err = OPTS_VALID(opts, inodedump_sweep_opts)))
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
				 "no symbol super_blocks in vmlinux");
	err = OPTS_GET(opts, threads, 0) >= 2 ? walk_two_threads(&w)
					       : walk_superblocks(&w);
	return err ? idd_error_wrap(err, "walking super_blocks") : NULL;
}
