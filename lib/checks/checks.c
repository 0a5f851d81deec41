// SPDX-License-Identifier: LGPL-2.1-or-later
/* The VFS invariants, each named after the kernel condition it mirrors. */
#include <string.h>

#include "checks/checks.h"
#include "decode/layout.h"

static uint64_t state_bit(const struct inode_layout *l, const char *name)
{
	for (size_t i = 0; i < l->nstate; i++)
		if (!strcmp(l->state[i].name, name))
			return l->state[i].value;
	return 0;
}

/* The invariants, each named after the kernel condition it mirrors. */
void idd_run_checks(const struct inode_layout *l, struct inodedump_inode *ino)
{
	unsigned mode = (unsigned)ino->mode.v;
	bool symlink = (mode & 0170000) == 0120000;
	bool cached = l->cached_link && ino->opflags.state == IDD_OK &&
		      ((uint64_t)ino->opflags.v & l->cached_link);
	uint64_t freeing = state_bit(l, "I_FREEING"), clear = state_bit(l, "I_CLEAR");

	if (!strcmp(idd_mode_type_name(mode), "invalid")) {
		/*
		 * may_open() only sees inodes reached by a path: an inode
		 * the filesystem keeps for itself (S_PRIVATE: anon inodes,
		 * ...) or one without a dentry (ext4's bad-blocks inode)
		 * may have no type at all.
		 */
		uint64_t s_private = 0;

		for (size_t i = 0; i < l->niflags; i++)
			if (!strcmp(l->iflags[i].name, "S_PRIVATE"))
				s_private = l->iflags[i].value;
		if (ino->flags.state == IDD_OK && ((uint64_t)ino->flags.v & s_private))
			idd_notes_add(&ino->skipped, "may_open_mode", false, 0,
				      "i_mode 0%o has no file type, but the "
				      "inode is S_PRIVATE (fs-internal): "
				      "may_open() cannot reach it", mode);
		else if (l->i_dentry_first.present && !ino->has_alias)
			idd_notes_add(&ino->skipped, "may_open_mode", false, 0,
				      "i_mode 0%o has no file type, but no "
				      "dentry names the inode: may_open() "
				      "cannot reach it", mode);
		else
			idd_notes_add(&ino->violations, "may_open_mode", false,
				      0, "i_mode 0%o has file type bits 0%o, "
				      "none of the seven file types: may_open() "
				      "would hit VFS_BUG_ON_INODE(1, inode)",
				      mode, mode & 0170000);
	}

	if (!l->i_linklen.present || !l->cached_link) {
		idd_notes_add(&ino->skipped, "cached_link_length", false, 0,
			      "this kernel has no i_linklen/IOP_CACHED_LINK "
			      "(added in 6.14)");
	} else if (cached && !symlink) {
		idd_notes_add(&ino->violations, "cached_link_not_symlink", false,
			      0, "IOP_CACHED_LINK set in i_opflags 0x%llx on a "
			      "%s inode (mode 0%o): only symlinks cache links",
			      (unsigned long long)ino->opflags.v,
			      idd_mode_type_name(mode), mode);
	} else if (cached && ino->i_link.state == IDD_OK && !ino->i_link.addr) {
		idd_notes_add(&ino->violations, "cached_link_length", false, 0,
			      "IOP_CACHED_LINK set but i_link is NULL "
			      "(i_linklen %lld)", (long long)ino->linklen.v);
	} else if (cached && ino->link.state == IDD_UNREADABLE) {
		idd_notes_add(&ino->violations, "cached_link_length", true,
			      ino->i_link.addr,
			      "IOP_CACHED_LINK set but i_link 0x%llx is "
			      "unreadable (i_linklen %lld)",
			      (unsigned long long)ino->i_link.addr,
			      (long long)ino->linklen.v);
	} else if (cached && ino->link.state == IDD_OK && ino->link.truncated) {
		idd_notes_add(&ino->violations, "cached_link_length", true,
			      ino->i_link.addr,
			      "i_link 0x%llx has no NUL within PATH_MAX (%d) "
			      "bytes, i_linklen = %lld: the cached link is "
			      "not a string",
			      (unsigned long long)ino->i_link.addr,
			      LINK_MAX_BYTES, (long long)(int32_t)ino->linklen.v);
	} else if (cached && ino->link.state == IDD_OK &&
		   ino->link_strlen.v != (int32_t)ino->linklen.v) {
		idd_notes_add(&ino->violations, "cached_link_length", false, 0,
			      "strlen(i_link) = %lld but i_linklen = %lld: "
			      "inode_set_cached_link() would hit "
			      "VFS_WARN_ON_INODE(strlen(link) != linklen)%s",
			      (long long)ino->link_strlen.v,
			      (long long)(int32_t)ino->linklen.v,
			      ino->link_strlen.v > ino->linklen.v
				      ? "; readlink() returns a truncated target"
				      : "; readlink() reads past the string");
	}

	if (ino->count.state == IDD_OK && ino->count.v < 0)
		idd_notes_add(&ino->violations, "i_count_negative", false, 0,
			      "i_count is %lld: more iput() than igrab()",
			      (long long)ino->count.v);
	if (ino->state.state == IDD_OK &&
	    ((uint64_t)ino->state.v & (freeing | clear)))
		idd_notes_add(&ino->violations, "inode_freeing", false, 0,
			      "i_state 0x%llx has %s: the inode is being or has "
			      "been freed, and nothing may use it",
			      (unsigned long long)ino->state.v,
			      ((uint64_t)ino->state.v & clear) ? "I_CLEAR"
							       : "I_FREEING");
}

