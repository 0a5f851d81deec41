// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Paths: the names of an inode, from its dentry aliases (i_dentry) up the
 * d_parent chain, then through the mounts of its superblock (s_mounts) up
 * each mount's mountpoint to the root mount. Every walk is bounded; a cycle
 * or a corrupt pointer ends the walk with a note, never a hang.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "decode/inode.h"

#define MAX_ALIASES 64
#define MAX_DEPTH 512	 /* path components */
#define MAX_MOUNTS 256	 /* mounts of one superblock */
#define MAX_MOUNT_HOPS 64 /* nested mounts */
#define NAME_MAX_BYTES 255

struct path_layout {
	bool ok;
	struct idd_struct dentry, mount;
	struct idd_member d_parent, d_name_len, d_name_name, d_alias, d_hash_pprev;
	struct idd_member i_dentry_first;
	struct idd_member mnt_parent, mnt_mountpoint, mnt_root, mnt_instance,
		s_mounts;
	struct idd_member hlist_next, list_next; /* within their node types */
};

/*
 * struct mount is private to fs/: in DWARF only the units of fs/ files have
 * it, deep in .debug_info. BTF, where the kernel has it, is far cheaper.
 */
static bool mount_from_btf(struct inodedump *id, struct path_layout *l)
{
	if (!id->btf_tried) {
		id->btf_tried = true;
		id->btf = idd_btf_load(id);
	}
	return id->btf &&
	       idd_btf_member(id->btf, "mount", "mnt_parent", &l->mnt_parent) &&
	       idd_btf_member(id->btf, "mount", "mnt_mountpoint",
			      &l->mnt_mountpoint) &&
	       idd_btf_member(id->btf, "mount", "mnt.mnt_root", &l->mnt_root) &&
	       idd_btf_member(id->btf, "mount", "mnt_instance", &l->mnt_instance);
}

static struct path_layout *path_layout(struct inodedump *id)
{
	struct path_layout *l;
	struct idd_types *t = id->types;
	struct idd_struct inode, sb;
	struct idd_member i_sb;

	if (id->paths_layout)
		return id->paths_layout;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	id->paths_layout = l;
	if (idd_types_struct(t, "inode", &inode) ||
	    idd_types_struct(t, "dentry", &l->dentry))
		return l;
	if (!mount_from_btf(id, l)) {
		/* No BTF: struct mount from the DWARF of fs/namespace.c. */
		idd_anchor(id, "fs/namespace.c",
			   (const char *const[]){ "mntput", "kern_mount", NULL });
		if (idd_types_struct_in(t, "mount", "fs/namespace.c", &l->mount))
			return l;
		idd_types_member(t, &l->mount, "mnt_parent", &l->mnt_parent);
		idd_types_member(t, &l->mount, "mnt_mountpoint",
				 &l->mnt_mountpoint);
		idd_types_member(t, &l->mount, "mnt.mnt_root", &l->mnt_root);
		idd_types_member(t, &l->mount, "mnt_instance", &l->mnt_instance);
	}
	idd_types_member(t, &inode, "i_dentry.first", &l->i_dentry_first);
	idd_types_member(t, &inode, "i_sb", &i_sb);
	{
		struct idd_struct node;
		struct idd_member i_lru;

		if (!idd_types_pointee_struct(t, &l->i_dentry_first, &node))
			idd_types_member(t, &node, "next", &l->hlist_next);
		idd_types_member(t, &inode, "i_lru", &i_lru);
		if (i_lru.present && i_lru.kind == IDD_KIND_STRUCT) {
			struct idd_struct list = { .die = i_lru.type,
						   .size = i_lru.size };

			idd_types_member(t, &list, "next", &l->list_next);
		}
	}
	if (idd_types_pointee_struct(t, &i_sb, &sb))
		return l;
	idd_types_member(t, &sb, "s_mounts", &l->s_mounts);
	idd_types_member(t, &l->dentry, "d_parent", &l->d_parent);
	idd_types_member(t, &l->dentry, "d_name.len", &l->d_name_len);
	idd_types_member(t, &l->dentry, "d_name.name", &l->d_name_name);
	idd_types_member(t, &l->dentry, "d_u.d_alias", &l->d_alias);
	idd_types_member(t, &l->dentry, "d_hash.pprev", &l->d_hash_pprev);
	l->ok = l->i_dentry_first.present && l->s_mounts.present &&
		l->d_parent.present && l->d_name_len.present &&
		l->d_name_name.present && l->d_alias.present &&
		l->mnt_parent.present && l->mnt_mountpoint.present &&
		l->mnt_root.present && l->mnt_instance.present &&
		l->hlist_next.present && l->list_next.present;
	return l;
}

