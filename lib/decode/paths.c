// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Paths: the names of an inode, from its dentry aliases (i_dentry) up the
 * d_parent chain, then through the mounts of its superblock (s_mounts) up
 * each mount's mountpoint to the root mount. Every walk is bounded; a cycle
 * or a corrupt pointer ends the walk with a note, never a hang.
 *
 * A path is formed per mount and said with that mount's namespace
 * (mnt_ns, mntns.c): the same path in two namespaces is two rows, and a
 * mount in no namespace (overlayfs's private layer clones, kern_mount()s,
 * detached mounts) gives a row that says so, never a user's path. A path
 * whose dentry, or one above it, another mount of the namespace is on is
 * said covered: no lookup there reaches it.
 *
 * The walk does not stop at PID 1's root: finding it (init_task by name,
 * task_struct and fs_struct in DWARF) doubled the cost of a one-inode
 * decode, and on every kernel measured it names the same paths: on 7.x
 * the nullfs that init_task's root is, with rootfs mounted over it, adds
 * nothing but "/". A PID 1 chrooted below its mount's root would differ.
 *
 * Where the kernel keeps each member is read from its types: d_alias in
 * d_u (up to 7.0) or in an anonymous union (7.1+); s_mounts a list of
 * mounts through mnt_instance (up to 7.0) or a struct mount * chain
 * through mnt_next_for_sb (7.1+).
 *
 * What the dump does not let us read becomes a note in the inode's errors,
 * and the paths are marked incomplete (inodedump_inode_incomplete()); only
 * running out of memory is returned to the decode.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "decode/inode.h"

#define MAX_ALIASES 64
#define MAX_DEPTH 512	 /* path components */
#define MAX_MOUNTS 256	 /* mounts of one superblock */
#define MAX_MOUNT_HOPS 64 /* nested mounts */
#define NAME_MAX_BYTES 255
#define PATH_BYTES 4096	 /* PATH_MAX */

/*
 * The mounts on each mount a walk met: for a mount, its children's
 * mountpoints (mnt_mounts through mnt_child), read once a session. A
 * path through a dentry another mount is mounted on is covered: no
 * lookup in that namespace reaches it (stat of the name shows the mount
 * on top: the container's /merged is the overlay, not the rootfs
 * directory under it; kdevtmpfs's namespace has devtmpfs over /).
 */
struct mount_kids {
	uint64_t mnt;	/* 0: a free slot */
	uint64_t *kids; /* child mount, its mountpoint, in pairs */
	size_t n;	/* pairs */
};

struct covers {
	struct mount_kids *v;
	size_t cap, used; /* cap a power of two */
};

struct path_layout {
	bool ok;
	struct idd_struct dentry, mount;
	struct idd_member d_parent, d_name_len, d_name_name, d_alias, d_hash_pprev;
	struct idd_member i_dentry_first;
	struct idd_member mnt_parent, mnt_mountpoint, mnt_root, mnt_instance,
		mnt_next_for_sb, mnt_mnt, mnt_ns, mnt_mounts, mnt_child, s_mounts;
	struct idd_member hlist_next, list_next; /* within their node types */
	bool mounts_chained; /* s_mounts is a struct mount * (7.1+) */
	bool covers_known;   /* mnt_mounts and mnt_child: covers are looked for */
	struct covers covers;
};

/*
 * struct mount is private to fs/: in DWARF only the units of fs/ files have
 * it, deep in .debug_info. BTF, where the kernel has it, is far cheaper.
 * *found: BTF has every member of struct mount the walk needs.
 */
