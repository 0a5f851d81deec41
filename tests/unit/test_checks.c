// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Each VFS invariant of lib/checks/ alone, on an inode built here: no dump,
 * no type information. The flag values are this test's own (they happen to
 * be Debian 7.3.4's: fs.h's #defines, enum inode_state_flags_enum and
 * enum dentry_flags), handed to the checks as facts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "decode/facts.h"

#define IOP_CACHED_LINK 0x0040
#define IOP_FLCTX 0x0100
#define S_PRIVATE 0x0200
#define S_ANON_INODE 0x80000
#define I_WILL_FREE 0x0080
#define I_FREEING 0x0100
#define I_CLEAR 0x0200
#define DCACHE_DIRECTORY_TYPE 0x100000
#define DCACHE_REGULAR_TYPE 0x200000
#define FLCTX_ADDR 0xffff888004b2d000ull
#define MODE_SYMLINK 0120777
#define MODE_REGULAR 0100644
#define LINK_ADDR 0xffff888004a1c000ull

static int assertions, failures;

#define EXPECT(cond)                                                         \
	do {                                                                 \
		assertions++;                                                \
		if (!(cond)) {                                               \
			failures++;                                          \
			fprintf(stderr, "%s:%d: %s: expected %s\n", __FILE__, \
				__LINE__, __func__, #cond);                  \
		}                                                            \
	} while (0)

#define EXPECT_STR(got, want)                                                \
	do {                                                                 \
		const char *g_ = (got), *w_ = (want);                        \
		assertions++;                                                \
		if (!g_ || strcmp(g_, w_)) {                                 \
			failures++;                                          \
			fprintf(stderr, "%s:%d: %s: got \"%s\"\n"             \
				"   want \"%s\"\n", __FILE__, __LINE__,       \
				__func__, g_ ? g_ : "(null)", w_);           \
		}                                                            \
	} while (0)

/* A kernel with every fact: 7.0 and later. */
static struct idd_check_facts facts_7_3(void)
{
	return (struct idd_check_facts){
		.iop_cached_link = IOP_CACHED_LINK,
		.iop_flctx = IOP_FLCTX,
		.i_freeing = I_FREEING,
		.i_clear = I_CLEAR,
		.i_will_free = I_WILL_FREE,
		.s_private = S_PRIVATE,
		.s_anon_inode = S_ANON_INODE,
		.dcache_directory_type = DCACHE_DIRECTORY_TYPE,
		.has_i_linklen = true,
		.has_i_dentry = true,
		.has_i_flctx = true,
	};
}

/* A healthy inode of this mode, named by a dentry, one reference. */
static struct inodedump_inode inode_of(unsigned mode)
{
	return (struct inodedump_inode){
		.mode = { IDD_OK, mode },
		.opflags = { IDD_OK, 0 },
		.flags = { IDD_OK, 0 },
		.state = { IDD_OK, 0 },
		.count = { IDD_OK, 1 },
		.linklen = { IDD_NA, 0 },
		.i_flctx = { .state = IDD_OK, .addr = 0 },
		.dentry_first = { .state = IDD_OK, .addr = 0xffff888000001000 },
		.alias_dtype = { IDD_OK, (mode & 0170000) == 0040000
						 ? DCACHE_DIRECTORY_TYPE
						 : DCACHE_REGULAR_TYPE },
	};
}

/* A symlink whose body is cached: i_link at LINK_ADDR reads as target. */
static struct inodedump_inode cached_symlink(const char *target,
					     int64_t linklen)
{
	struct inodedump_inode ino = inode_of(MODE_SYMLINK);

	ino.opflags.v = IOP_CACHED_LINK | 0x1; /* and IOP_FASTPERM */
	ino.linklen = (struct idd_num){ IDD_OK, linklen };
	ino.i_link = (struct idd_ptr){ .state = IDD_OK, .addr = LINK_ADDR };
	ino.link = (struct idd_str){ .state = IDD_OK, .s = (char *)target };
	ino.link_strlen = (struct idd_num){ IDD_OK, (int64_t)strlen(target) };
	return ino;
}

static void free_notes(struct inodedump_inode *ino, struct idd_notes *notes)
{
	idd_notes_free(&ino->arena, notes);
}

/* Run one row alone; its verdict, and the finding in *f. */
static enum idd_check_verdict run_one(const char *name,
				      const struct idd_check_facts *facts,
				      const struct inodedump_inode *ino,
				      struct idd_check_finding *f)
{
	const struct idd_check *c = idd_check_find(name);

	*f = (struct idd_check_finding){ 0 };
	if (!c) {
		fprintf(stderr, "no check named %s\n", name);
		exit(1);
	}
	return c->check(facts, ino, f);
}

/* ---- the table ---- */

static void table_lists_the_checks_in_order_with_their_origin(void)
{
	static const char *const names[] = {
		"may_open_mode", "cached_link_length",
		"cached_link_not_symlink", "i_count_negative",
		"i_count_zero_referenced", "inode_freeing", "igrab_freeing",
		"flctx_opflag", "lookup_directory",
	};
	size_t n;
	const struct idd_check *t = idd_checks(&n);

	EXPECT(n == 9);
	for (size_t i = 0; i < n && i < 9; i++) {
		EXPECT_STR(t[i].name, names[i]);
		EXPECT(t[i].condition && *t[i].condition);
		EXPECT(t[i].function && strstr(t[i].function, "()"));
		EXPECT(t[i].file && *t[i].file);
		EXPECT(t[i].members && *t[i].members);
		EXPECT(t[i].broken_when && *t[i].broken_when);
		EXPECT(t[i].check != NULL);
		/* A row that can be skipped says why. */
		EXPECT(!t[i].needs || (t[i].skip_reason && *t[i].skip_reason));
		EXPECT(idd_check_find(names[i]) == &t[i]);
	}
	EXPECT_STR(idd_check_find("may_open_mode")->file, "fs/namei.c");
	EXPECT_STR(idd_check_find("may_open_mode")->function, "may_open()");
	EXPECT_STR(idd_check_find("cached_link_length")->file,
		   "include/linux/fs.h");
	EXPECT_STR(idd_check_find("cached_link_length")->function,
		   "inode_set_cached_link()");
	EXPECT(strstr(idd_check_find("cached_link_length")->condition,
		      "strlen(link) != linklen"));
	EXPECT_STR(idd_check_find("i_count_negative")->file, "fs/inode.c");
	EXPECT_STR(idd_check_find("inode_freeing")->function, "iput()");
	EXPECT_STR(idd_check_find("igrab_freeing")->function, "igrab()");
	EXPECT_STR(idd_check_find("flctx_opflag")->file, "fs/locks.c");
	EXPECT_STR(idd_check_find("flctx_opflag")->function,
		   "locks_get_lock_context()");
	EXPECT_STR(idd_check_find("lookup_directory")->function,
		   "lookup_inode_permission_may_exec()");
	EXPECT(strstr(idd_check_find("may_open_mode")->condition,
		      "!IS_ANON_FILE(inode)"));
	EXPECT(idd_check_find("no_such_check") == NULL);
}

/* ---- cached_link_length ---- */

static void cached_link_longer_than_i_linklen_is_a_truncated_readlink(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = cached_symlink("/usr/lib/target", 4);
	struct idd_check_finding f;

	EXPECT(run_one("cached_link_length", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message,
		   "strlen(i_link) = 15 but i_linklen = 4: "
		   "inode_set_cached_link() would hit "
		   "VFS_WARN_ON_INODE(strlen(link) != linklen); "
		   "readlink() returns a truncated target");
	EXPECT(!f.has_address);
}

static void cached_link_shorter_than_i_linklen_reads_past_the_string(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = cached_symlink("abc", 200);
	struct idd_check_finding f;

	EXPECT(run_one("cached_link_length", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message,
		   "strlen(i_link) = 3 but i_linklen = 200: "
		   "inode_set_cached_link() would hit "
		   "VFS_WARN_ON_INODE(strlen(link) != linklen); "
		   "readlink() reads past the string");
}

static void cached_link_of_the_right_length_holds(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = cached_symlink("abc", 3);
	struct idd_check_finding f;

	EXPECT(run_one("cached_link_length", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
	/* An empty link of length 0 is a string of the right length too. */
	ino = cached_symlink("", 0);
	EXPECT(run_one("cached_link_length", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
}

static void cached_link_null_names_i_linklen(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = cached_symlink("abc", 3);
	struct idd_check_finding f;

	ino.i_link.addr = 0;
	ino.link = (struct idd_str){ IDD_NA, NULL, false };
	ino.linklen.v = 17;
	EXPECT(run_one("cached_link_length", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message,
		   "IOP_CACHED_LINK set but i_link is NULL (i_linklen 17)");
	EXPECT(!f.has_address);
}

/*
 * An i_link the dump cannot give is damage in the dump, not a kernel bug:
 * skipped, "unreadable", with the reason the decode recorded (issue 29).
 */
static void cached_link_unreadable_is_skipped_with_its_reason(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = cached_symlink("abc", 3);
	struct idd_check_finding f;
	struct idd_note why = { .name = "i_link",
				.message = "the page does not decompress" };

	ino.link = (struct idd_str){ IDD_UNREADABLE, NULL, false };
	ino.link_strlen = (struct idd_num){ IDD_UNREADABLE, 0 };
	ino.errors = (struct idd_notes){ .v = &why, .n = 1, .cap = 1 };
	EXPECT(run_one("cached_link_length", &facts, &ino, &f) ==
	       IDD_CHECK_SKIPPED);
	EXPECT_STR(f.message, "unreadable: IOP_CACHED_LINK is set, but i_link "
			      "0xffff888004a1c000 could not be read (i_linklen "
			      "3): the page does not decompress");
	EXPECT(f.has_address);
	EXPECT(f.address == LINK_ADDR);
}

static void cached_link_without_nul_is_not_a_string(void)
{
	struct idd_check_facts facts = facts_7_3();
	/* i_linklen is an int: a bit pattern of 0xffffffff is -1. */
	struct inodedump_inode ino = cached_symlink("aaaa", 0xffffffffll);
	struct idd_check_finding f;

	ino.link.truncated = true;
	EXPECT(run_one("cached_link_length", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "i_link 0xffff888004a1c000 has no NUL within "
			      "PATH_MAX (4096) bytes, i_linklen = -1: the "
			      "cached link is not a string");
	EXPECT(f.has_address);
	EXPECT(f.address == LINK_ADDR);
}

static void cached_link_not_judged_without_the_flag(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = cached_symlink("abc", 99);
	struct idd_check_finding f;

	ino.opflags.v = 0x1; /* a symlink read from its page: no cache */
	EXPECT(run_one("cached_link_length", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
	ino.opflags = (struct idd_num){ IDD_UNREADABLE, IOP_CACHED_LINK };
	EXPECT(run_one("cached_link_length", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
	/* A regular file is cached_link_not_symlink's, not this check's. */
	ino = cached_symlink("abc", 99);
	ino.mode.v = MODE_REGULAR;
	EXPECT(run_one("cached_link_length", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
}

/* ---- cached_link_not_symlink ---- */

static void cached_link_on_a_regular_file_is_reported(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(MODE_REGULAR);
	struct idd_check_finding f;

	ino.opflags.v = IOP_CACHED_LINK | 0x8;
	EXPECT(run_one("cached_link_not_symlink", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "IOP_CACHED_LINK set in i_opflags 0x48 on a "
			      "regular inode (mode 0100644): only symlinks "
			      "cache links");
	ino = inode_of(0040755);
	ino.opflags.v = IOP_CACHED_LINK;
	EXPECT(run_one("cached_link_not_symlink", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "IOP_CACHED_LINK set in i_opflags 0x40 on a "
			      "directory inode (mode 040755): only symlinks "
			      "cache links");
}

static void cached_link_on_a_symlink_is_not_this_checks(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = cached_symlink("abc", 3);
	struct idd_check_finding f;

	EXPECT(run_one("cached_link_not_symlink", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
	ino = inode_of(MODE_REGULAR);
	EXPECT(run_one("cached_link_not_symlink", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
}

/* ---- may_open_mode ---- */

static void mode_without_a_type_reached_by_a_path_is_reported(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(0170644);
	struct idd_check_finding f;

	EXPECT(run_one("may_open_mode", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "i_mode 0170644 has file type bits 0170000, "
			      "none of the seven file types, and i_flags lack "
			      "S_ANON_INODE: may_open() would hit "
			      "VFS_BUG_ON_INODE(!IS_ANON_FILE(inode), inode)");
	ino = inode_of(0600);
	EXPECT(run_one("may_open_mode", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "i_mode 0600 has file type bits 00, "
			      "none of the seven file types, and i_flags lack "
			      "S_ANON_INODE: may_open() would hit "
			      "VFS_BUG_ON_INODE(!IS_ANON_FILE(inode), inode)");
	/* 6.15-rc1 asserted on every typeless mode. */
	facts.s_anon_inode = 0;
	EXPECT(run_one("may_open_mode", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "i_mode 0600 has file type bits 00, "
			      "none of the seven file types: may_open() would "
			      "hit VFS_BUG_ON_INODE(1, inode)");
}

static void mode_without_a_type_on_an_anon_inode_holds(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(0600);
	struct idd_check_finding f;

	/* alloc_anon_inode(): S_PRIVATE | S_ANON_INODE, a dentry per file */
	ino.flags.v = S_ANON_INODE;
	EXPECT(run_one("may_open_mode", &facts, &ino, &f) == IDD_CHECK_HOLDS);
	ino.flags.state = IDD_UNREADABLE;
	EXPECT(run_one("may_open_mode", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
}

static void mode_without_a_type_on_s_private_is_skipped(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(0600);
	struct idd_check_finding f;

	ino.flags.v = S_PRIVATE | 0x4000;
	EXPECT(run_one("may_open_mode", &facts, &ino, &f) ==
	       IDD_CHECK_SKIPPED);
	EXPECT_STR(f.message, "i_mode 0600 has no file type, but the inode "
			      "is S_PRIVATE (fs-internal): may_open() cannot "
			      "reach it");
	/* Unreadable i_flags prove nothing: judged as reachable. */
	ino.flags.state = IDD_UNREADABLE;
	EXPECT(run_one("may_open_mode", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	/* A kernel whose S_PRIVATE is unknown cannot excuse the inode. */
	ino.flags.state = IDD_OK;
	facts.s_private = 0;
	EXPECT(run_one("may_open_mode", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
}

static void mode_without_a_type_and_no_dentry_is_skipped(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(0);
	struct idd_check_finding f;

	ino.dentry_first.addr = 0;
	EXPECT(run_one("may_open_mode", &facts, &ino, &f) ==
	       IDD_CHECK_SKIPPED);
	EXPECT_STR(f.message, "i_mode 00 has no file type, but no dentry "
			      "names the inode: may_open() cannot reach it");
	/* Where the alias list cannot be read, no dentry proves nothing. */
	facts.has_i_dentry = false;
	EXPECT(run_one("may_open_mode", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "i_mode 00 has file type bits 00, "
			      "none of the seven file types, and i_flags lack "
			      "S_ANON_INODE: may_open() would hit "
			      "VFS_BUG_ON_INODE(!IS_ANON_FILE(inode), inode)");
}

static void every_file_type_passes_may_open(void)
{
	static const unsigned modes[] = { 0100644, 0040755, 0120777, 0010600,
					  0020620, 0060660, 0140755 };
	struct idd_check_facts facts = facts_7_3();
	struct idd_check_finding f;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct inodedump_inode ino = inode_of(modes[i]);

		EXPECT(run_one("may_open_mode", &facts, &ino, &f) ==
		       IDD_CHECK_HOLDS);
	}
}

/* ---- i_count_negative ---- */

static void negative_i_count_is_reported(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(MODE_REGULAR);
	struct idd_check_finding f;

	ino.count.v = -3;
	EXPECT(run_one("i_count_negative", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "i_count is -3: more iput() than igrab()");
	ino.count.v = 0; /* unused, on the LRU: fine */
	EXPECT(run_one("i_count_negative", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
	ino.count = (struct idd_num){ IDD_UNREADABLE, -1 };
	EXPECT(run_one("i_count_negative", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
}

/* ---- inode_freeing ---- */

static void freeing_and_cleared_inodes_still_referenced_are_reported(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(MODE_REGULAR);
	struct idd_check_finding f;

	ino.state.v = I_FREEING | 0x1;
	EXPECT(run_one("inode_freeing", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "i_state 0x101 has I_FREEING but i_count is 1: "
			      "iput() of that reference would hit "
			      "VFS_BUG_ON_INODE(state & (I_FREEING | I_CLEAR), "
			      "inode)");
	ino.state.v = I_FREEING | I_CLEAR;
	ino.count.v = 0; /* the dentry's reference, uncounted */
	EXPECT(run_one("inode_freeing", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "i_state 0x300 has I_CLEAR but a dentry names "
			      "it: iput() of that reference would hit "
			      "VFS_BUG_ON_INODE(state & (I_FREEING | I_CLEAR), "
			      "inode)");
	ino.dentry_first.addr = 0;
	ino.nholders = 1;
	EXPECT(run_one("inode_freeing", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT(strstr(f.message, "but a task holds it") != NULL);
}

static void freeing_inode_nothing_references_is_being_evicted(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(MODE_REGULAR);
	struct idd_check_finding f;

	/* evict(): I_FREEING, i_count 0, the aliases long gone */
	ino.state.v = I_FREEING;
	ino.count.v = 0;
	ino.dentry_first.addr = 0;
	EXPECT(run_one("inode_freeing", &facts, &ino, &f) ==
	       IDD_CHECK_SKIPPED);
	EXPECT_STR(f.message, "i_state 0x100 has I_FREEING and nothing "
			      "references the inode: it is being evicted, which "
			      "is no bug, but nothing may use it");
}

static void live_or_unreadable_state_holds(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(MODE_REGULAR);
	struct idd_check_finding f;

	ino.state.v = 0x8; /* another bit */
	EXPECT(run_one("inode_freeing", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
	ino.state = (struct idd_num){ IDD_UNREADABLE, I_FREEING };
	EXPECT(run_one("inode_freeing", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
	ino.state = (struct idd_num){ IDD_OK, I_FREEING };
	facts.i_freeing = facts.i_clear = 0;
	EXPECT(run_one("inode_freeing", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
}

/* ---- i_count_zero_referenced ---- */

static void zero_count_with_a_dentry_or_holder_is_reported(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(MODE_REGULAR);
	struct idd_check_finding f;

	ino.count.v = 0;
	EXPECT(run_one("i_count_zero_referenced", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "i_count is 0 but a dentry names it: the "
			      "reference it holds is not counted, and its "
			      "iput() would hit "
			      "VFS_BUG_ON_INODE(icount_read_once(inode) < 1, "
			      "inode)");
	ino.nholders = 2;
	EXPECT(run_one("i_count_zero_referenced", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT(strstr(f.message, "a dentry names it and a task holds it"));
	ino.dentry_first.addr = 0;
	EXPECT(run_one("i_count_zero_referenced", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT(strstr(f.message, "i_count is 0 but a task holds it"));
}

static void zero_count_unused_or_being_freed_holds(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(MODE_REGULAR);
	struct idd_check_finding f;

	/* On the LRU: no alias, no holder, i_count 0. */
	ino.count.v = 0;
	ino.dentry_first.addr = 0;
	EXPECT(run_one("i_count_zero_referenced", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
	/* Being freed is inode_freeing's, whoever names it. */
	ino = inode_of(MODE_REGULAR);
	ino.count.v = 0;
	ino.state.v = I_WILL_FREE;
	EXPECT(run_one("i_count_zero_referenced", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
	ino.state.v = 0;
	ino.count.v = 1;
	EXPECT(run_one("i_count_zero_referenced", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
	ino.count = (struct idd_num){ IDD_UNREADABLE, 0 };
	EXPECT(run_one("i_count_zero_referenced", &facts, &ino, &f) ==
	       IDD_CHECK_HOLDS);
}

/* ---- igrab_freeing ---- */

static void freeing_with_a_raised_count_fails_igrab(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(MODE_REGULAR);
	struct idd_check_finding f;

	ino.state.v = I_WILL_FREE;
	ino.count.v = 2;
	EXPECT(run_one("igrab_freeing", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "i_state 0x80 has I_WILL_FREE with i_count 2: "
			      "igrab() would take a reference and hit "
			      "VFS_BUG_ON_INODE(state & (I_FREEING | "
			      "I_WILL_FREE), inode)");
	ino.state.v = I_FREEING | I_CLEAR;
	EXPECT(run_one("igrab_freeing", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT(strstr(f.message, "has I_FREEING with i_count 2"));
	/* i_count 0: igrab()'s atomic_add_unless() takes nothing. */
	ino.count.v = 0;
	EXPECT(run_one("igrab_freeing", &facts, &ino, &f) == IDD_CHECK_HOLDS);
	/* I_CLEAR alone is iput()'s concern, not igrab()'s. */
	ino.count.v = 1;
	ino.state.v = I_CLEAR;
	EXPECT(run_one("igrab_freeing", &facts, &ino, &f) == IDD_CHECK_HOLDS);
}

/* ---- flctx_opflag ---- */

static void flctx_without_its_flag_and_flag_without_flctx_are_reported(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(MODE_REGULAR);
	struct idd_check_finding f;

	ino.i_flctx.addr = FLCTX_ADDR;
	ino.opflags.v = 0x2d;
	EXPECT(run_one("flctx_opflag", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "i_flctx is 0xffff888004b2d000 but i_opflags "
			      "0x2d lack IOP_FLCTX: locks_get_lock_context() "
			      "would hit VFS_BUG_ON_INODE(inode->i_flctx, "
			      "inode), and locks_inode_context() ignores the "
			      "locks");
	EXPECT(f.has_address && f.address == FLCTX_ADDR);
	ino.i_flctx.addr = 0;
	ino.opflags.v = 0x2d | IOP_FLCTX;
	EXPECT(run_one("flctx_opflag", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "IOP_FLCTX set in i_opflags 0x12d but i_flctx "
			      "is NULL: locks_get_lock_context() would hit "
			      "VFS_BUG_ON_INODE(!inode->i_flctx, inode), and "
			      "locks_inode_context() returns NULL");
}

static void flctx_and_its_flag_together_hold(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(MODE_REGULAR);
	struct idd_check_finding f;

	EXPECT(run_one("flctx_opflag", &facts, &ino, &f) == IDD_CHECK_HOLDS);
	ino.i_flctx.addr = FLCTX_ADDR;
	ino.opflags.v = IOP_FLCTX;
	EXPECT(run_one("flctx_opflag", &facts, &ino, &f) == IDD_CHECK_HOLDS);
	ino.opflags.state = IDD_UNREADABLE;
	ino.i_flctx.addr = 0;
	EXPECT(run_one("flctx_opflag", &facts, &ino, &f) == IDD_CHECK_HOLDS);
}

/* ---- lookup_directory ---- */

static void directory_dentry_on_a_non_directory_is_reported(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(MODE_REGULAR);
	struct idd_check_finding f;

	ino.alias_dtype.v = DCACHE_DIRECTORY_TYPE;
	EXPECT(run_one("lookup_directory", &facts, &ino, &f) ==
	       IDD_CHECK_VIOLATED);
	EXPECT_STR(f.message, "a dentry of directory type (d_can_lookup()) "
			      "names a regular inode (mode 0100644): a path "
			      "walk through it would hit "
			      "VFS_BUG_ON_INODE(!S_ISDIR(inode->i_mode), "
			      "inode)");
}

static void matching_or_unknown_dentry_types_hold_unreadable_skips(void)
{
	static const unsigned modes[] = { 0100644, 0040755, 0120777, 0010600 };
	struct idd_check_facts facts = facts_7_3();
	struct idd_check_finding f;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct inodedump_inode ino = inode_of(modes[i]);

		EXPECT(run_one("lookup_directory", &facts, &ino, &f) ==
		       IDD_CHECK_HOLDS);
	}
	{
		struct inodedump_inode ino = inode_of(MODE_REGULAR);

		ino.alias_dtype = (struct idd_num){ IDD_ABSENT, 0 };
		EXPECT(run_one("lookup_directory", &facts, &ino, &f) ==
		       IDD_CHECK_HOLDS);
		/* An unreadable dentry: not judged, and said (issue 29). */
		ino.alias_dtype = (struct idd_num){ IDD_UNREADABLE,
						    DCACHE_DIRECTORY_TYPE };
		EXPECT(run_one("lookup_directory", &facts, &ino, &f) ==
		       IDD_CHECK_SKIPPED);
		EXPECT(!strncmp(f.message, "unreadable: ", 12));
	}
}

static void kernel_without_the_new_facts_skips_their_rows(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(MODE_REGULAR);

	/* 6.12: no IOP_FLCTX, DCACHE_* as #defines. */
	facts.iop_flctx = 0;
	facts.dcache_directory_type = 0;
	idd_checks_run(&facts, &ino);
	EXPECT(ino.violations.n == 0);
	EXPECT(ino.skipped.n == 2);
	if (ino.skipped.n == 2) {
		EXPECT_STR(ino.skipped.v[0].name, "flctx_opflag");
		EXPECT_STR(ino.skipped.v[0].message,
			   "this kernel has no IOP_FLCTX (added in 7.0) or no "
			   "i_flctx");
		EXPECT_STR(ino.skipped.v[1].name, "lookup_directory");
	}
	free_notes(&ino, &ino.skipped);
	facts = facts_7_3();
	facts.i_freeing = 0;
	idd_checks_run(&facts, &ino);
	EXPECT(ino.skipped.n == 1);
	if (ino.skipped.n == 1)
		EXPECT_STR(ino.skipped.v[0].name, "igrab_freeing");
	free_notes(&ino, &ino.skipped);
}

/* ---- the runner: notes, their order, skips ---- */

static void healthy_inode_gets_no_note(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = cached_symlink("target", 6);

	idd_checks_run(&facts, &ino);
	EXPECT(ino.violations.n == 0);
	EXPECT(ino.skipped.n == 0);
}

static void notes_follow_the_table_order(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(0000644);

	ino.opflags.v = IOP_CACHED_LINK;
	ino.count.v = -1;
	ino.state.v = I_FREEING;
	ino.i_flctx.addr = FLCTX_ADDR;
	ino.alias_dtype.v = DCACHE_DIRECTORY_TYPE;
	idd_checks_run(&facts, &ino);
	EXPECT(ino.violations.n == 6);
	if (ino.violations.n == 6) {
		EXPECT_STR(ino.violations.v[0].name, "may_open_mode");
		EXPECT_STR(ino.violations.v[1].name, "cached_link_not_symlink");
		EXPECT_STR(ino.violations.v[2].name, "i_count_negative");
		EXPECT_STR(ino.violations.v[3].name, "inode_freeing");
		EXPECT_STR(ino.violations.v[4].name, "flctx_opflag");
		EXPECT_STR(ino.violations.v[5].name, "lookup_directory");
		EXPECT_STR(ino.violations.v[1].message,
			   "IOP_CACHED_LINK set in i_opflags 0x40 on a invalid "
			   "inode (mode 0644): only symlinks cache links");
	}
	EXPECT(ino.skipped.n == 0);
	free_notes(&ino, &ino.violations);
}

static void runner_keeps_the_address_of_a_finding(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = cached_symlink("abc", 3);

	ino.link.truncated = true; /* no NUL: a violation about i_link */
	idd_checks_run(&facts, &ino);
	EXPECT(ino.violations.n == 1);
	if (ino.violations.n == 1) {
		EXPECT_STR(ino.violations.v[0].name, "cached_link_length");
		EXPECT(ino.violations.v[0].has_address);
		EXPECT(ino.violations.v[0].address == LINK_ADDR);
	}
	free_notes(&ino, &ino.violations);
}

/* Damage in the dump is no kernel bug: a skipped note, "unreadable". */
static void runner_skips_a_check_whose_input_is_unreadable(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = cached_symlink("abc", 3);

	ino.link = (struct idd_str){ IDD_UNREADABLE, NULL, false };
	idd_checks_run(&facts, &ino);
	EXPECT(ino.violations.n == 0);
	EXPECT(ino.skipped.n == 1);
	if (ino.skipped.n == 1) {
		EXPECT_STR(ino.skipped.v[0].name, "cached_link_length");
		EXPECT(!strncmp(ino.skipped.v[0].message, IDD_CHECK_UNREADABLE,
				strlen(IDD_CHECK_UNREADABLE)));
		EXPECT(ino.skipped.v[0].address == LINK_ADDR);
	}
	free_notes(&ino, &ino.skipped);
}

static void skipped_may_open_goes_to_skipped(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(0600);

	ino.flags.v = S_PRIVATE;
	idd_checks_run(&facts, &ino);
	EXPECT(ino.violations.n == 0);
	EXPECT(ino.skipped.n == 1);
	if (ino.skipped.n == 1) {
		EXPECT_STR(ino.skipped.v[0].name, "may_open_mode");
		EXPECT(!ino.skipped.v[0].has_address);
	}
	free_notes(&ino, &ino.skipped);
}

static void kernel_without_i_linklen_skips_cached_links_once(void)
{
	struct idd_check_facts facts = facts_7_3();
	/* Broken both ways: would be reported on a 6.14+ kernel. */
	struct inodedump_inode ino = inode_of(MODE_REGULAR);

	ino.opflags.v = IOP_CACHED_LINK;
	facts.has_i_linklen = false;
	idd_checks_run(&facts, &ino);
	EXPECT(ino.violations.n == 0);
	EXPECT(ino.skipped.n == 1);
	if (ino.skipped.n == 1) {
		EXPECT_STR(ino.skipped.v[0].name, "cached_link_length");
		EXPECT_STR(ino.skipped.v[0].message,
			   "this kernel has no i_linklen/IOP_CACHED_LINK "
			   "(added in 6.14)");
	}
	free_notes(&ino, &ino.skipped);

	/* Nor without IOP_CACHED_LINK's value, i_linklen or not. */
	facts = facts_7_3();
	facts.iop_cached_link = 0;
	ino = cached_symlink("abc", 99);
	idd_checks_run(&facts, &ino);
	EXPECT(ino.violations.n == 0);
	EXPECT(ino.skipped.n == 1);
	if (ino.skipped.n == 1)
		EXPECT_STR(ino.skipped.v[0].name, "cached_link_length");
	free_notes(&ino, &ino.skipped);
	EXPECT(idd_check_facts_have(&facts) ==
	       (IDD_CHECK_NEEDS_I_LINKLEN | IDD_CHECK_NEEDS_IOP_FLCTX |
		IDD_CHECK_NEEDS_STATE_FREEING | IDD_CHECK_NEEDS_DENTRY_TYPE));
}

static void skips_come_in_table_order(void)
{
	struct idd_check_facts facts = facts_7_3();
	struct inodedump_inode ino = inode_of(0600);

	facts.has_i_linklen = false;
	ino.dentry_first.addr = 0;
	ino.count.v = -2;
	idd_checks_run(&facts, &ino);
	EXPECT(ino.skipped.n == 2);
	if (ino.skipped.n == 2) {
		EXPECT_STR(ino.skipped.v[0].name, "may_open_mode");
		EXPECT_STR(ino.skipped.v[1].name, "cached_link_length");
	}
	EXPECT(ino.violations.n == 1);
	if (ino.violations.n == 1)
		EXPECT_STR(ino.violations.v[0].message,
			   "i_count is -2: more iput() than igrab()");
	free_notes(&ino, &ino.skipped);
	free_notes(&ino, &ino.violations);
}

/* ---- the facts a session's layout gives ---- */

static void facts_come_from_the_layout(void)
{
	struct inode_layout *l = calloc(1, sizeof(*l));
	struct idd_check_facts facts;

	if (!l)
		abort();
	l->state[0] = (struct idd_flag){ "I_DIRTY_SYNC", 0x1 };
	l->state[1] = (struct idd_flag){ "I_FREEING", 0x20 };
	l->state[2] = (struct idd_flag){ "I_CLEAR", 0x40 };
	l->nstate = 3;
	l->iflags[0] = (struct idd_flag){ "S_SYNC", 0x1 };
	l->iflags[1] = (struct idd_flag){ "S_PRIVATE", 0x200 };
	l->niflags = 2;
	l->state[3] = (struct idd_flag){ "I_WILL_FREE", 0x10 };
	l->nstate = 4;
	l->iflags[2] = (struct idd_flag){ "S_ANON_INODE", 0x80000 };
	l->niflags = 3;
	l->iop[0] = (struct idd_flag){ "IOP_CACHED_LINK", 0x40 };
	l->iop[1] = (struct idd_flag){ "IOP_FLCTX", 0x100 };
	l->niop = 2;
	l->cached_link = 0x40;
	l->i_linklen.present = true;
	l->i_dentry_first.present = false;
	l->row[IDD_M_i_flctx].m.present = true;
	l->alias_dtype_ok = true;
	l->dcache_directory_type = 0x100000;
	idd_layout_check_facts(l, &facts);
	EXPECT(facts.i_freeing == 0x20);
	EXPECT(facts.i_clear == 0x40);
	EXPECT(facts.i_will_free == 0x10);
	EXPECT(facts.s_private == 0x200);
	EXPECT(facts.s_anon_inode == 0x80000);
	EXPECT(facts.iop_cached_link == 0x40);
	EXPECT(facts.iop_flctx == 0x100);
	EXPECT(facts.dcache_directory_type == 0x100000);
	EXPECT(facts.has_i_linklen);
	EXPECT(!facts.has_i_dentry);
	EXPECT(facts.has_i_flctx);
	/* The type is a fact only where the alias can be judged. */
	l->alias_dtype_ok = false;
	idd_layout_check_facts(l, &facts);
	EXPECT(facts.dcache_directory_type == 0);

	/* An older kernel: no i_linklen, no state names known. */
	*l = (struct inode_layout){ 0 };
	idd_layout_check_facts(l, &facts);
	EXPECT(!facts.i_freeing && !facts.i_clear && !facts.s_private);
	EXPECT(idd_check_facts_have(&facts) == 0);

	/* The table run with those facts skips what they lack. */
	{
		struct inodedump_inode ino = inode_of(MODE_REGULAR);

		idd_checks_run(&facts, &ino);
		EXPECT(ino.skipped.n == 4);
		if (ino.skipped.n == 4) {
			EXPECT_STR(ino.skipped.v[0].name, "cached_link_length");
			EXPECT_STR(ino.skipped.v[1].name, "igrab_freeing");
			EXPECT_STR(ino.skipped.v[2].name, "flctx_opflag");
			EXPECT_STR(ino.skipped.v[3].name, "lookup_directory");
		}
		free_notes(&ino, &ino.skipped);
	}
	free(l);
}

/* README's "What it checks" has one line per row, naming its origin. */
static void readme_mirrors_the_table(const char *readme)
{
	FILE *f = fopen(readme, "r");
	char line[2048];
	bool in_section = false;
	size_t n, seen = 0;
	const struct idd_check *t = idd_checks(&n);

	EXPECT(f != NULL);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "## ", 3))
			in_section = !strcmp(line, "## What it checks\n");
		if (!in_section || strncmp(line, "| `", 3))
			continue;
		EXPECT(seen < n);
		if (seen >= n)
			break;
		/* The row's name first, then its function and file. */
		EXPECT(!strncmp(line + 3, t[seen].name, strlen(t[seen].name)));
		EXPECT(strstr(line, t[seen].function) != NULL);
		EXPECT(strstr(line, t[seen].file) != NULL);
		seen++;
	}
	fclose(f);
	EXPECT(seen == n);
}

int main(int argc, char **argv)
{
	table_lists_the_checks_in_order_with_their_origin();
	cached_link_longer_than_i_linklen_is_a_truncated_readlink();
	cached_link_shorter_than_i_linklen_reads_past_the_string();
	cached_link_of_the_right_length_holds();
	cached_link_null_names_i_linklen();
	cached_link_unreadable_is_skipped_with_its_reason();
	cached_link_without_nul_is_not_a_string();
	cached_link_not_judged_without_the_flag();
	cached_link_on_a_regular_file_is_reported();
	cached_link_on_a_symlink_is_not_this_checks();
	mode_without_a_type_reached_by_a_path_is_reported();
	mode_without_a_type_on_s_private_is_skipped();
	mode_without_a_type_and_no_dentry_is_skipped();
	every_file_type_passes_may_open();
	mode_without_a_type_on_an_anon_inode_holds();
	negative_i_count_is_reported();
	freeing_and_cleared_inodes_still_referenced_are_reported();
	freeing_inode_nothing_references_is_being_evicted();
	live_or_unreadable_state_holds();
	zero_count_with_a_dentry_or_holder_is_reported();
	zero_count_unused_or_being_freed_holds();
	freeing_with_a_raised_count_fails_igrab();
	flctx_without_its_flag_and_flag_without_flctx_are_reported();
	flctx_and_its_flag_together_hold();
	directory_dentry_on_a_non_directory_is_reported();
	matching_or_unknown_dentry_types_hold_unreadable_skips();
	kernel_without_the_new_facts_skips_their_rows();
	healthy_inode_gets_no_note();
	notes_follow_the_table_order();
	runner_keeps_the_address_of_a_finding();
	runner_skips_a_check_whose_input_is_unreadable();
	skipped_may_open_goes_to_skipped();
	kernel_without_i_linklen_skips_cached_links_once();
	skips_come_in_table_order();
	facts_come_from_the_layout();
	if (argc > 1)
		readme_mirrors_the_table(argv[1]);
	printf("checks: %d assertions, %d failed\n", assertions, failures);
	return failures ? 1 : 0;
}