static struct inodedump_error *read_u64(struct inodedump *id, uint64_t addr,
					uint64_t *out)
{
	return idd_target_read_u64(id->target, addr, out);
}

struct dentry_info {
	uint64_t parent;
	char name[NAME_MAX_BYTES + 1];
	bool hashed;
};

static struct inodedump_error *read_dentry(struct inodedump *id,
					   const struct path_layout *l,
					   uint64_t addr, struct dentry_info *out)
{
	uint8_t *buf = malloc(l->dentry.size);
	struct inodedump_error *err;
	uint64_t len, name;
	size_t got;

	if (!buf)
		return idd_nomem();
	err = idd_target_read(id->target, addr, buf, l->dentry.size);
	if (!err) {
		out->parent = idd_member_uval(&l->d_parent, buf);
		len = idd_member_uval(&l->d_name_len, buf);
		name = idd_member_uval(&l->d_name_name, buf);
		out->hashed = !l->d_hash_pprev.present ||
			      idd_member_uval(&l->d_hash_pprev, buf) != 0;
		got = len > NAME_MAX_BYTES ? NAME_MAX_BYTES : (size_t)len;
		err = idd_target_read(id->target, name, out->name, got);
		out->name[err ? 0 : got] = '\0';
	}
	free(buf);
	return err;
}

/* Prepend "/name" to the path being built right to left in buf. */
static bool prepend(char *buf, size_t *start, const char *name)
{
	size_t n = strlen(name);

	if (*start < n + 1)
		return false;
	*start -= n;
	memcpy(buf + *start, name, n);
	buf[--*start] = '/';
	return true;
}

/* Keep the newest reason a walk failed; the older one is freed. */
static void set_why(char **why, char *reason)
{
	free(*why);
	*why = reason;
}

/*
 * The path of dentry as seen through mount mnt: up to the mount's root,
 * then from its mountpoint in the parent mount, up to a mount that is its
 * own parent. NULL when this mount does not contain the dentry. Every
 * dentry and mount met is remembered: a loop ends the walk at once.
 */
static char *path_through(struct inodedump *id, const struct path_layout *l,
			  uint64_t dentry, uint64_t mnt, char **why)
{
	char *buf = malloc(4096 + 1);
	size_t start = 4096;
	int depth = 0, hops = 0;
	struct idd_visited seen = { 0 };
	struct inodedump_error *err = NULL;

	if (!buf)
		return NULL;
	buf[start] = '\0';
	for (;;) {
		uint64_t mnt_root, parent_mnt;
		struct dentry_info d;

		if (++depth > MAX_DEPTH || idd_visit(&seen, dentry ^ mnt)) {
			set_why(why, idd_strdup_printf(
				"dentry 0x%" PRIx64 " met twice on the way up "
				"(d_parent or mount chain loops)", dentry));
			goto fail;
		}
		if ((err = read_u64(id, mnt + l->mnt_root.offset, &mnt_root)))
			goto fail;
		if (dentry == mnt_root) {
			if ((err = read_u64(id, mnt + l->mnt_parent.offset,
					    &parent_mnt)))
				goto fail;
			if (parent_mnt == mnt || !parent_mnt)
				break; /* the root of a mount tree */
			if (++hops > MAX_MOUNT_HOPS) {
				set_why(why, strdup("mount chain too deep"));
				goto fail;
			}
			if ((err = read_u64(id, mnt + l->mnt_mountpoint.offset,
					    &dentry)))
				goto fail;
			mnt = parent_mnt;
			continue;
		}
		if ((err = read_dentry(id, l, dentry, &d)))
			goto fail;
		if (d.parent == dentry) {
			/*
			 * A root dentry that is not the mount's root: this
			 * mount shows another subtree (a bind mount), or the
			 * mount tree is inconsistent.
			 */
			if (hops)
				set_why(why, idd_strdup_printf(
					"dentry 0x%" PRIx64 " is not below the "
					"root of mount 0x%" PRIx64 ": mount tree "
					"inconsistent", dentry, mnt));
			goto fail;
		}
		if (!prepend(buf, &start, d.name)) {
			set_why(why, strdup("path longer than PATH_MAX"));
			goto fail;
		}
		dentry = d.parent;
	}
	idd_visited_free(&seen);
	if (start == 4096)
		prepend(buf, &start, "");
	memmove(buf, buf + start, 4096 - start + 1);
	return buf;
fail:
	if (err) {
		set_why(why, strdup(inodedump_error_message(err)));
		inodedump_error_free(err);
	}
	idd_visited_free(&seen);
	free(buf);
	return NULL;
}

