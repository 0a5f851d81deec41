/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * inodedump: complete the kernel's dump_inode() on the host side.
 *
 * Open a vmcore with the vmlinux of the kernel that wrote it, then decode a
 * struct inode at a kernel address: every member this kernel has, named as
 * the kernel names it, with the VFS invariants it breaks.
 *
 * Every fallible call returns a struct inodedump_error * (NULL on success).
 * The caller owns it and frees it with inodedump_error_free().
 */
#ifndef INODEDUMP_H
#define INODEDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define INODEDUMP_API __attribute__((visibility("default")))
#else
#define INODEDUMP_API
#endif

#define INODEDUMP_JSON_SCHEMA 1

/* What went wrong, coarsely; the message says the rest. */
enum inodedump_error_code {
	INODEDUMP_ERR_NOMEM = 1,
	INODEDUMP_ERR_USAGE,	 /* bad argument from the caller */
	INODEDUMP_ERR_DUMP,	 /* the dump cannot be opened or is corrupt */
	INODEDUMP_ERR_VMLINUX,	 /* vmlinux unreadable, or without DWARF */
	INODEDUMP_ERR_MISMATCH,	 /* vmlinux is not the dump's kernel */
	INODEDUMP_ERR_TYPE,	 /* a type or member this work needs is absent */
	INODEDUMP_ERR_FAULT,	 /* address not in the dump / not mapped */
	INODEDUMP_ERR_FILTERED,	 /* page excluded from the dump by its writer */
	INODEDUMP_ERR_NOT_INODE, /* the address fails the inode plausibility checks */
};

struct inodedump_error;

INODEDUMP_API enum inodedump_error_code
inodedump_error_code(const struct inodedump_error *err);
INODEDUMP_API const char *
inodedump_error_message(const struct inodedump_error *err);
/* The kernel address whose read failed; false when none applies. */
INODEDUMP_API bool inodedump_error_address(const struct inodedump_error *err,
					   uint64_t *address);
INODEDUMP_API void inodedump_error_free(struct inodedump_error *err);

/*
 * Options for inodedump_open(). Declare with INODEDUMP_OPTS() so that sz is
 * set and every other field zero, then set the fields you need: fields added
 * later stay zero for old callers.
 */
struct inodedump_open_opts {
	size_t sz;
	/*
	 * vmlinux with DWARF. NULL: found by the dump's release under
	 * /usr/lib/debug/boot, /usr/lib/debug/lib/modules/R, /boot,
	 * /lib/modules/R/build (each below debug_root when set).
	 */
	const char *vmlinux;
	/* Open even if VMCOREINFO's BUILD-ID differs from vmlinux's. */
	bool ignore_build_id;
	/* A directory laid out like / to look for vmlinux in (NULL: /). */
	const char *debug_root;
};

#define INODEDUMP_OPTS(TYPE, NAME) struct TYPE NAME = { .sz = sizeof(struct TYPE) }

/*
 * A caller's memory (a drgn or crash session, a test): read count bytes at
 * address into buf. address is a kernel virtual address, or a physical one
 * when physical is true. Return 0 when every byte was read, else the
 * reason: INODEDUMP_ERR_FAULT (not in memory or not mapped) or
 * INODEDUMP_ERR_FILTERED (left out of the dump by its writer).
 */
typedef int (*inodedump_read_fn)(void *buf, uint64_t address, size_t count,
				 bool physical, void *arg);

struct inodedump;

INODEDUMP_API struct inodedump_error *
inodedump_open(const char *vmcore, const struct inodedump_open_opts *opts,
	       struct inodedump **out);
INODEDUMP_API void inodedump_close(struct inodedump *id);

/*
 * Facts about the open dump: "osrelease", "build_id", "vmlinux_build_id",
 * "format", "kaslr_offset", "vmlinux", "vmlinux_source", "reader" (who
 * reads the file: "inodedump" or "libkdumpfile"), "translation" (who
 * translates kernel addresses); NULL if unknown.
 */
INODEDUMP_API const char *inodedump_fact(struct inodedump *id,
					 const char *name);

struct inodedump_inode;

enum inodedump_decode_flags {
	/* Decode even when the plausibility checks say this is no inode. */
	INODEDUMP_DECODE_FORCE = 1 << 0,
	/* Also find the tasks that hold it (a walk of every task's files). */
	INODEDUMP_DECODE_HOLDERS = 1 << 1,
	/* Skip the path walk ("paths" is then null). */
	INODEDUMP_DECODE_NO_PATHS = 1 << 2,
};

/*
 * Decode the struct inode at address. Fails only when nothing useful can be
 * said (the inode itself is unreadable, or not an inode without FORCE);
 * parts that cannot be read are recorded in the result's errors.
 */
INODEDUMP_API struct inodedump_error *
inodedump_decode(struct inodedump *id, uint64_t address, unsigned int flags,
		 struct inodedump_inode **out);
INODEDUMP_API void inodedump_inode_free(struct inodedump_inode *inode);

/* Number of broken invariants found in the inode. */
INODEDUMP_API size_t
inodedump_inode_violations(const struct inodedump_inode *inode);

/*
 * One numeric member by its JSON key ("ino", "mode", "opflags", "linklen",
 * ...). Returns false when the key is unknown, this kernel lacks the
 * member, or it could not be read.
 */
INODEDUMP_API bool inodedump_inode_number(const struct inodedump_inode *inode,
					  const char *key, int64_t *value);

/* A person's view of the inode. */
INODEDUMP_API void inodedump_inode_print_text(const struct inodedump_inode *inode,
					      FILE *out);
