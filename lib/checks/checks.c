// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The VFS invariants, one row each, named after the kernel condition they
 * mirror. A check is a pure function of a decoded inode and a few facts of
 * its kernel; the runner turns its verdict into a note.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checks/checks.h"
#include "core/notes.h"

static enum idd_check_verdict found(struct idd_check_finding *f,
				    enum idd_check_verdict verdict,
				    bool has_address, uint64_t address,
				    const char *fmt, ...) IDD_ATTR_PRINTF(5, 6);

static enum idd_check_verdict found(struct idd_check_finding *f,
				    enum idd_check_verdict verdict,
				    bool has_address, uint64_t address,
				    const char *fmt, ...)
{
	va_list ap;

	f->has_address = has_address;
	f->address = address;
	va_start(ap, fmt);
	vsnprintf(f->message, sizeof(f->message), fmt, ap);
	va_end(ap);
	return verdict;
}

static bool is_symlink(const struct inodedump_inode *ino)
{
	return ((unsigned)ino->mode.v & 0170000) == 0120000;
}

/* Why what the decode calls what could not be read, or a stand-in. */
static const char *unreadable_reason(const struct inodedump_inode *ino,
				     const char *what)
{
	for (size_t i = 0; i < ino->errors.n; i++)
		if (!strcmp(ino->errors.v[i].name, what))
			return ino->errors.v[i].message;
	return "no reason recorded";
}

/* A flag word read right has this kernel's flag (0: it has none). */
static bool has_flag(const struct idd_num *word, uint64_t flag)
{
	return flag && word->state == IDD_OK && ((uint64_t)word->v & flag);
}

/*
 * Something holds a counted reference to the inode, as memory shows it: a
 * dentry names it (each alias owns one, dropped by the iput() in
 * dentry_unlink_inode() after the alias is unlinked) or a task holds it
 * open or as its cwd or root (--holders).
 */
static bool referenced(const struct inodedump_inode *ino)
{
	return idd_inode_has_alias(ino) || ino->nholders > 0;
}

/* Who holds the reference, for the messages. */
static const char *referrer(const struct inodedump_inode *ino)
{
	if (idd_inode_has_alias(ino))
		return ino->nholders ? "a dentry names it and a task holds it"
				     : "a dentry names it";
	return "a task holds it";
}

/* i_opflags has IOP_CACHED_LINK (never when this kernel has none). */
static bool caches_link(const struct idd_check_facts *facts,
			const struct inodedump_inode *ino)
{
	return facts->iop_cached_link && ino->opflags.state == IDD_OK &&
	       ((uint64_t)ino->opflags.v & facts->iop_cached_link);
}

static enum idd_check_verdict
check_may_open_mode(const struct idd_check_facts *facts,
		    const struct inodedump_inode *ino,
		    struct idd_check_finding *f)
{
	unsigned mode = (unsigned)ino->mode.v;

	if (idd_mode_type(mode) != INODEDUMP_INODE_INVALID)
		return IDD_CHECK_HOLDS;
	/* 6.15+: the default case asserts !IS_ANON_FILE(inode) only. */
	if (has_flag(&ino->flags, facts->s_anon_inode))
		return IDD_CHECK_HOLDS;
	/*
	 * may_open() only sees inodes reached by a path: an inode the
	 * filesystem keeps for itself (S_PRIVATE: anon inodes, ...) or one
	 * without a dentry (ext4's bad-blocks inode) may have no type at all.
	 */
	if (ino->flags.state == IDD_OK &&
	    ((uint64_t)ino->flags.v & facts->s_private))
		return found(f, IDD_CHECK_SKIPPED, false, 0,
			     "i_mode 0%o has no file type, but the inode is "
			     "S_PRIVATE (fs-internal): may_open() cannot "
			     "reach it", mode);
	if (facts->has_i_dentry && !idd_inode_has_alias(ino))
		return found(f, IDD_CHECK_SKIPPED, false, 0,
			     "i_mode 0%o has no file type, but no dentry names "
			     "the inode: may_open() cannot reach it", mode);
	return found(f, IDD_CHECK_VIOLATED, false, 0,
		     "i_mode 0%o has file type bits 0%o, none of the seven "
		     "file types%s: may_open() would hit %s", mode,
		     mode & 0170000,
		     facts->s_anon_inode ? ", and i_flags lack S_ANON_INODE"
					 : "",
		     facts->s_anon_inode
			     ? "VFS_BUG_ON_INODE(!IS_ANON_FILE(inode), inode)"
			     : "VFS_BUG_ON_INODE(1, inode)");
}