static struct inodedump_error *mount_from_btf(struct inodedump *id,
					      struct path_layout *l,
					      bool *found)
{
	struct idd_btfl *btf;
	struct inodedump_error *err;

	*found = false;
	/*
	 * None when every type is from BTF already, or BTF cannot be read:
	 * struct mount comes from DWARF.
	 */
	if ((err = idd_session_lazy_btf(id, &btf)) || !btf)
		return err;
	/* and what the namespaces of the mounts take next (mntns.c) */
	idd_btfl_want(btf, (const char *const[]){ "mount", "mnt_namespace",
						  "task_struct", "nsproxy" },
		      4);
	*found = idd_btfl_member(btf, "mount", "mnt_parent", &l->mnt_parent) &&
		 idd_btfl_member(btf, "mount", "mnt_mountpoint",
				&l->mnt_mountpoint) &&
		 idd_btfl_member(btf, "mount", "mnt.mnt_root", &l->mnt_root);
	if (!*found)
		return NULL;
	/* One of the two links of s_mounts, whichever this kernel has. */
	idd_btfl_member(btf, "mount", "mnt_instance", &l->mnt_instance);
	idd_btfl_member(btf, "mount", "mnt_next_for_sb", &l->mnt_next_for_sb);
	*found = l->mnt_instance.present || l->mnt_next_for_sb.present;
	idd_btfl_member(btf, "mount", "mnt", &l->mnt_mnt);
	idd_btfl_member(btf, "mount", "mnt_ns", &l->mnt_ns);
	idd_btfl_member(btf, "mount", "mnt_mounts", &l->mnt_mounts);
	idd_btfl_member(btf, "mount", "mnt_child", &l->mnt_child);
	return NULL;
}

/*
 * The members the walk needs. A type this kernel lacks leaves l->ok false
 * (the walk is skipped with a note); only other errors are returned.
 */
static struct inodedump_error *find_path_members(struct inodedump *id,
						 struct path_layout *l)
{
	struct idd_types *t = id->types;
	struct idd_struct inode, sb, node;
	struct idd_member i_sb, i_lru;
	struct inodedump_error *err;
	bool have_mount;

	if ((err = idd_types_struct(t, "inode", &inode)) ||
	    (err = idd_types_struct(t, "dentry", &l->dentry)))
		return idd_error_unless(err, INODEDUMP_ERR_TYPE);
	if ((err = mount_from_btf(id, l, &have_mount)))
		return err;
	if (!have_mount) {
		/* No BTF: struct mount from the DWARF of fs/namespace.c. */
		idd_anchor(t, id->syms, "fs/namespace.c",
			   (const char *const[]){ "mntput", "kern_mount", NULL });
		err = idd_types_struct_in(t, "mount", "fs/namespace.c", &l->mount);
		if (err)
			return idd_error_unless(err, INODEDUMP_ERR_TYPE);
		idd_types_member(t, &l->mount, "mnt_parent", &l->mnt_parent);
		idd_types_member(t, &l->mount, "mnt_mountpoint",
				 &l->mnt_mountpoint);
		idd_types_member(t, &l->mount, "mnt.mnt_root", &l->mnt_root);
		idd_types_member(t, &l->mount, "mnt_instance", &l->mnt_instance);
		idd_types_member(t, &l->mount, "mnt_next_for_sb",
				 &l->mnt_next_for_sb);
		idd_types_member(t, &l->mount, "mnt", &l->mnt_mnt);
		idd_types_member(t, &l->mount, "mnt_ns", &l->mnt_ns);
		idd_types_member(t, &l->mount, "mnt_mounts", &l->mnt_mounts);
		idd_types_member(t, &l->mount, "mnt_child", &l->mnt_child);
	}
	l->covers_known = l->mnt_mounts.present && l->mnt_child.present;
	if (l->mnt_ns.size != 8)
		l->mnt_ns.present = false; /* a mount's namespace not known */
	idd_types_member(t, &inode, "i_dentry.first", &l->i_dentry_first);
	idd_types_member(t, &inode, "i_sb", &i_sb);
	err = idd_types_pointee_struct(t, &l->i_dentry_first, &node);
	if (!err)
		idd_types_member(t, &node, "next", &l->hlist_next);
	else if ((err = idd_error_unless(err, INODEDUMP_ERR_TYPE)))
		return err;
	idd_types_member(t, &inode, "i_lru", &i_lru);
	if (i_lru.present && i_lru.kind == IDD_KIND_STRUCT) {
		struct idd_struct list = idd_member_struct(&i_lru);

		idd_types_member(t, &list, "next", &l->list_next);
	}
	if ((err = idd_types_pointee_struct(t, &i_sb, &sb)))
		return idd_error_unless(err, INODEDUMP_ERR_TYPE);
	idd_types_member(t, &sb, "s_mounts", &l->s_mounts);
	idd_types_member(t, &l->dentry, "d_parent", &l->d_parent);
	idd_types_member(t, &l->dentry, "d_name.len", &l->d_name_len);
	idd_types_member(t, &l->dentry, "d_name.name", &l->d_name_name);
	idd_types_member(t, &l->dentry, "d_u.d_alias", &l->d_alias);
	if (!l->d_alias.present) /* 7.1+: d_u is an anonymous union */
		idd_types_member(t, &l->dentry, "d_alias", &l->d_alias);
	idd_types_member(t, &l->dentry, "d_hash.pprev", &l->d_hash_pprev);
	l->mounts_chained = l->s_mounts.present &&
			    l->s_mounts.kind == IDD_KIND_PTR;
	l->ok = l->i_dentry_first.present && l->s_mounts.present &&
		l->d_parent.present && l->d_name_len.present &&
		l->d_name_name.present && l->d_alias.present &&
		l->mnt_parent.present && l->mnt_mountpoint.present &&
		l->mnt_root.present && l->hlist_next.present &&
		(l->mounts_chained ? l->mnt_next_for_sb.present
				   : l->mnt_instance.present &&
					     l->list_next.present);
	return NULL;
}

