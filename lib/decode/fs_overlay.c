// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What stat(2) and readlink(2) show of an overlay inode, after the kernel's
 * ovl_getattr() and ovl_get_link() (fs/overlayfs/inode.c, 6.x-7.x): the
 * real inode (upper, else the first lower) decoded as an inode of its own
 * filesystem, what its getattr would show, then st_dev/st_ino mapped as
 * ovl_map_dev_ino() does and st_nlink as ovl_getattr() does. Also what the
 * overlay rows cannot be, said: a real-inode pointer back to the overlay
 * inode itself or into the same overlay, nesting deeper than the kernel
 * allows; and the inodes whose meaning is elsewhere: a whiteout (a 0:0
 * character device, on any filesystem), anon_inodefs' one shared inode,
 * pipefs' root (no pipe: its i_pipe is another member of a union).
 */
#include <stdlib.h>
#include <string.h>

#include "decode/fs.h"
#include "decode/rows.h"
#include "decode/session.h"

#define S_IFMT_ 0170000
#define S_IFDIR_ 0040000
#define S_IFCHR_ 0020000
#define S_IFLNK_ 0120000
#define S_IFIFO_ 0010000

/* FILESYSTEM_MAX_STACK_DEPTH: an overlay over an overlay at most. */
#define OVL_MAX_DEPTH 2

/* The overlay inodes being derived on this thread, outermost first. */
static _Thread_local uint64_t stack[OVL_MAX_DEPTH + 1];
static _Thread_local unsigned depth;

static struct idd_fs_value *row(struct inodedump_inode *ino, const char *key)
{
	for (size_t i = 0; i < ino->fs.n; i++)
		if (!strcmp(ino->fs.v[i].row->key, key))
			return &ino->fs.v[i];
	return NULL;
}

static const struct idd_fs_value *ok(struct inodedump_inode *ino,
				     const char *key)
{
	const struct idd_fs_value *v = row(ino, key);

	return v && v->state == IDD_OK ? v : NULL;
}

/* Every row whose key starts with prefix: not what it seems, and why. */
static void mark(struct inodedump_inode *ino, const char *prefix,
		 enum idd_presence state, const char *why)
{
	size_t n = strlen(prefix);

	for (size_t i = 0; i < ino->fs.n; i++)
		if (!strncmp(ino->fs.v[i].row->key, prefix, n)) {
			ino->fs.v[i].state = state;
			ino->fs.v[i].why = why;
		}
}

static bool has_flag(const struct idd_fs_value *flags, const char *name)
{
	for (const char **p = flags ? flags->names : NULL; p && *p; p++)
		if (!strcmp(*p, name))
			return true;
	return false;
}

static const struct idd_fs_derived *derived(const struct inodedump_inode *ino,
					    const char *key)
{
	for (size_t i = 0; i < ino->fs.nd; i++)
		if (!strcmp(ino->fs.d[i].key, key))
			return &ino->fs.d[i];
	return NULL;
}

/* What vfs_getattr() of a real inode returns: its fs's getattr, else VFS. */
struct real_stat {
	uint64_t dev, ino, nlink, blocks;
	int64_t size;
	const char *target; /* a symlink's, from its inode or its fs */
};

static void real_stat(const struct inodedump_inode *r, struct real_stat *st)
{
	const struct idd_fs_derived *d;

	st->dev = (d = derived(r, "st_dev")) ? (uint64_t)d->v
						: (uint64_t)r->s_dev.v;
	st->ino = (d = derived(r, "st_ino")) ? (uint64_t)d->v
						: (uint64_t)r->ino.v;
	st->nlink = (d = derived(r, "st_nlink")) ? (uint64_t)d->v
						    : (uint64_t)r->nlink.v;
	st->blocks = (d = derived(r, "st_blocks")) ? (uint64_t)d->v
						   : (uint64_t)r->blocks.v;
	st->size = (d = derived(r, "st_size")) ? d->v : r->size.v;
	st->target = r->link.state == IDD_OK && r->link.s ? r->link.s
		     : (d = derived(r, "target")) ? d->s
						  : NULL;
}

/*
 * Decode the real inode at addr (not a path walk: its rows and what its
 * filesystem's getattr shows). *why when it cannot stand for the overlay
 * inode: a loop, the same overlay, nesting too deep, unreadable.
 */
