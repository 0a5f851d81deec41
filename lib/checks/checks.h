/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * checks: the VFS invariants run on every decoded inode, as a table.
 *
 * One row per invariant (checks.c): its name, the kernel condition it
 * mirrors and where, the members it reads, the facts of this kernel it
 * needs, and a pure function over a decoded inode. A test builds the inode
 * and the facts itself and runs one row alone; no dump, no type
 * information.
 */
#ifndef IDD_CHECKS_CHECKS_H
#define IDD_CHECKS_CHECKS_H

#include "decode/inode.h"

/*
 * What the checks need to know about this kernel, found once from its
 * type information: flag values (0 when this kernel has no such flag or
 * its value is unknown) and whether members exist.
 */
struct idd_check_facts {
	uint64_t iop_cached_link; /* IOP_CACHED_LINK in i_opflags */
	uint64_t iop_flctx;	  /* IOP_FLCTX in i_opflags (7.0+) */
	uint64_t i_freeing;	  /* I_FREEING in i_state */
	uint64_t i_clear;	  /* I_CLEAR in i_state */
	uint64_t i_will_free;	  /* I_WILL_FREE in i_state */
	uint64_t s_private;	  /* S_PRIVATE in i_flags */
	uint64_t s_anon_inode;	  /* S_ANON_INODE in i_flags (6.15+) */
	/* DCACHE_DIRECTORY_TYPE, what d_can_lookup() wants (enum, 6.15+) */
	uint64_t dcache_directory_type;
	bool has_i_linklen;	  /* struct inode has i_linklen (6.14+) */
	bool has_i_dentry;	  /* the i_dentry alias list can be read */
	bool has_i_flctx;	  /* struct inode has i_flctx */
};

/* Facts a row needs: one missing and the check is skipped on this kernel. */
enum idd_check_need {
	IDD_CHECK_NEEDS_I_LINKLEN = 1u << 0,	   /* has_i_linklen */
	IDD_CHECK_NEEDS_IOP_CACHED_LINK = 1u << 1, /* iop_cached_link != 0 */
	IDD_CHECK_NEEDS_IOP_FLCTX = 1u << 2,	   /* iop_flctx, has_i_flctx */
	IDD_CHECK_NEEDS_STATE_FREEING = 1u << 3,   /* i_freeing != 0 */
	IDD_CHECK_NEEDS_DENTRY_TYPE = 1u << 4,	   /* dcache_directory_type */
};

enum idd_check_verdict {
	IDD_CHECK_HOLDS,    /* nothing to say */
	IDD_CHECK_VIOLATED, /* a note in the inode's violations */
	IDD_CHECK_SKIPPED,  /* cannot be judged on this inode: a skipped note */
};

/*
 * Longest message a check writes: ~130 bytes of its own, and for a check
 * whose input could not be read, the reason the read failed.
 */
#define IDD_CHECK_MESSAGE_MAX 1024

/*
 * How a skipped note begins when the check's input could not be read
 * (never a violation: damage in the dump is no kernel bug); the decode
 * makes that a note of the session, and the run partial.
 */
#define IDD_CHECK_UNREADABLE "unreadable: "

/* What a check found, when its verdict is not IDD_CHECK_HOLDS. */
struct idd_check_finding {
	bool has_address; /* the address the message is about (e.g. i_link) */
	uint64_t address;
	char message[IDD_CHECK_MESSAGE_MAX]; /* the numbers, or why skipped */
};

typedef enum idd_check_verdict
idd_check_fn(const struct idd_check_facts *facts,
	     const struct inodedump_inode *ino,
	     struct idd_check_finding *finding);

/* One invariant. */
struct idd_check {
	const char *name;	 /* the note's name: "cached_link_length" */
	const char *condition;	 /* the kernel's assertion it mirrors */
	const char *function;	 /* the kernel function: "may_open()" */
	const char *file;	 /* that function's file in upstream 6.15+ */
	const char *members;	 /* the decoded members the check reads */
	const char *broken_when; /* what this check reports, in words */
	unsigned needs;		 /* IDD_CHECK_NEEDS_* */
	/*
	 * The skipped note's message when a need is unmet. Rows that share
	 * a reason share one note, under the first such row's name.
	 */
	const char *skip_reason;
	idd_check_fn *check;
};

/* The table, in the order checks run and notes appear. Read-only. */
const struct idd_check *idd_checks(size_t *count);
/* The row named name, or NULL. */
const struct idd_check *idd_check_find(const char *name);

/* The IDD_CHECK_NEEDS_* bits these facts satisfy. */
unsigned idd_check_facts_have(const struct idd_check_facts *facts);

/*
 * Run every row on ino: a row whose needs these facts lack adds its
 * skip_reason to ino->skipped (once per reason); otherwise its verdict
 * adds a note under its name to ino->violations or ino->skipped.
 */
void idd_checks_run(const struct idd_check_facts *facts,
		    struct inodedump_inode *ino);

#endif