void idd_paths_layout_free(struct path_layout *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->covers.cap; i++)
		free(l->covers.v[i].kids);
	free(l->covers.v);
	free(l);
}

static size_t kids_slot(const struct covers *c, uint64_t mnt)
{
	size_t i = (size_t)((mnt >> 6) * 0x9e3779b97f4a7c15ull) & (c->cap - 1);

	while (c->v[i].mnt && c->v[i].mnt != mnt)
		i = (i + 1) & (c->cap - 1);
	return i;
}

static struct inodedump_error *covers_grow(struct covers *c)
{
	struct covers bigger = { .cap = c->cap ? 2 * c->cap : 64,
				 .used = c->used };

	bigger.v = calloc(bigger.cap, sizeof(*bigger.v));
	if (!bigger.v)
		return idd_nomem();
	for (size_t i = 0; i < c->cap; i++)
		if (c->v[i].mnt)
			bigger.v[kids_slot(&bigger, c->v[i].mnt)] = c->v[i];
	free(c->v);
	*c = bigger;
	return NULL;
}

/*
 * The children of mount mnt and their mountpoints, read on first need.
 * A list that cannot be read in full keeps what was read: a cover not
 * read is a path not said to be covered, as before covers were read.
 */
static struct inodedump_error *mount_kids(struct inodedump *id,
					  struct path_layout *l, uint64_t mnt,
					  const struct mount_kids **out)
{
	_cleanup_visited_ struct idd_visited seen = { 0 };
	struct covers *c = &l->covers;
	struct mount_kids *k;
	uint64_t head = mnt + l->mnt_mounts.offset, node;
	struct inodedump_error *err;
	size_t i;

	if (2 * (c->used + 1) > c->cap && (err = covers_grow(c)))
		return err;
	i = kids_slot(c, mnt);
	k = &c->v[i];
	*out = k;
	if (k->mnt)
		return NULL;
	k->mnt = mnt;
	c->used++;
	err = idd_target_read_u64(id->target, head, &node);
	while (!err && node != head && k->n < MAX_MOUNTS) {
		uint64_t kid = node - l->mnt_child.offset, mp;
		uint64_t *grown;
		bool again;

		if ((err = idd_visit(&seen, node, &again)) || again)
			break;
		if ((err = idd_target_read_u64(id->target,
					       kid + l->mnt_mountpoint.offset,
					       &mp)))
			break;
		grown = realloc(k->kids, 2 * (k->n + 1) * sizeof(*grown));
		if (!grown)
			return idd_nomem();
		k->kids = grown;
		k->kids[2 * k->n] = kid;
		k->kids[2 * k->n++ + 1] = mp;
		err = idd_target_read_u64(id->target, node, &node);
	}
	if (idd_error_is_nomem(err))
		return err;
	inodedump_error_free(err);
	return NULL;
}