/* A symlink's cached body; other types are cached_link_not_symlink's. */
static enum idd_check_verdict
check_cached_link_length(const struct idd_check_facts *facts,
			 const struct inodedump_inode *ino,
			 struct idd_check_finding *f)
{
	int32_t linklen = (int32_t)ino->linklen.v; /* i_linklen is an int */

	if (!caches_link(facts, ino) || !is_symlink(ino))
		return IDD_CHECK_HOLDS;
	if (ino->i_link.state == IDD_OK && !ino->i_link.addr)
		return found(f, IDD_CHECK_VIOLATED, false, 0,
			     "IOP_CACHED_LINK set but i_link is NULL "
			     "(i_linklen %lld)", (long long)ino->linklen.v);
	if (ino->link.state == IDD_UNREADABLE)
		return found(f, IDD_CHECK_SKIPPED, true, ino->i_link.addr,
			     IDD_CHECK_UNREADABLE "IOP_CACHED_LINK is set, but "
			     "i_link 0x%llx could not be read (i_linklen %lld): "
			     "%s", (unsigned long long)ino->i_link.addr,
			     (long long)ino->linklen.v,
			     unreadable_reason(ino, "i_link"));
	if (ino->link.state != IDD_OK)
		return IDD_CHECK_HOLDS;
	if (ino->link.truncated)
		return found(f, IDD_CHECK_VIOLATED, true, ino->i_link.addr,
			     "i_link 0x%llx has no NUL within PATH_MAX (%d) "
			     "bytes, i_linklen = %lld: the cached link is not "
			     "a string", (unsigned long long)ino->i_link.addr,
			     IDD_LINK_MAX_BYTES, (long long)linklen);
	if (ino->link_strlen.v == linklen)
		return IDD_CHECK_HOLDS;
	return found(f, IDD_CHECK_VIOLATED, false, 0,
		     "strlen(i_link) = %lld but i_linklen = %lld: "
		     "inode_set_cached_link() would hit "
		     "VFS_WARN_ON_INODE(strlen(link) != linklen)%s",
		     (long long)ino->link_strlen.v, (long long)linklen,
		     ino->link_strlen.v > ino->linklen.v
			     ? "; readlink() returns a truncated target"
			     : "; readlink() reads past the string");
}

static enum idd_check_verdict
check_cached_link_not_symlink(const struct idd_check_facts *facts,
			      const struct inodedump_inode *ino,
			      struct idd_check_finding *f)
{
	unsigned mode = (unsigned)ino->mode.v;

	if (!caches_link(facts, ino) || is_symlink(ino))
		return IDD_CHECK_HOLDS;
	return found(f, IDD_CHECK_VIOLATED, false, 0,
		     "IOP_CACHED_LINK set in i_opflags 0x%llx on a %s inode "
		     "(mode 0%o): only symlinks cache links",
		     (unsigned long long)ino->opflags.v,
		     idd_mode_type_name(mode), mode);
}

static enum idd_check_verdict
check_i_count_negative(const struct idd_check_facts *facts,
		       const struct inodedump_inode *ino,
		       struct idd_check_finding *f)
{
	(void)facts;
	if (ino->count.state != IDD_OK || ino->count.v >= 0)
		return IDD_CHECK_HOLDS;
	return found(f, IDD_CHECK_VIOLATED, false, 0,
		     "i_count is %lld: more iput() than igrab()",
		     (long long)ino->count.v);
}

