/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* decode: the session (struct inodedump) every entry point opens. */
#ifndef IDD_DECODE_SESSION_H
#define IDD_DECODE_SESSION_H

#include "core/error.h"
#include "core/walk.h"
#include "kernel/vfs.h"
#include "target/target.h"
#include "types/types.h"

/* ---- the session (session.c) ---- */
struct inode_layout;
struct idd_modules;
struct path_layout;
struct sym_memo;
struct idd_btf;


struct inodedump {
	struct idd_target *target;
	struct idd_types *types;
	struct idd_symbols *syms;
	char *vmlinux;
	char *vmlinux_source; /* "given with -k", "found by ..." */
	char *build_id_vmlinux;
	char *kaslr_text, *dump_level_text, *page_size_text;
	uint64_t kaslr;
	bool kaslr_from_vmcoreinfo; /* KERNELOFFSET, not derived */
	uint32_t version;
	struct inode_layout *layout;
	struct idd_modules *modules; /* loaded on first use */
	struct path_layout *paths_layout;
	struct idd_holders *holders; /* one task walk per session */
	struct sym_memo *sym_memo;   /* address -> symbol answers */
	struct idd_btf *btf;	     /* loaded on first use */
	bool btf_tried;
	struct sb_memo {	     /* the last superblock decoded */
		uint64_t addr;
		char *s_id, *fs_type, *s_op_symbol, *s_op_module;
		int64_t s_dev, s_magic;
		uint64_t s_op;
		bool valid, has_dev, has_magic, has_op;
	} sb_memo;
};

struct inodedump_inode;
/* inodedump.c: the decode, also handing back i_sb_list.next from its bytes. */
struct inodedump_error *idd_decode(struct inodedump *id, uint64_t address,
				   unsigned int flags,
				   struct inodedump_inode **out,
				   uint64_t *sb_list_next);
struct inodedump_error *idd_layout_ready(struct inodedump *id);
/* Point the type search at cu_hint's unit via one of its functions. */
void idd_anchor(struct inodedump *id, const char *cu_hint,
		const char *const *functions);
/* paths.c: fill ino->paths from its dentry aliases and the mount tree. */
void idd_decode_paths(struct inodedump *id, struct inodedump_inode *ino);
/* holders.c: the tasks holding ino open, or as cwd/root. */
struct idd_holders;
void idd_decode_holders(struct inodedump *id, struct inodedump_inode *ino);
void idd_holders_free(struct idd_holders *hs);

#endif