/* Is dentry, in mount mnt, under a mount other than from? */
static struct inodedump_error *covered_at(struct inodedump *id,
					  struct path_layout *l, uint64_t mnt,
					  uint64_t dentry, uint64_t from,
					  bool *covered)
{
	const struct mount_kids *k;
	struct inodedump_error *err;

	if (*covered || !l->covers_known)
		return NULL;
	if ((err = mount_kids(id, l, mnt, &k)))
		return err;
	for (size_t i = 0; i < k->n; i++)
		if (k->kids[2 * i + 1] == dentry && k->kids[2 * i] != from)
			*covered = true;
	return NULL;
}

/* The session's path layout, found on first use and kept (*out not owned). */
static struct inodedump_error *load_path_layout(struct inodedump *id,
						struct path_layout **out)
{
	_cleanup_free_ struct path_layout *l = NULL;
	struct inodedump_error *err;

	if (!id->paths_layout) {
		l = calloc(1, sizeof(*l));
		if (!l)
			return idd_nomem();
		if ((err = find_path_members(id, l)))
			return err;
		id->paths_layout = TAKE_PTR(l);
	}
	*out = id->paths_layout;
	return NULL;
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
	_cleanup_free_ uint8_t *buf = malloc(l->dentry.size);
	struct inodedump_error *err;
	uint64_t len, name;
	size_t got;