/* I_FREEING, I_WILL_FREE or I_CLEAR: the inode is on its way out. */
static bool being_freed(const struct idd_check_facts *facts,
			const struct inodedump_inode *ino)
{
	return has_flag(&ino->state, facts->i_freeing | facts->i_will_free |
					     facts->i_clear);
}

/*
 * ihold(), iput() and iput_if_not_last() are called with a reference in
 * hand. An unused inode (no alias, no holder) with i_count 0 is normal:
 * the LRU keeps it; one that is being freed is inode_freeing's.
 */
static enum idd_check_verdict
check_i_count_zero_referenced(const struct idd_check_facts *facts,
			      const struct inodedump_inode *ino,
			      struct idd_check_finding *f)
{
	if (ino->count.state != IDD_OK || ino->count.v != 0 ||
	    !referenced(ino) || being_freed(facts, ino))
		return IDD_CHECK_HOLDS;
	return found(f, IDD_CHECK_VIOLATED, false, 0,
		     "i_count is 0 but %s: the reference it holds is not "
		     "counted, and its iput() would hit "
		     "VFS_BUG_ON_INODE(icount_read_once(inode) < 1, inode)",
		     referrer(ino));
}

static enum idd_check_verdict
check_inode_freeing(const struct idd_check_facts *facts,
		    const struct inodedump_inode *ino,
		    struct idd_check_finding *f)
{
	uint64_t state = (uint64_t)ino->state.v;
	const char *flag;

	if (!has_flag(&ino->state, facts->i_freeing | facts->i_clear))
		return IDD_CHECK_HOLDS;
	flag = (state & facts->i_clear) ? "I_CLEAR" : "I_FREEING";
	if (ino->count.state == IDD_OK && ino->count.v >= 1)
		return found(f, IDD_CHECK_VIOLATED, false, 0,
			     "i_state 0x%llx has %s but i_count is %lld: "
			     "iput() of that reference would hit "
			     "VFS_BUG_ON_INODE(state & (I_FREEING | I_CLEAR), "
			     "inode)", (unsigned long long)state, flag,
			     (long long)ino->count.v);
	if (referenced(ino))
		return found(f, IDD_CHECK_VIOLATED, false, 0,
			     "i_state 0x%llx has %s but %s: iput() of that "
			     "reference would hit VFS_BUG_ON_INODE(state & "
			     "(I_FREEING | I_CLEAR), inode)",
			     (unsigned long long)state, flag, referrer(ino));
	return found(f, IDD_CHECK_SKIPPED, false, 0,
		     "i_state 0x%llx has %s and nothing references the inode: "
		     "it is being evicted, which is no bug, but nothing may "
		     "use it", (unsigned long long)state, flag);
}

/* igrab() takes a reference only from a raised count, never to a freeing one. */
static enum idd_check_verdict
check_igrab_freeing(const struct idd_check_facts *facts,
		    const struct inodedump_inode *ino,
		    struct idd_check_finding *f)
{
	uint64_t state = (uint64_t)ino->state.v;

	if (!has_flag(&ino->state, facts->i_freeing | facts->i_will_free) ||
	    ino->count.state != IDD_OK || ino->count.v < 1)
		return IDD_CHECK_HOLDS;
	return found(f, IDD_CHECK_VIOLATED, false, 0,
		     "i_state 0x%llx has %s with i_count %lld: igrab() would "
		     "take a reference and hit VFS_BUG_ON_INODE(state & "
		     "(I_FREEING | I_WILL_FREE), inode)",
		     (unsigned long long)state,
		     (state & facts->i_freeing) ? "I_FREEING" : "I_WILL_FREE",
		     (long long)ino->count.v);
}

/* locks_get_lock_context() sets i_flctx and IOP_FLCTX together. */
static enum idd_check_verdict
check_flctx_opflag(const struct idd_check_facts *facts,
		   const struct inodedump_inode *ino,
		   struct idd_check_finding *f)
{
	bool flag = has_flag(&ino->opflags, facts->iop_flctx);

