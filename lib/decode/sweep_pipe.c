// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A sweep on two threads: the walk and the decoding run on a worker that
 * hands its results, in order, to the caller's thread in batches through
 * a bounded queue; the caller's thread runs the callbacks (the JSON or
 * text writer) on them and frees them. Same calls, same order, same
 * arguments: the output is the one-thread output, byte for byte. The
 * queue bounds what is in flight, so memory stays flat.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "decode/inode.h"
#include "decode/sweep_pipe.h"

/* Spent batches: their inodes, and the superblock strings of on_sb events. */
static void free_spent(struct pipe_batch *b)
{
	while (b) {
		struct pipe_batch *next = b->next;

		for (size_t i = 0; i < b->n; i++) {
			if (b->ev[i].ino)
				inodedump_inode_free(b->ev[i].ino);
			else
				idd_pipe_free_names(b->ev[i].names);
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

bool idd_pipe_event(struct pipe *p, struct inodedump_inode *ino,
		    struct pipe_sb *names, const struct inodedump_sweep_sb *sb)
{
	struct pipe_event *ev;

	if (!p->filling) {
		if (!(p->filling = malloc(sizeof(*p->filling))))
			return false;
		p->filling->n = 0;
	}
	ev = &p->filling->ev[p->filling->n++];
	ev->ino = ino;
	ev->names = names;
	ev->sb = *sb;
	if (p->filling->n == PIPE_BATCH) {
		pipe_push(p, p->filling);
		p->filling = NULL;
	}
	return true;
}

void idd_pipe_free_names(struct pipe_sb *names)
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

/* The worker of a two-thread sweep: the walk, then the last batch. */
struct worker {
	idd_pipe_walk_fn walk;
	void *arg;
	struct pipe *p;
	struct inodedump_error *err;
};

static void *walk_thread(void *arg)
{
	struct worker *k = arg;
	struct pipe *p = k->p;

	k->err = k->walk(k->arg, p);
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

struct inodedump_error *idd_pipe_run(idd_pipe_walk_fn walk, void *arg,
				     struct pipe_sb **orphan,
				     inodedump_sweep_inode_fn on_inode,
				     inodedump_sweep_sb_fn on_sb, void *cb_arg)
{
	struct pipe p = { .mu = PTHREAD_MUTEX_INITIALIZER,
			  .changed = PTHREAD_COND_INITIALIZER };
	struct worker k = { walk, arg, &p, NULL };
	pthread_t worker;

	if (!have_futex() || pthread_create(&worker, NULL, walk_thread, &k))
		return walk(arg, NULL); /* no second thread: the same, here */
	pipe_drain(&p, on_inode, on_sb, cb_arg);
	pthread_join(worker, NULL);
	free_spent(p.spent);
	idd_pipe_free_names(*orphan);
	*orphan = NULL;
	pthread_cond_destroy(&p.changed);
	pthread_mutex_destroy(&p.mu);
	return k.err;
}
