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
#include "decode/layout.h"

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
		     "file types: may_open() would hit "
		     "VFS_BUG_ON_INODE(1, inode)", mode, mode & 0170000);
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
		return found(f, IDD_CHECK_VIOLATED, true, ino->i_link.addr,
			     "IOP_CACHED_LINK set but i_link 0x%llx is "
			     "unreadable (i_linklen %lld)",
			     (unsigned long long)ino->i_link.addr,
			     (long long)ino->linklen.v);
	if (ino->link.state != IDD_OK)
		return IDD_CHECK_HOLDS;
	if (ino->link.truncated)
		return found(f, IDD_CHECK_VIOLATED, true, ino->i_link.addr,
			     "i_link 0x%llx has no NUL within PATH_MAX (%d) "
			     "bytes, i_linklen = %lld: the cached link is not "
			     "a string", (unsigned long long)ino->i_link.addr,
			     LINK_MAX_BYTES, (long long)linklen);
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

static enum idd_check_verdict
check_inode_freeing(const struct idd_check_facts *facts,
		    const struct inodedump_inode *ino,
		    struct idd_check_finding *f)
{
	uint64_t state = (uint64_t)ino->state.v;

	if (ino->state.state != IDD_OK ||
	    !(state & (facts->i_freeing | facts->i_clear)))
		return IDD_CHECK_HOLDS;
	return found(f, IDD_CHECK_VIOLATED, false, 0,
		     "i_state 0x%llx has %s: the inode is being or has been "
		     "freed, and nothing may use it", (unsigned long long)state,
		     (state & facts->i_clear) ? "I_CLEAR" : "I_FREEING");
}

#define NO_CACHED_LINK "this kernel has no i_linklen/IOP_CACHED_LINK " \
		       "(added in 6.14)"

/*
 * The invariants, in the order their notes appear. cached_link_length and
 * cached_link_not_symlink split one inode between them (symlink or not),
 * so at most one of them fires; on a kernel without i_linklen they share
 * one skipped note.
 */
static const struct idd_check checks[] = {
	{
		.name = "may_open_mode",
		.condition = "VFS_BUG_ON_INODE(!IS_ANON_FILE(inode), inode) "
			     "in the default case of the switch on "
			     "i_mode & S_IFMT (6.15: VFS_BUG_ON_INODE(1, "
			     "inode))",
		.function = "may_open()",
		.file = "fs/namei.c",
		.members = "i_mode, i_flags (S_PRIVATE), i_dentry",
		.broken_when = "the mode's type bits are none of the seven "
			       "file types, on an inode a path can reach "
			       "(not S_PRIVATE, has a dentry)",
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
			       "i_link is NULL, unreadable, not "
			       "NUL-terminated within PATH_MAX, or "
			       "strlen(i_link) != i_linklen",
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
		.condition = "VFS_BUG_ON_INODE(atomic_read(&inode->i_count) "
			     "< 1, inode) before a reference is dropped",
		.function = "iput()",
		.file = "fs/inode.c",
		.members = "i_count",
		.broken_when = "i_count < 0",
		.check = check_i_count_negative,
	},
	{
		.name = "inode_freeing",
		.condition = "VFS_BUG_ON_INODE(inode_state_read_once(inode) & "
			     "I_CLEAR, inode); an I_FREEING inode is being "
			     "evicted and igrab() refuses it",
		.function = "iput()",
		.file = "fs/inode.c",
		.members = "i_state (I_FREEING, I_CLEAR)",
		.broken_when = "I_FREEING or I_CLEAR in i_state",
		.check = check_inode_freeing,
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
	return have;
}

static uint64_t flag_value(const struct idd_flag *table, size_t n,
			   const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(table[i].name, name))
			return table[i].value;
	return 0;
}

void idd_check_facts_from_layout(const struct inode_layout *l,
				 struct idd_check_facts *facts)
{
	*facts = (struct idd_check_facts){
		.iop_cached_link = l->cached_link,
		.i_freeing = flag_value(l->state, l->nstate, "I_FREEING"),
		.i_clear = flag_value(l->state, l->nstate, "I_CLEAR"),
		.s_private = flag_value(l->iflags, l->niflags, "S_PRIVATE"),
		.has_i_linklen = l->i_linklen.present,
		.has_i_dentry = l->i_dentry_first.present,
	};
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
		struct idd_check_finding f = { 0 };

		if (c->needs & ~have) {
			if (!skip_noted(i, have))
				idd_notes_add(&ino->skipped, c->name, false, 0,
					      "%s", c->skip_reason);
			continue;
		}
		switch (c->check(facts, ino, &f)) {
		case IDD_CHECK_HOLDS:
			break;
		case IDD_CHECK_VIOLATED:
			idd_notes_add(&ino->violations, c->name, f.has_address,
				      f.address, "%s", f.message);
			break;
		case IDD_CHECK_SKIPPED:
			idd_notes_add(&ino->skipped, c->name, f.has_address,
				      f.address, "%s", f.message);
			break;
		}
	}
}

void idd_run_checks(const struct inode_layout *l, struct inodedump_inode *ino)
{
	struct idd_check_facts facts;

	idd_check_facts_from_layout(l, &facts);
	idd_checks_run(&facts, ino);
}