	if (ino->opflags.state != IDD_OK || ino->i_flctx.state != IDD_OK ||
	    flag == (ino->i_flctx.addr != 0))
		return IDD_CHECK_HOLDS;
	if (flag)
		return found(f, IDD_CHECK_VIOLATED, false, 0,
			     "IOP_FLCTX set in i_opflags 0x%llx but i_flctx is "
			     "NULL: locks_get_lock_context() would hit "
			     "VFS_BUG_ON_INODE(!inode->i_flctx, inode), and "
			     "locks_inode_context() returns NULL",
			     (unsigned long long)ino->opflags.v);
	return found(f, IDD_CHECK_VIOLATED, true, ino->i_flctx.addr,
		     "i_flctx is 0x%llx but i_opflags 0x%llx lack IOP_FLCTX: "
		     "locks_get_lock_context() would hit "
		     "VFS_BUG_ON_INODE(inode->i_flctx, inode), and "
		     "locks_inode_context() ignores the locks",
		     (unsigned long long)ino->i_flctx.addr,
		     (unsigned long long)ino->opflags.v);
}

/*
 * Path lookup walks through a dentry only if d_can_lookup() (its type is
 * DCACHE_DIRECTORY_TYPE); then it asserts the inode is a directory.
 */
static enum idd_check_verdict
check_lookup_directory(const struct idd_check_facts *facts,
		       const struct inodedump_inode *ino,
		       struct idd_check_finding *f)
{
	unsigned mode = (unsigned)ino->mode.v;

	if (ino->alias_dtype.state == IDD_UNREADABLE)
		return found(f, IDD_CHECK_SKIPPED, false, 0,
			     IDD_CHECK_UNREADABLE "the first alias's d_flags "
			     "could not be read: %s",
			     unreadable_reason(ino, "i_dentry.first's d_flags"));
	if (ino->alias_dtype.state != IDD_OK ||
	    (uint64_t)ino->alias_dtype.v != facts->dcache_directory_type ||
	    idd_mode_type(mode) == INODEDUMP_INODE_DIRECTORY)
		return IDD_CHECK_HOLDS;
	return found(f, IDD_CHECK_VIOLATED, false, 0,
		     "a dentry of directory type (d_can_lookup()) names a %s "
		     "inode (mode 0%o): a path walk through it would hit "
		     "VFS_BUG_ON_INODE(!S_ISDIR(inode->i_mode), inode)",
		     idd_mode_type_name(mode), mode);
}

#define NO_CACHED_LINK "this kernel has no i_linklen/IOP_CACHED_LINK " \
		       "(added in 6.14)"
#define NO_FLCTX "this kernel has no IOP_FLCTX (added in 7.0) or no i_flctx"
#define NO_FREEING "this kernel's i_state flags (I_FREEING) are unknown"
#define NO_DENTRY_TYPE "this kernel's type information has no enum " \
		       "dentry_flags (DCACHE_DIRECTORY_TYPE) or no " \
		       "dentry.d_flags/d_alias"

/*
 * The invariants, in the order their notes appear. cached_link_length and
 * cached_link_not_symlink split one inode between them (symlink or not),
 * so at most one of them fires; on a kernel without i_linklen they share
 * one skipped note. inode_set_cached_link()'s second assertion
 * (VFS_WARN_ON_INODE(inode->i_opflags & IOP_CACHED_LINK)) is about a
 * second call, which memory cannot show: no row.
 */