static struct inodedump_error *real_inode(struct inodedump *id,
					  struct inodedump_inode *ino,
					  uint64_t addr,
					  struct inodedump_inode **out,
					  const char **why)
{
	struct inodedump_error *err;

	*out = NULL;
	*why = NULL;
	if (addr == ino->address) {
		*why = "the real inode pointer loops back to this overlay "
		       "inode itself";
		return NULL;
	}
	for (unsigned i = 0; i < depth; i++)
		if (stack[i] == addr) {
			*why = "the real inode pointer loops back to an "
			       "overlay inode it is the real inode of";
			return NULL;
		}
	if (depth >= OVL_MAX_DEPTH) {
		*why = "overlays nested deeper than the kernel allows "
		       "(FILESYSTEM_MAX_STACK_DEPTH 2): not followed";
		return NULL;
	}
	stack[depth++] = ino->address;
	err = idd_decode(id, addr, INODEDUMP_DECODE_NO_PATHS, NULL, out, NULL);
	depth--;
	if (err) {
		if (idd_error_is_nomem(err))
			return err;
		inodedump_error_free(err);
		*why = "the real inode could not be decoded";
		return NULL;
	}
	if ((*out)->sb.state == IDD_OK && ino->sb.state == IDD_OK &&
	    (*out)->sb.addr == ino->sb.addr) {
		*why = "the real inode pointer points into this same overlay "
		       "(another overlay inode, not a real one)";
		inodedump_inode_free(*out);
		*out = NULL;
	}
	return NULL;
}

/* A layer's rows that point where they should not: said, and dropped. */
static struct inodedump_error *layer(struct inodedump *id,
				     struct inodedump_inode *ino,
				     const char *prefix,
				     struct inodedump_inode **out, bool *bad)
{
	const struct idd_fs_value *v = ok(ino, prefix);
	const char *why;
	struct inodedump_error *err;

	*out = NULL;
	if (!v || !v->v)
		return NULL;
	err = real_inode(id, ino, v->v, out, &why);
	if (err)
		return err;
	if (why) {
		/* the address stays; what was read through it does not */
		*bad = true;
		struct idd_fs_value *addr = row(ino, prefix);
		uint64_t keep = addr->v;

		mark(ino, prefix, IDD_UNREADABLE, why);
		addr->state = IDD_UNREADABLE;
		addr->v = keep;
	}
	return NULL;
}

static const char *const state_how =
	"ovl_path_type(): an upper and a lower (copied up, or a merged "
	"directory), the upper only, or the lower only";

/* ovl_getattr(), ovl_map_dev_ino(), ovl_get_link() (fs/overlayfs/inode.c) */
struct inodedump_error *idd_fs_derive_overlay(struct inodedump *id,
					      struct inodedump_inode *ino)
{
	const struct idd_fs_value *numlower = ok(ino, "numlower"),
				  *flags = ok(ino, "flags"),
				  *xino = ok(ino, "xino_mode"),
				  *fsid_row, *upper_pd, *lower_pd, *index,
				  *nfs_export;
	struct inodedump_inode *up = NULL, *lo = NULL, *real;
	struct inodedump_error *err;
	struct real_stat st, lst;
	bool bad = false;
	bool is_dir = ((unsigned)ino->mode.v & S_IFMT_) == S_IFDIR_;
	bool merge, origin, same_fs, same_dev;
	unsigned xinobits;
	int64_t fsid = 0;
	uint64_t dev;
	const char *state;

