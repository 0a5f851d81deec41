/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target: the target as its two halves see it: target.c (facts, reads)
 * and open.c (opening a dump file, choosing its backend). Nothing else
 * includes this.
 */
#ifndef IDD_TARGET_TARGET_INTERNAL_H
#define IDD_TARGET_TARGET_INTERNAL_H

#include "target/arch.h"
#include "target/backend.h"
#include "target/vmcoreinfo.h"

/* A backend's opener over a file, as idd_kdumpfile_open() (backend.h). */
typedef struct inodedump_error *idd_backend_open_fn(struct idd_target *t,
						    int fd, const char *path,
						    int dump_level,
						    const char *default_arch,
						    struct idd_backend **out);

struct idd_target {
	struct idd_backend *backend;
	/*
	 * libkdumpfile over the same file, opened when a read needs what
	 * our reader or walk cannot do (the backend has no read_virt).
	 */
	struct idd_backend *fallback;
	/* What opens it: the opener's (open.c), NULL where none can. */
	idd_backend_open_fn *open_fallback;
	bool fallback_failed;
	char *fallback_why; /* why it failed, said again on each use */
	unsigned long fallbacks; /* reads libkdumpfile did for us */
	int fd; /* the file, when a file; backends borrow it */
	char *path;
	const char *format; /* the backend's, at open */
	bool flattened;	    /* rearranged from makedumpfile's flattened format */
	bool kcore;	    /* read as /proc/kcore, on any filesystem (tests) */
	bool little_endian;
	int dump_level; /* what the diskdump header says, for libkdumpfile */
	struct idd_vmcoreinfo vmcoreinfo;
	/* What a backend found its headers break (after VMCOREINFO's). */
	char *problems[IDD_TARGET_PROBLEMS_MAX];
	size_t nproblems;
	char default_arch[32];
	/* Our page walk: 0 not tried, 1 usable, -1 not usable. */
	int walk_state;
	/* Why it is not: damage our reader found setting it up. */
	struct inodedump_error *walk_damage;
	const char *walk_why; /* why not, else (a constant or walk_buf) */
	char walk_buf[320];
	/* Why our reader did not take a file in its format (libkdumpfile did). */
	char *declined;
	unsigned declined_machine; /* an ELF machine not ours; 0: none */
	bool machine_declined;
	const struct idd_arch_ops *arch;
	union idd_arch_walk walk;
	struct idd_walk_env walk_env;
	/* What a filtered page was (the session's types know; pages.c). */
	idd_filtered_explain_fn explain;
	void *explain_arg;
	bool explaining; /* its own reads hit a filtered page: no recursion */
};

/* The byte order, from the header or the architecture (target.c). */
void idd_target_settle_order(struct idd_target *t);
/* After VMCOREINFO is read: why our reader declined, if damage (open.c). */
void idd_target_declined_say(struct idd_target *t);

#endif