static const struct idd_check checks[] = {
	{
		.name = "may_open_mode",
		.condition = "VFS_BUG_ON_INODE(!IS_ANON_FILE(inode), inode) "
			     "in the default case of the switch on "
			     "i_mode & S_IFMT (6.15-rc1: VFS_BUG_ON_INODE(1, "
			     "inode))",
		.function = "may_open()",
		.file = "fs/namei.c",
		.members = "i_mode, i_flags (S_ANON_INODE, S_PRIVATE), "
			   "i_dentry",
		.broken_when = "the mode's type bits are none of the seven "
			       "file types, the inode is not S_ANON_INODE, "
			       "and a path can reach it (not S_PRIVATE, has a "
			       "dentry)",
		.check = check_may_open_mode,
	},
	{
		.name = "cached_link_length",
		.condition = "VFS_WARN_ON_INODE(strlen(link) != linklen, "
			     "inode)",
		.function = "inode_set_cached_link()",
		.file = "include/linux/fs.h",
		.members = "i_mode, i_opflags (IOP_CACHED_LINK), i_link, "
			   "i_linklen",
		.needs = IDD_CHECK_NEEDS_I_LINKLEN |
			 IDD_CHECK_NEEDS_IOP_CACHED_LINK,
		.skip_reason = NO_CACHED_LINK,
		.broken_when = "IOP_CACHED_LINK is set on a symlink and "
			       "i_link is NULL, not NUL-terminated within "
			       "PATH_MAX, or strlen(i_link) != i_linklen (an "
			       "i_link the dump cannot give: skipped, "
			       "unreadable)",
		.check = check_cached_link_length,
	},
	{
		.name = "cached_link_not_symlink",
		.condition = "IOP_CACHED_LINK is set only by "
			     "inode_set_cached_link(), on symlinks; "
			     "vfs_readlink() (fs/namei.c) then copies "
			     "i_linklen bytes of i_link",
		.function = "inode_set_cached_link()",
		.file = "include/linux/fs.h",
		.members = "i_mode, i_opflags (IOP_CACHED_LINK)",
		.needs = IDD_CHECK_NEEDS_I_LINKLEN |
			 IDD_CHECK_NEEDS_IOP_CACHED_LINK,
		.skip_reason = NO_CACHED_LINK,
		.broken_when = "IOP_CACHED_LINK is set on an inode that is "
			       "not a symlink",
		.check = check_cached_link_not_symlink,
	},
	{
		.name = "i_count_negative",
		.condition = "VFS_BUG_ON_INODE(icount_read_once(inode) < 1, "
			     "inode) before a reference is dropped",
		.function = "iput()",
		.file = "fs/inode.c",
		.members = "i_count",
		.broken_when = "i_count < 0",
		.check = check_i_count_negative,
	},
	{
		.name = "i_count_zero_referenced",
		.condition = "VFS_BUG_ON_INODE(icount_read_once(inode) < 1, "
			     "inode) in ihold(), iput() (fs/inode.c) and "
			     "iput_if_not_last() (include/linux/fs.h), each "
			     "called with a reference in hand",
		.function = "iput()",
		.file = "fs/inode.c",
		.members = "i_count, i_dentry, i_state (I_FREEING, "
			   "I_WILL_FREE, I_CLEAR), holders",
		.broken_when = "i_count is 0 while a dentry names the inode or "
			       "a task holds it (--holders), and it is not "
			       "being freed",
		.check = check_i_count_zero_referenced,
	},
	{
		.name = "inode_freeing",
		.condition = "VFS_BUG_ON_INODE(inode_state_read_once(inode) & "
			     "(I_FREEING | I_CLEAR), inode)",
		.function = "iput()",
		.file = "fs/inode.c",
		.members = "i_state (I_FREEING, I_CLEAR), i_count, i_dentry, "
			   "holders",
		.broken_when = "I_FREEING or I_CLEAR in i_state while the "
			       "inode is referenced (i_count >= 1, a dentry, a "
			       "holder); without a reference it is being "
			       "evicted: a skipped note",
		.check = check_inode_freeing,
	},
	{
		.name = "igrab_freeing",
		.condition = "VFS_BUG_ON_INODE(inode_state_read_once(inode) & "
			     "(I_FREEING | I_WILL_FREE), inode) after "
			     "atomic_add_unless(&inode->i_count, 1, 0) took a "
			     "reference",
		.function = "igrab()",
		.file = "fs/inode.c",
		.members = "i_state (I_FREEING, I_WILL_FREE), i_count",
		.needs = IDD_CHECK_NEEDS_STATE_FREEING,
		.skip_reason = NO_FREEING,
		.broken_when = "I_FREEING or I_WILL_FREE in i_state with "
			       "i_count >= 1",
		.check = check_igrab_freeing,
	},
	{
		.name = "flctx_opflag",
		.condition = "VFS_BUG_ON_INODE(inode->i_flctx, inode) without "
			     "IOP_FLCTX, VFS_BUG_ON_INODE(!inode->i_flctx, "
			     "inode) with it",
		.function = "locks_get_lock_context()",
		.file = "fs/locks.c",
		.members = "i_opflags (IOP_FLCTX), i_flctx",
		.needs = IDD_CHECK_NEEDS_IOP_FLCTX,
		.skip_reason = NO_FLCTX,
		.broken_when = "IOP_FLCTX is set and i_flctx is NULL, or "
			       "i_flctx is set without IOP_FLCTX",
		.check = check_flctx_opflag,
	},
	{
		.name = "lookup_directory",
		.condition = "VFS_BUG_ON_INODE(!S_ISDIR(inode->i_mode), inode) "
			     "on an inode path lookup walks through (its "
			     "dentry passed d_can_lookup())",
		.function = "lookup_inode_permission_may_exec()",
		.file = "fs/namei.c",
		.members = "i_mode, i_dentry (the first alias's d_flags & "
			   "DCACHE_ENTRY_TYPE)",
		.needs = IDD_CHECK_NEEDS_DENTRY_TYPE,
		.skip_reason = NO_DENTRY_TYPE,
		.broken_when = "a dentry of type DCACHE_DIRECTORY_TYPE names "
			       "an inode whose mode is not a directory",
		.check = check_lookup_directory,
	},
};