	if (!buf)
		return idd_nomem();
	err = idd_target_read(id->target, addr, buf, l->dentry.size);
	if (err)
		return err;
	out->parent = idd_member_uval(&l->d_parent, buf);
	len = idd_member_uval(&l->d_name_len, buf);
	name = idd_member_uval(&l->d_name_name, buf);
	out->hashed = !l->d_hash_pprev.present ||
		      idd_member_uval(&l->d_hash_pprev, buf) != 0;
	got = len > NAME_MAX_BYTES ? NAME_MAX_BYTES : (size_t)len;
	err = idd_target_read(id->target, name, out->name, got);
	out->name[err ? 0 : got] = '\0';
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

/*
 * The path of dentry as seen through mount mnt: up to the mount's root,
 * then from its mountpoint in the parent mount, up to a mount that is its
 * own parent. *path is malloc'd (the caller frees it), or NULL when this
 * mount does not contain the dentry. An error says why the walk could not
 * finish: a loop, a fault, or out of memory. Every dentry and mount met is
 * remembered: a loop ends the walk at once.
 */
static struct inodedump_error *path_through(struct inodedump *id,
					    struct path_layout *l,
					    uint64_t dentry, uint64_t mnt,
					    char **path, bool *covered)
{
	uint64_t from = 0; /* the mount the walk came up from */
	_cleanup_free_ char *buf = malloc(PATH_BYTES + 1);
	_cleanup_visited_ struct idd_visited seen = { 0 };
	size_t start = PATH_BYTES;
	int depth = 0, hops = 0;
	struct inodedump_error *err;

	*path = NULL;
	*covered = false;
	if (!buf)
		return idd_nomem();
	buf[start] = '\0';
	for (;;) {
		uint64_t mnt_root, parent_mnt;
		struct dentry_info d;
		bool again = ++depth > MAX_DEPTH;

		/*
		 * One key per (dentry, mount) pair. Not dentry ^ mnt: two
		 * pairs of one walk collide there (7.3's nullfs root under
		 * rootfs: 0x..6240 ^ 0x..8900 == 0x..6cc0 ^ 0x..8780), which
		 * ended real walks as loops. With the mount's halves swapped,
		 * pointers that share their upper half (the direct map, the
		 * slab) give distinct keys for distinct pairs.
		 */
		uint64_t key = dentry ^ (mnt << 32 | mnt >> 32);

		if (!again && (err = idd_visit(&seen, key, &again)))
			return err;
		if (again)
			return idd_error_at(INODEDUMP_ERR_DUMP, dentry,
					    "dentry 0x%" PRIx64 " met twice on "
					    "the way up (d_parent or mount "
					    "chain loops)", dentry);
		err = idd_target_read_u64(id->target, mnt + l->mnt_root.offset,
					  &mnt_root);
		if (err)
			return err;
		if ((err = covered_at(id, l, mnt, dentry, from, covered)))
			return err;
		if (dentry == mnt_root) {
			err = idd_target_read_u64(id->target,
						  mnt + l->mnt_parent.offset,
						  &parent_mnt);
			if (err)
				return err;
			if (parent_mnt == mnt || !parent_mnt)
				break; /* the root of a mount tree */
			if (++hops > MAX_MOUNT_HOPS)
				return idd_error_at(INODEDUMP_ERR_DUMP, mnt,
						    "mount chain too deep");
			err = idd_target_read_u64(id->target,
						  mnt + l->mnt_mountpoint.offset,
						  &dentry);
			if (err)
				return err;
			from = mnt;
			mnt = parent_mnt;
			continue;
		}
		if ((err = read_dentry(id, l, dentry, &d)))
			return err;
		if (d.parent == dentry) {
			/*
			 * A root dentry that is not the mount's root: this
			 * mount shows another subtree (a bind mount), or the
			 * mount tree is inconsistent.
			 */
			/*
			 * Unless the mount's root is no dentry of the dump
			 * (a damaged mnt_root): then whether the dentry is
			 * below it is not known. One its writer left out
			 * (-d 31) is a dentry the walk would have met.
			 */
			if (!hops && (err = read_dentry(id, l, mnt_root, &d))) {
				if (err->code == INODEDUMP_ERR_FILTERED) {
					inodedump_error_free(err);
					return NULL;
				}
				return idd_error_wrap(err, "the root dentry of "
						      "mount 0x%" PRIx64, mnt);
			}
			if (!hops)
				return NULL;
			return idd_error_at(INODEDUMP_ERR_DUMP, dentry,
					    "dentry 0x%" PRIx64 " is not below "
					    "the root of mount 0x%" PRIx64 ": "
					    "mount tree inconsistent", dentry,
					    mnt);
		}
		if (!prepend(buf, &start, d.name))
			return idd_error_at(INODEDUMP_ERR_DUMP, dentry,
					    "path longer than PATH_MAX");
		dentry = d.parent;
	}
	if (start == PATH_BYTES)
		prepend(buf, &start, "");
	memmove(buf, buf + start, PATH_BYTES - start + 1);
	*path = TAKE_PTR(buf);
	return NULL;
}

static bool same_ns(const struct idd_ns_info *a, const struct idd_ns_info *b)
{
	return a->where == b->where && a->inum == b->inum;
}

/*
 * Add path (taken over, freed here if not kept) in namespace ns to
 * ino->path_rows, once a namespace; a path in a namespace (or a pseudo
 * name) also to ino->paths, once.
 */
static struct inodedump_error *add_path(struct inodedump_inode *ino,
					char *path,
					const struct idd_ns_info *ns,
					bool covered)
{
	_cleanup_free_ char *owned = path;
	struct idd_path *rows;
	char **grown;
	bool named = false;

	/* The same name seen through two mounts of one namespace: one row. */
	for (size_t i = 0; i < ino->npath_rows; i++)
		if (same_ns(&ino->path_rows[i].ns, ns) &&
		    ino->path_rows[i].covered == covered &&
		    !strcmp(ino->path_rows[i].path, owned))
			return NULL;
	rows = realloc(ino->path_rows, (ino->npath_rows + 1) * sizeof(*rows));
	if (!rows)
		return idd_nomem();
	ino->path_rows = rows;
	if (covered ||
	    (ns->where != IDD_PATH_NS && ns->where != IDD_PATH_PSEUDO)) {
		rows[ino->npath_rows].ns = *ns;
		rows[ino->npath_rows].covered = covered;
		rows[ino->npath_rows++].path = TAKE_PTR(owned);
		return NULL;
	}
	grown = realloc(ino->paths, (ino->npaths + 2) * sizeof(*grown));
	if (!grown)
		return idd_nomem();
	ino->paths = grown;
	for (size_t i = 0; i < ino->npaths; i++)
		if (!strcmp(ino->paths[i], owned))
			named = true;
	if (!named) {
		ino->paths[ino->npaths] = strdup(owned);
		if (!ino->paths[ino->npaths])
			return idd_nomem();
		ino->paths[++ino->npaths] = NULL;
	}
	rows[ino->npath_rows].ns = *ns;
	rows[ino->npath_rows].covered = false;
	rows[ino->npath_rows++].path = TAKE_PTR(owned);
	return NULL;
}

/*
 * Pseudo filesystems are named the way /proc/PID/fd shows them; *named
 * says this inode is on one and its path was added.
 */
static struct inodedump_error *pseudo_path(struct inodedump_inode *ino,
					   const char *alias_name, bool *named)
{
	const char *fs = ino->fs_type.s;
	char *p;

	*named = false;
	if (!fs)
		return NULL;
	if (!strcmp(fs, "pipefs"))
		p = idd_strdup_printf("pipe:[%" PRIu64 "]", (uint64_t)ino->ino.v);
	else if (!strcmp(fs, "sockfs"))
		p = idd_strdup_printf("socket:[%" PRIu64 "]", (uint64_t)ino->ino.v);
	else if (!strcmp(fs, "anon_inodefs"))
		p = idd_strdup_printf("anon_inode:%s", alias_name ? alias_name : "?");
	else
		return NULL;
	if (!p)
		return idd_nomem();
	*named = true;
	return add_path(ino, p, &(struct idd_ns_info){ .where = IDD_PATH_PSEUDO },
			false);
}

/* A path through an alias that was removed, as /proc/PID/fd shows it. */
static struct inodedump_error *mark_deleted(char **path)
{
	char *deleted = idd_strdup_printf("%s (deleted)", *path);

