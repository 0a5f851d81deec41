/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode: a sweep on two threads (sweep_pipe.c): the walk and its decoding
 * on a worker, the callbacks on the caller's thread, in order.
 */
#ifndef IDD_DECODE_SWEEP_PIPE_H
#define IDD_DECODE_SWEEP_PIPE_H

#include <pthread.h>
#include <stdbool.h>

#include "inodedump.h"

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

/* A superblock's strings (NULL allowed). */
void idd_pipe_free_names(struct pipe_sb *names);
/*
 * Queue one event (an inode, or with ino NULL the superblock's) with the
 * superblock's strings; false when out of memory (not queued).
 */
bool idd_pipe_event(struct pipe *p, struct inodedump_inode *ino,
		    struct pipe_sb *names, const struct inodedump_sweep_sb *sb);
/*
 * walk(arg, pipe) on a worker thread, queueing its events in the pipe,
 * while the callbacks run here on them in order; walk(arg, NULL) here
 * when no second thread can run. *orphan: strings of a walk cut short,
 * freed after the join. Returns walk's error.
 */
typedef struct inodedump_error *(*idd_pipe_walk_fn)(void *arg, struct pipe *p);
struct inodedump_error *idd_pipe_run(idd_pipe_walk_fn walk, void *arg,
				     struct pipe_sb **orphan,
				     inodedump_sweep_inode_fn on_inode,
				     inodedump_sweep_sb_fn on_sb, void *cb_arg);

#endif