#define NCHECKS (sizeof(checks) / sizeof(checks[0]))

const struct idd_check *idd_checks(size_t *count)
{
	*count = NCHECKS;
	return checks;
}

const struct idd_check *idd_check_find(const char *name)
{
	for (size_t i = 0; i < NCHECKS; i++)
		if (!strcmp(checks[i].name, name))
			return &checks[i];
	return NULL;
}

unsigned idd_check_facts_have(const struct idd_check_facts *facts)
{
	unsigned have = 0;

	if (facts->has_i_linklen)
		have |= IDD_CHECK_NEEDS_I_LINKLEN;
	if (facts->iop_cached_link)
		have |= IDD_CHECK_NEEDS_IOP_CACHED_LINK;
	if (facts->iop_flctx && facts->has_i_flctx)
		have |= IDD_CHECK_NEEDS_IOP_FLCTX;
	if (facts->i_freeing)
		have |= IDD_CHECK_NEEDS_STATE_FREEING;
	if (facts->dcache_directory_type)
		have |= IDD_CHECK_NEEDS_DENTRY_TYPE;
	return have;
}

/* An earlier row was skipped on this kernel for the same reason. */
static bool skip_noted(size_t row, unsigned have)
{
	for (size_t i = 0; i < row; i++)
		if ((checks[i].needs & ~have) &&
		    !strcmp(checks[i].skip_reason, checks[row].skip_reason))
			return true;
	return false;
}

void idd_checks_run(const struct idd_check_facts *facts,
		    struct inodedump_inode *ino)
{
	unsigned have = idd_check_facts_have(facts);

	for (size_t i = 0; i < NCHECKS; i++) {
		const struct idd_check *c = &checks[i];
		struct idd_check_finding f;

		if (c->needs & ~have) {
			if (!skip_noted(i, have))
				idd_notes_add_static(&ino->arena, &ino->skipped,
						     c->name, c->skip_reason);
			continue;
		}
		/* not = { 0 }: the message buffer is large, and per check */
		f.has_address = false;
		f.address = 0;
		f.message[0] = '\0';
		switch (c->check(facts, ino, &f)) {
		case IDD_CHECK_HOLDS:
			break;
		case IDD_CHECK_VIOLATED:
			idd_notes_add(&ino->arena, &ino->violations, c->name,
				      f.has_address, f.address, "%s",
				      f.message);
			break;
		case IDD_CHECK_SKIPPED:
			idd_notes_add(&ino->arena, &ino->skipped, c->name,
				      f.has_address, f.address, "%s",
				      f.message);
			break;
		}
	}
}
