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
	/* vmlinux with DWARF; required for now. */
	const char *vmlinux;
	/* Open even if VMCOREINFO's BUILD-ID differs from vmlinux's. */
	bool ignore_build_id;
};

#define INODEDUMP_OPTS(TYPE, NAME) struct TYPE NAME = { .sz = sizeof(struct TYPE) }

struct inodedump;

INODEDUMP_API struct inodedump_error *
inodedump_open(const char *vmcore, const struct inodedump_open_opts *opts,
	       struct inodedump **out);
INODEDUMP_API void inodedump_close(struct inodedump *id);

/* Facts about the open dump: "osrelease", "build_id", "format", ... */
INODEDUMP_API const char *inodedump_fact(struct inodedump *id,
					 const char *name);

struct inodedump_inode;

enum inodedump_decode_flags {
	/* Decode even when the plausibility checks say this is no inode. */
	INODEDUMP_DECODE_FORCE = 1 << 0,
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

#ifdef __cplusplus
}
#endif

#endif /* INODEDUMP_H */