	if (!deleted)
		return idd_nomem();
	free(*path);
	*path = deleted;
	return NULL;
}

/*
 * The namespace of mount mnt, where the kernel's types say where mnt_ns
 * is (else a namespace not known, as before namespaces were read). Only
 * running out of memory is an error: a namespace that cannot be read is
 * one not known.
 */
static struct inodedump_error *mount_ns(struct inodedump *id,
					const struct path_layout *l,
					uint64_t mnt, struct idd_ns_info *ns)
{
	struct inodedump_error *err;
	uint64_t ptr;

	if (!l->mnt_ns.present)
		return NULL;
	err = idd_target_read_u64(id->target, mnt + l->mnt_ns.offset, &ptr);
	if (err && !idd_error_is_nomem(err)) {
		inodedump_error_free(err);
		return NULL;
	}
	return err ? err : idd_mntns_lookup(id, ptr, ns);
}

/* The paths of one dentry alias, through every mount of the superblock. */
static struct inodedump_error *paths_of_alias(struct inodedump *id,
					      struct path_layout *l,
					      struct inodedump_inode *ino,
					      uint64_t dentry)
{
	uint64_t head = ino->sb.addr + l->s_mounts.offset, node;
	_cleanup_visited_ struct idd_visited seen = { 0 };
	/* The newest reason a walk through a mount failed. */
	_cleanup_(idd_error_freep) struct inodedump_error *walk_err = NULL;
	struct inodedump_error *err;
	struct dentry_info d;
	bool pseudo, again = false;
	int mounts = 0;
	uint64_t ns_unread = 0; /* a mount whose namespace has no number */

	err = read_dentry(id, l, dentry, &d);
	if (err) {
		if (idd_error_is_nomem(err))
			return err;
		idd_note_incomplete(ino, INODEDUMP_PART_PATHS, "i_dentry", true,
				    dentry, "dentry 0x%" PRIx64 ": %s", dentry,
				    inodedump_error_message(err));
		inodedump_error_free(err);
		return NULL;
	}
	if ((err = pseudo_path(ino, d.name, &pseudo)) || pseudo)
		return err;
	if (!d.hashed && d.parent != dentry)
		ino->unlinked_alias = true;
	/*
	 * node: the list node in each mount (mnt_instance), back to head; or,
	 * chained (7.1+), each struct mount itself, to NULL.
	 */
	if (l->mounts_chained)
		head = 0;
	err = idd_target_read_u64(id->target,
				  l->mounts_chained ? ino->sb.addr + l->s_mounts.offset
						    : head + l->list_next.offset,
				  &node);
	while (!err && node != head && mounts++ < MAX_MOUNTS) {
		uint64_t mnt = l->mounts_chained ? node
						 : node - l->mnt_instance.offset;
		char *p;
		struct inodedump_error *why;
		struct idd_ns_info ns = { .where = IDD_PATH_NS };
		bool covered;

		if ((err = idd_visit(&seen, node, &again)) || again)
			break;
		why = path_through(id, l, dentry, mnt, &p, &covered);
		if (idd_error_is_nomem(why))
			return why;
		if (why) {
			inodedump_error_free(walk_err);
			walk_err = why;
		}
		if (p && ino->unlinked_alias && (err = mark_deleted(&p))) {
			free(p);
			return err;
		}
		if (p && (err = mount_ns(id, l, mnt, &ns))) {
			free(p);
			return err;
		}
		/* the mount read, its namespace's number not (a -d 31 writer
		 * may drop its page): the row says null; said after the loop */
		if (p && ns.where == IDD_PATH_NS && !ns.inum && !ns_unread &&
		    !why)
			ns_unread = mnt;
		if (p && (err = add_path(ino, p, &ns, covered)))
			return err;
		err = idd_target_read_u64(id->target,
					  l->mounts_chained
						  ? node + l->mnt_next_for_sb.offset
						  : node + l->list_next.offset,
					  &node);
	}
	if (idd_error_is_nomem(err))
		return err;
	if (!err && node != head && mounts <= MAX_MOUNTS)
		mounts = MAX_MOUNTS + 1; /* stopped at a repeat: a loop */
	/*
	 * A mount that could not be walked may have named the inode: the
	 * paths are incomplete even when another mount gave one.
	 */
	if (err || mounts > MAX_MOUNTS || walk_err)
		idd_note_incomplete(ino, INODEDUMP_PART_PATHS, "paths", false, 0,
				    "%s",
				    err ? inodedump_error_message(err)
				    : mounts > MAX_MOUNTS ? "s_mounts list loops or is too long"
							  : inodedump_error_message(walk_err));
	if (ns_unread)
		idd_note_incomplete(ino, INODEDUMP_PART_PATHS, "paths", true,
				    ns_unread, "the mount namespace of mount 0x%" PRIx64
				    " could not be read: its paths' namespace is "
				    "not known", ns_unread);
	inodedump_error_free(err);
	return NULL;
}

struct inodedump_error *idd_paths_ready(struct inodedump *id)
{
	struct path_layout *l;