	/* 6.5+: an entry with no lower layer has no __lowerstack[0] */
	if (numlower && numlower->v == 0)
		mark(ino, "lower", IDD_NA, "no lower layer (oe->__numlower 0)");
	if ((err = layer(id, ino, "upper", &up, &bad)) ||
	    (err = layer(id, ino, "lower", &lo, &bad)))
		goto out;
	real = up ? up : lo;
	if (!real || bad)
		goto out; /* the rows say why; nothing from half the layers */
	state = up && lo ? (is_dir ? "merged (upper and lower)"
				   : "copied up (upper and lower)")
		: up	 ? "upper only"
			 : "lower only";
	if ((err = idd_fs_derive_str(ino, "layers", state, strlen(state),
				     state_how)))
		goto out;
	real_stat(real, &st);
	if (lo)
		real_stat(lo, &lst);
	/* OVL_TYPE_MERGE; OVL_TYPE_ORIGIN: copied up, its origin kept */
	merge = up ? lo && (is_dir || !has_flag(flags, "OVL_UPPERDATA"))
		   : numlower && numlower->v > 1;
	origin = up && lo && has_flag(flags, "OVL_CONST_INO");
	fsid_row = ok(ino, "lower_fsid");
	upper_pd = ok(ino, "pseudo_dev_upper");
	lower_pd = ok(ino, "lower_pseudo_dev");
	index = ok(ino, "index");
	nfs_export = ok(ino, "nfs_export");
	if (!xino || (lo && !fsid_row)) {
		/* 5.x keeps the lower layer in the dentry: not derived */
		goto link;
	}
	same_fs = (int64_t)xino->v == 0;
	same_dev = (int64_t)xino->v >= 0;
	xinobits = same_dev ? (unsigned)xino->v : 0;
	if (!is_dir || same_dev) {
		if (!up) {
			fsid = (int64_t)fsid_row->v;
		} else if (origin &&
			   (has_flag(flags, "OVL_INDEX") ||
			    (!(index && index->v && nfs_export &&
			       nfs_export->v) &&
			     (is_dir || lst.nlink == 1)))) {
			/* ovl_verify_lower(): nfs_export && index */
			fsid = (int64_t)fsid_row->v;
			st.ino = lst.ino;
		}
	}
	/* ovl_map_dev_ino() */
	if (same_fs) {
		dev = (uint64_t)ino->s_dev.v;
	} else if (xinobits && xinobits < 64 &&
		   !(st.ino >> (64 - xinobits))) {
		st.ino |= (uint64_t)fsid << (64 - xinobits + 1);
		dev = (uint64_t)ino->s_dev.v;
	} else if (is_dir) {
		dev = (uint64_t)ino->s_dev.v;
		st.ino = (uint64_t)ino->ino.v;
	} else {
		const struct idd_fs_value *pd = fsid ? lower_pd : upper_pd;

		if (!pd)
			goto link;
		dev = pd->v;
	}
	if (is_dir && merge)
		st.nlink = 1;
	if (!is_dir && has_flag(flags, "OVL_INDEX"))
		st.nlink = (uint64_t)ino->nlink.v;
	if ((err = idd_fs_derive_dev(
		     ino, "st_dev", dev, "s_dev", (uint64_t)ino->s_dev.v,
		     "ovl_map_dev_ino: the overlay's s_dev for directories and "
		     "where all layers share a filesystem (or xino), else the "
		     "real layer's pseudo_dev (ofs->fs[fsid])")) ||
	    (err = idd_fs_derive_num(
		     ino, "st_ino", (int64_t)st.ino, "ino", (int64_t)ino->ino.v,
		     "ovl_getattr: the real inode's ino (the lower's when "
		     "copied up with its origin), a directory's own i_ino "
		     "without xino")) ||
	    (err = idd_fs_derive_num(
		     ino, "st_nlink", (int64_t)st.nlink, "nlink",
		     (int64_t)ino->nlink.v,
		     "ovl_getattr: the real inode's nlink; 1 for a merged "
		     "directory")))
		goto out;
link:
	if ((err = idd_fs_derive_num(ino, "st_blocks", (int64_t)st.blocks,
				     "blocks", (int64_t)ino->blocks.v,
				     "ovl_getattr: the real inode's blocks")))
		goto out;
	if (((unsigned)ino->mode.v & S_IFMT_) == S_IFLNK_ && st.target)
		err = idd_fs_derive_str(ino, "target", st.target,
					strlen(st.target),
					"ovl_get_link: the real inode's target");
out:
	inodedump_inode_free(up);
	inodedump_inode_free(lo);
	return err;
}

/* On any filesystem: what an inode is for, where that is not its own. */
struct inodedump_error *idd_fs_derive_special(struct inodedump *id,
					      struct inodedump_inode *ino)
{
	static const char whiteout[] = "an overlayfs whiteout";
	static const char anon[] =
		"one inode shared by every anon_inode file (eventfd, epoll, "
		"signalfd, timerfd, ...): what each is belongs to its file "
		"(f_op, private_data; --holders names each holder's f_op), "
		"not to this inode";

	(void)id;
	/* i_pipe shares a union with i_link, i_cdev, i_dir_seq */
	if (ino->fs.t && !strcmp(ino->fs.t->fs, "pipefs") &&
	    ((unsigned)ino->mode.v & S_IFMT_) != S_IFIFO_)
		mark(ino, "", IDD_NA, "not a pipe: i_pipe is another member "
				      "of its union");
	if (((unsigned)ino->mode.v & S_IFMT_) == S_IFCHR_ &&
	    ino->rdev.state == IDD_OK && ino->rdev.v == 0)
		return idd_fs_derive_str(ino, "whiteout", whiteout,
					 sizeof(whiteout) - 1,
					 "ovl_is_whiteout: S_ISCHR && rdev == "
					 "WHITEOUT_DEV (0:0)");
	if (ino->fs.t && !strcmp(ino->fs.t->fs, "anon_inodefs"))
		return idd_fs_derive_str(ino, "shared", anon, sizeof(anon) - 1,
					 "anon_inode_getfile: every file gets "
					 "anon_inode_inode");
	return NULL;
}