static void add_path(struct inodedump_inode *ino, char *path)
{
	char **grown = realloc(ino->paths, (ino->npaths + 2) * sizeof(*grown));

	if (!grown) {
		free(path);
		return;
	}
	ino->paths = grown;
	/* The same name seen through two mounts is one path. */
	for (size_t i = 0; i < ino->npaths; i++) {
		if (!strcmp(ino->paths[i], path)) {
			free(path);
			return;
		}
	}
	ino->paths[ino->npaths++] = path;
	ino->paths[ino->npaths] = NULL;
}

/* Pseudo filesystems are named the way /proc/PID/fd shows them. */
static bool pseudo_path(struct inodedump_inode *ino, const char *alias_name)
{
	const char *fs = ino->fs_type.s;
	char *p = NULL;

	if (!fs)
		return false;
	if (!strcmp(fs, "pipefs"))
		p = idd_strdup_printf("pipe:[%" PRIu64 "]", (uint64_t)ino->ino.v);
	else if (!strcmp(fs, "sockfs"))
		p = idd_strdup_printf("socket:[%" PRIu64 "]", (uint64_t)ino->ino.v);
	else if (!strcmp(fs, "anon_inodefs"))
		p = idd_strdup_printf("anon_inode:%s", alias_name ? alias_name : "?");
	if (!p)
		return false;
	add_path(ino, p);
	return true;
}

static void paths_of_alias(struct inodedump *id, const struct path_layout *l,
			   struct inodedump_inode *ino, uint64_t dentry)
{
	uint64_t head = ino->sb.addr + l->s_mounts.offset, node;
	struct dentry_info d;
	struct inodedump_error *err;
	char *why = NULL;
	int mounts = 0;

	err = read_dentry(id, l, dentry, &d);
	if (err) {
		idd_notes_add(&ino->errors, "i_dentry", true, dentry,
			      "dentry 0x%" PRIx64 ": %s", dentry,
			      inodedump_error_message(err));
		inodedump_error_free(err);
		return;
	}
	if (pseudo_path(ino, d.name))
		return;
	if (!d.hashed && d.parent != dentry)
		ino->unlinked_alias = true;
	struct idd_visited seen = { 0 };

	err = read_u64(id, head + l->list_next.offset, &node);
	while (!err && node != head && mounts++ < MAX_MOUNTS &&
	       !idd_visit(&seen, node)) {
		uint64_t mnt = node - l->mnt_instance.offset;
		char *p = path_through(id, l, dentry, mnt, &why);

		if (p && ino->unlinked_alias) {
			char *deleted = idd_strdup_printf("%s (deleted)", p);

			free(p);
			p = deleted;
		}
		if (p)
			add_path(ino, p);
		err = read_u64(id, node + l->list_next.offset, &node);
	}
	if (!err && node != head && mounts <= MAX_MOUNTS)
		mounts = MAX_MOUNTS + 1; /* stopped at a repeat: a loop */
	idd_visited_free(&seen);
	if (err || mounts > MAX_MOUNTS || (why && !ino->npaths))
		idd_notes_add(&ino->errors, "paths", false, 0, "%s",
			      err ? inodedump_error_message(err)
			      : mounts > MAX_MOUNTS ? "s_mounts list loops or is too long"
						    : why);
	inodedump_error_free(err);
	free(why);
}

void idd_decode_paths(struct inodedump *id, struct inodedump_inode *ino)
{
	struct path_layout *l = path_layout(id);
	uint64_t node = 0;
	int aliases = 0;
	struct inodedump_error *err;

	if (!l || !l->ok) {
		idd_notes_add(&ino->skipped, "paths", false, 0,
			      "this kernel's dentry/mount types lack a member "
			      "the path walk needs");
		return;
	}
	ino->paths_known = true;
	struct idd_visited seen = { 0 };

	err = read_u64(id, ino->address + l->i_dentry_first.offset, &node);
	while (!err && node && aliases++ < MAX_ALIASES) {
		if (idd_visit(&seen, node)) {
			aliases = MAX_ALIASES + 1;
			break;
		}
		paths_of_alias(id, l, ino, node - l->d_alias.offset);
		err = read_u64(id, node + l->hlist_next.offset, &node);
	}
	idd_visited_free(&seen);
	if (aliases > MAX_ALIASES)
		idd_notes_add(&ino->errors, "i_dentry", false, 0,
			      "more than %d dentry aliases: list corrupt or "
			      "cyclic", MAX_ALIASES);
	if (err) {
		idd_notes_add(&ino->errors, "i_dentry", true, node, "%s",
			      inodedump_error_message(err));
		inodedump_error_free(err);
	}
	if (!aliases)
		pseudo_path(ino, NULL);
}