	return load_path_layout(id, &l);
}

struct inodedump_error *idd_decode_paths(struct inodedump *id,
					 struct inodedump_inode *ino)
{
	_cleanup_visited_ struct idd_visited seen = { 0 };
	struct path_layout *l = NULL;
	struct inodedump_error *err;
	uint64_t node = 0;
	int aliases = 0;
	bool again, pseudo;

	if ((err = load_path_layout(id, &l)))
		return err;
	if (!l->ok) {
		idd_notes_add(&ino->arena, &ino->skipped, "paths", false, 0,
			      "this kernel's dentry/mount types lack a member "
			      "the path walk needs");
		return NULL;
	}
	ino->paths_known = true;
	/* The inode's bytes were read once, by the decode: take the
	 * list's first node from it. */
	if (ino->dentry_first.state == IDD_OK)
		node = ino->dentry_first.addr;
	else
		err = idd_error_at(INODEDUMP_ERR_FAULT, ino->address,
				   "i_dentry.first was not decoded");
	while (!err && node && aliases++ < MAX_ALIASES) {
		if ((err = idd_visit(&seen, node, &again)))
			break;
		if (again) {
			aliases = MAX_ALIASES + 1;
			break;
		}
		if ((err = paths_of_alias(id, l, ino, node - l->d_alias.offset)))
			break;
		err = idd_target_read_u64(id->target, node + l->hlist_next.offset,
					  &node);
	}
	if (idd_error_is_nomem(err))
		return err;
	if (aliases > MAX_ALIASES)
		idd_note_incomplete(ino, INODEDUMP_PART_PATHS, "i_dentry", false,
				    0, "more than %d dentry aliases: list "
				    "corrupt or cyclic", MAX_ALIASES);
	if (err) {
		idd_note_incomplete(ino, INODEDUMP_PART_PATHS, "i_dentry", true,
				    node, "%s", inodedump_error_message(err));
		inodedump_error_free(err);
	}
	if (!aliases)
		return pseudo_path(ino, NULL, &pseudo);
	return NULL;
}