/* One JSON object (the schema in README.md), without a trailing newline. */
INODEDUMP_API void inodedump_inode_print_json(const struct inodedump_inode *inode,
					      FILE *out);
/* The same object on one line (JSON Lines). */
INODEDUMP_API void
inodedump_inode_print_jsonl(const struct inodedump_inode *inode, FILE *out);

/* ---- every inode of every superblock ---- */

/* Options for inodedump_sweep(); declare with INODEDUMP_OPTS(). */
struct inodedump_sweep_opts {
	size_t sz;
	const char *fs;	       /* only superblocks whose s_type->name is this */
	uint64_t sb;	       /* only this superblock (0: every one) */
	const char *types;     /* "symlink,regular,...": only these types */
	unsigned int flags;    /* INODEDUMP_DECODE_* for each inode */
};

/* One superblock as the sweep saw it. */
struct inodedump_sweep_sb {
	uint64_t address;
	const char *fs_type;
	const char *s_id;
	size_t inodes;	      /* read from s_inodes (before filters) */
	size_t matched;	      /* passed the filters and were decoded */
	size_t by_type[8];    /* regular, directory, symlink, fifo, chardev,
				 blockdev, socket, invalid */
	size_t violations;
	size_t unreadable;    /* list entries that could not be read */
	const char *error;    /* why the walk of s_inodes stopped early */
};

typedef void (*inodedump_sweep_inode_fn)(const struct inodedump_sweep_sb *sb,
					 const struct inodedump_inode *inode,
					 void *arg);
typedef void (*inodedump_sweep_sb_fn)(const struct inodedump_sweep_sb *sb,
				      void *arg);

/*
 * Walk super_blocks and each superblock's s_inodes, decode and check
 * every inode, call on_inode for each (the inode is freed after the call)
 * and on_sb when a superblock is done. A corrupt list ends that
 * superblock's walk (on_sb gets the reason) and the sweep goes on.
 */
INODEDUMP_API struct inodedump_error *
inodedump_sweep(struct inodedump *id, const struct inodedump_sweep_opts *opts,
		inodedump_sweep_inode_fn on_inode, inodedump_sweep_sb_fn on_sb,
		void *arg);
/* The inode's type name: "regular", ..., "invalid". */
INODEDUMP_API const char *
inodedump_inode_type(const struct inodedump_inode *inode);

/* ---- the kernel log inside the dump ---- */

/* One printk record, as the kernel's ring buffer holds it. */
struct inodedump_record {
	uint64_t seq;
	uint64_t ts_nsec;
	uint8_t level;
	uint8_t facility;
	bool continuation;	/* LOG_CONT */
	uint32_t caller_id;	/* task id, or CPU with bit 31 set */
	const char *text;	/* not NUL-terminated inside; see text_len */
	size_t text_len;
};

struct inodedump_log;

/*
 * Read every finalized record of the printk ring buffer (the lockless
 * format of Linux 5.10 and later), oldest first.
 */
INODEDUMP_API struct inodedump_error *
inodedump_read_log(struct inodedump *id, struct inodedump_log **out);
INODEDUMP_API size_t inodedump_log_count(const struct inodedump_log *log);
/* Why the log may be incomplete (corrupt ring indices), or NULL. */
INODEDUMP_API const char *
inodedump_log_warning(const struct inodedump_log *log);
INODEDUMP_API const struct inodedump_record *
inodedump_log_record(const struct inodedump_log *log, size_t i);
/* The log as dmesg(1) prints it ("[%5u.%06u] text"). */
INODEDUMP_API void inodedump_log_print(const struct inodedump_log *log,
				       FILE *out);
INODEDUMP_API void inodedump_log_free(struct inodedump_log *log);

/* Which dump_inode() wrote a report line. */
enum inodedump_report_format {
	INODEDUMP_REPORT_6_15 = 1, /* "<reason> encountered for inode <%px>" */
	INODEDUMP_REPORT_6_18,	   /* ... and "fs %s mode %ho opflags 0x%hx ..." */
	INODEDUMP_REPORT_2026,	   /* "<reason>: inode:<%px> fs:<name> ..." */
};

/* What a report line said about the inode when it was written. */
struct inodedump_report_fields {
	char fs_type[64];
	unsigned int mode;
	unsigned int opflags;
	unsigned int flags;
	unsigned int state;
	int count;
};

struct inodedump_report {
	enum inodedump_report_format format;
	char reason[256];	  /* the failed condition */
	uint64_t address;
	bool unreadable;	  /* "unreadable inode:<addr>" (2026 format) */
	bool has_fields;	  /* fields below were printed (6.18, 2026) */
	struct inodedump_report_fields fields;
	uint64_t seq;
	uint64_t ts_nsec;
	uint32_t caller_id;
	char location[256];	  /* the WARNING/BUG line that followed, or "" */
	char task[64];		  /* "insmod" from the splat's "Comm:", or "" */
};

/*
 * Parse one log line (or a record's text) as a dump_inode() report.
 * Returns false when it is none. Used on each record by
 * inodedump_find_reports(); exposed for tests and other log sources.
 */
INODEDUMP_API bool inodedump_parse_report(const char *text, size_t len,
					  struct inodedump_report *out);

/* Every dump_inode() report in the log, with what followed it. */
INODEDUMP_API size_t inodedump_find_reports(const struct inodedump_log *log,
					    struct inodedump_report **out);

#ifdef __cplusplus
}
#endif

#endif /* INODEDUMP_H */
