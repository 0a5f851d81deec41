// SPDX-License-Identifier: GPL-2.0
/*
 * vfsdbg73_trigger - make an unpatched 7.3 CONFIG_DEBUG_VFS kernel fire its
 * own VFS assertions at several call sites, keep every inode involved, and
 * print the ground truth a dump reader must reproduce.
 *
 * roles= is a comma-separated list of role:path (CONTRACT.md, "The
 * debugvfs73 set"). On load:
 *
 *  1. Every path is looked up without following a trailing symlink and its
 *     inode pinned with ihold(); the references are never dropped.
 *  2. Real upstream assertions, each through inode_set_cached_link()
 *     (include/linux/fs.h, inlined here):
 *     - victim_symlink, a tmpfs symlink whose target tmpfs keeps in the page
 *       cache (not cached): a length one short fires
 *       VFS_WARN_ON_INODE(strlen(link) != linklen);
 *     - cached_twice, a short tmpfs symlink (shmem_symlink() already cached
 *       its target, IOP_CACHED_LINK set): the right length fires only
 *       VFS_WARN_ON_INODE(inode->i_opflags & IOP_CACHED_LINK);
 *     - victim_ext4, an ext4 fast symlink (ext4_iget() cached i_data): a
 *       length one short fires both assertions, two reports for one inode;
 *     - victim_new, a fresh new_inode() on tmpfs (no path; the global
 *       vfsdbg73_victim_new points at it): a length one short.
 *     The target strings handed over are copies that stay allocated.
 *  3. Two direct calls of the exported dump_inode(), for the report format's
 *     other branches: on vfsdbg73_sb_cleared, a kmemdup() copy of
 *     regular's inode with i_sb NULL ("fs:<unknown, sb unreadable>"), and
 *     on ERR_PTR(-ENOENT) ("unreadable inode:").
 *  4. bug_badmode, a tmpfs regular file, gets a mode without a file type
 *     (its permission bits kept). Nothing fires yet: when the guest's init
 *     later opens it, may_open() reaches its default case and
 *     VFS_BUG_ON_INODE(!IS_ANON_FILE(inode)) oopses (oops=panic: the guest
 *     panics, and the host dumps it as kdump would).
 *  5. One "inodedump-truth: " line per role's inode, then
 *     "inodedump-trigger: done reports=N" (N: the reports of 2 and 3).
 *
 * No exit routine: the module cannot be unloaded, so its references, the
 * strings and the copies stay for the dumps.
 */
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uidgid.h>
#include <linux/vfsdebug.h>

#define MAX_ROLES		40
#define TRUTH_LINE_MAX		900	/* below printk's ~1000-byte record */
#define VICTIM_NEW		"victim_new"
#define VICTIM_NEW_TARGET	"/tmp/fx/victim_new_target"
/*
 * tmpfs numbers its inodes per superblock with 32-bit values (unless
 * mounted inode64), so a number above 2^32 cannot collide.
 */
#define VICTIM_NEW_INO		((1ULL << 40) | 0x1ee7)

static char *roles;
module_param(roles, charp, 0444);
MODULE_PARM_DESC(roles, "comma-separated role:path list (victim_symlink, cached_twice, victim_ext4, bug_badmode, regular required)");

struct role {
	const char *name;
	const char *path;	/* "-" for victim_new */
	struct inode *inode;	/* pinned with ihold() or new_inode() */
};

static struct role role_table[MAX_ROLES + 1];
static int nr_roles;
static char *roles_copy;	/* role_table's strings point into it */
static int nr_reports;

/* For dump readers to find: the fresh inode, the copy, the bad pointer. */
struct inode *vfsdbg73_victim_new;
struct inode *vfsdbg73_sb_cleared;
struct inode *vfsdbg73_unreadable;

static bool is_token(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isgraph(*s))
			return false;
	return true;
}

static int parse_roles(void)
{
	char *cur, *entry, *sep;

	if (!roles || !*roles) {
		pr_err("vfsdbg73_trigger: roles= is required\n");
		return -EINVAL;
	}
	roles_copy = kstrdup(roles, GFP_KERNEL);
	if (!roles_copy)
		return -ENOMEM;

	cur = roles_copy;
	while ((entry = strsep(&cur, ",")) != NULL) {
		if (!*entry)
			continue;
		sep = strchr(entry, ':');
		if (!sep || nr_roles == MAX_ROLES) {
			pr_err("vfsdbg73_trigger: bad or too many roles at '%s'\n", entry);
			return -EINVAL;
		}
		*sep = '\0';
		if (!is_token(entry) || !is_token(sep + 1) ||
		    !strcmp(entry, VICTIM_NEW)) {
			pr_err("vfsdbg73_trigger: bad role '%s'\n", entry);
			return -EINVAL;
		}
		role_table[nr_roles].name = entry;
		role_table[nr_roles].path = sep + 1;
		nr_roles++;
	}
	return 0;
}

static struct inode *role_inode(const char *name)
{
	int i;

	for (i = 0; i < nr_roles; i++)
		if (!strcmp(role_table[i].name, name))
			return role_table[i].inode;
	pr_err("vfsdbg73_trigger: no role %s\n", name);
	return NULL;
}

/* Pin every role's inode; the lookup does not follow a trailing symlink. */
static int pin_inodes(void)
{
	struct path path;
	int i, err;

	for (i = 0; i < nr_roles; i++) {
		err = kern_path(role_table[i].path, 0, &path);
		if (err) {
			pr_err("vfsdbg73_trigger: %s: lookup of %s failed: %d\n",
			       role_table[i].name, role_table[i].path, err);
			return err;
		}
		role_table[i].inode = d_inode(path.dentry);
		ihold(role_table[i].inode);
		path_put(&path);
	}
	return 0;
}

static void unpin_inodes(void)
{
	int i;

	for (i = 0; i < nr_roles; i++)
		if (role_table[i].inode)
			iput(role_table[i].inode);
}

static char *read_target(struct inode *inode)
{
	struct dentry *dentry = d_find_any_alias(inode);
	DEFINE_DELAYED_CALL(done);
	const char *target;
	char *copy;

	if (!dentry)
		return ERR_PTR(-ENOENT);
	target = inode->i_op->get_link(dentry, inode, &done);
	copy = IS_ERR(target) ? ERR_CAST(target) : kstrdup(target, GFP_KERNEL);
	do_delayed_call(&done);
	dput(dentry);
	return copy ?: ERR_PTR(-ENOMEM);
}

/*
 * The state each victim must be in for its assertions to fire as planned:
 * a symlink on fstype, with (cached) or without IOP_CACHED_LINK.
 */
static int check_symlink(const char *role, struct inode *inode,
			 const char *fstype, bool cached)
{
	if (!inode)
		return -EINVAL;
	if (!S_ISLNK(inode->i_mode) || strcmp(inode->i_sb->s_type->name, fstype)) {
		pr_err("vfsdbg73_trigger: %s must be a %s symlink\n", role, fstype);
		return -EINVAL;
	}
	if (!!(inode->i_opflags & IOP_CACHED_LINK) != cached) {
		pr_err("vfsdbg73_trigger: %s: IOP_CACHED_LINK is %s, want %s\n", role,
		       inode->i_opflags & IOP_CACHED_LINK ? "set" : "clear",
		       cached ? "set" : "clear");
		return -EINVAL;
	}
	return 0;
}

/*
 * inode_set_cached_link() with a copy of the inode's own target and a
 * length delta off (0 or -1: a shorter length never lets readlink read past
 * the string). Returns how many reports that fires, or an error.
 */
static int set_cached_link(const char *role, struct inode *inode, int delta,
			   const char *target)
{
	char *link = target ? kstrdup(target, GFP_KERNEL) : read_target(inode);
	int fired = (delta != 0) + !!(inode->i_opflags & IOP_CACHED_LINK);

	if (IS_ERR_OR_NULL(link)) {
		pr_err("vfsdbg73_trigger: %s: no target: %ld\n", role,
		       link ? PTR_ERR(link) : -ENOMEM);
		return link ? PTR_ERR(link) : -ENOMEM;
	}
	spin_lock(&inode->i_lock);
	inode_set_cached_link(inode, link, strlen(link) + delta);
	spin_unlock(&inode->i_lock);
	return fired;
}

static int report_victim_new(struct super_block *sb)
{
	struct inode *inode = new_inode(sb);
	int fired;

	if (!inode)
		return -ENOMEM;
	inode->i_ino = VICTIM_NEW_INO;
	inode->i_mode = S_IFLNK | 0777;
	inode->i_size = strlen(VICTIM_NEW_TARGET);
	fired = set_cached_link(VICTIM_NEW, inode, -1, VICTIM_NEW_TARGET);
	if (fired < 0) {
		iput(inode);
		return fired;
	}
	vfsdbg73_victim_new = inode;
	role_table[nr_roles].name = VICTIM_NEW;
	role_table[nr_roles].path = "-";
	role_table[nr_roles].inode = inode;
	nr_roles++;
	return fired;
}

/* dump_inode() itself on the two inodes it cannot fully read. */
static int report_direct(struct inode *regular)
{
	vfsdbg73_sb_cleared = kmemdup(regular, sizeof(*regular), GFP_KERNEL);
	if (!vfsdbg73_sb_cleared)
		return -ENOMEM;
	vfsdbg73_sb_cleared->i_sb = NULL;
	dump_inode(vfsdbg73_sb_cleared, "vfsdbg73_trigger(copy of regular, i_sb = NULL)");
	vfsdbg73_unreadable = ERR_PTR(-ENOENT);
	dump_inode(vfsdbg73_unreadable, "vfsdbg73_trigger(ERR_PTR(-ENOENT))");
	return 2;
}

/* bug_badmode: no file type any more; opening it is may_open()'s BUG. */
static int arm_badmode(struct inode *inode)
{
	if (!inode)
		return -EINVAL;
	if (!S_ISREG(inode->i_mode) || strcmp(inode->i_sb->s_type->name, "tmpfs")) {
		pr_err("vfsdbg73_trigger: bug_badmode must be a tmpfs regular file\n");
		return -EINVAL;
	}
	spin_lock(&inode->i_lock);
	inode->i_mode &= ~S_IFMT;
	spin_unlock(&inode->i_lock);
	return 0;
}

static const char *printable_link(const char *link)
{
	return link && is_token(link) ? link : "-";
}

static int print_ops(char *buf, int size, const char *key, const void *ops)
{
	if (!ops)
		return scnprintf(buf, size, " %s=-", key);
	return scnprintf(buf, size, " %s=%ps", key, ops);
}

static void print_truth(char *buf, const struct role *role)
{
	struct inode *inode = role->inode;
	struct super_block *sb = inode->i_sb;
	int n;

	n = scnprintf(buf, TRUTH_LINE_MAX,
		      "addr=%px path=%s ino=%llu mode=0%o opflags=0x%x flags=0x%x state=0x%x count=%d nlink=%u size=%lld uid=%u gid=%u s_id=%s fstype=%s",
		      inode, role->path, (unsigned long long)inode->i_ino,
		      inode->i_mode, inode->i_opflags, inode->i_flags,
		      inode_state_read_once(inode),
		      icount_read_once(inode), inode->i_nlink,
		      i_size_read(inode),
		      from_kuid(&init_user_ns, inode->i_uid),
		      from_kgid(&init_user_ns, inode->i_gid),
		      sb->s_id, sb->s_type->name);
	if (S_ISLNK(inode->i_mode)) {
		/* i_link shares a union with i_pipe, i_cdev and i_dir_seq. */
		const char *link = inode->i_link;

		n += scnprintf(buf + n, TRUTH_LINE_MAX - n,
			       " link=%s link_strlen=", printable_link(link));
		if (link)
			n += scnprintf(buf + n, TRUTH_LINE_MAX - n, "%zu",
				       strlen(link));
		else
			n += scnprintf(buf + n, TRUTH_LINE_MAX - n, "-");
		/* The raw i_linklen, garbage without IOP_CACHED_LINK. */
		n += scnprintf(buf + n, TRUTH_LINE_MAX - n, " linklen=%d",
			       inode->i_linklen);
	} else {
		n += scnprintf(buf + n, TRUTH_LINE_MAX - n,
			       " link=- link_strlen=- linklen=-");
	}
	n += scnprintf(buf + n, TRUTH_LINE_MAX - n,
		       " role=%s sb=%px gen=%u blocks=%llu rdev=%u:%u",
		       role->name, sb, inode->i_generation,
		       (unsigned long long)inode->i_blocks,
		       MAJOR(inode->i_rdev), MINOR(inode->i_rdev));
	n += print_ops(buf + n, TRUTH_LINE_MAX - n, "i_op", inode->i_op);
	n += print_ops(buf + n, TRUTH_LINE_MAX - n, "i_fop", inode->i_fop);
	n += print_ops(buf + n, TRUTH_LINE_MAX - n, "a_ops",
		       inode->i_mapping ? inode->i_mapping->a_ops : NULL);
	print_ops(buf + n, TRUTH_LINE_MAX - n, "s_op", sb->s_op);
	pr_info("inodedump-truth: %s\n", buf);
}

/* Add a step's reports (or pass its error on). */
static int count(int fired)
{
	if (fired > 0)
		nr_reports += fired;
	return fired < 0 ? fired : 0;
}

static int __init vfsdbg73_trigger_init(void)
{
	struct inode *victim, *twice, *ext4, *badmode, *regular;
	char *buf;
	int i, err;

	err = parse_roles();
	if (err)
		goto out_free;
	buf = kmalloc(TRUTH_LINE_MAX, GFP_KERNEL);
	if (!buf) {
		err = -ENOMEM;
		goto out_free;
	}
	err = pin_inodes();
	if (err)
		goto out_unpin;
	victim = role_inode("victim_symlink");
	twice = role_inode("cached_twice");
	ext4 = role_inode("victim_ext4");
	badmode = role_inode("bug_badmode");
	regular = role_inode("regular");
	err = check_symlink("victim_symlink", victim, "tmpfs", false) ?:
	      check_symlink("cached_twice", twice, "tmpfs", true) ?:
	      check_symlink("victim_ext4", ext4, "ext4", true) ?:
	      (regular ? 0 : -EINVAL);
	if (err)
		goto out_unpin;

	/* From here on nothing is undone: the reports fire one by one. */
	err = count(set_cached_link("victim_symlink", victim, -1, NULL)) ?:
	      count(set_cached_link("cached_twice", twice, 0, NULL)) ?:
	      count(set_cached_link("victim_ext4", ext4, -1, NULL)) ?:
	      count(report_victim_new(victim->i_sb)) ?:
	      count(report_direct(regular)) ?:
	      arm_badmode(badmode);
	if (err)
		pr_err("vfsdbg73_trigger: a step failed: %d\n", err);

	for (i = 0; i < nr_roles; i++)
		print_truth(buf, &role_table[i]);
	kfree(buf);
	if (vfsdbg73_sb_cleared)
		pr_info("inodedump-direct: sb_cleared=%px unreadable=%px\n",
			vfsdbg73_sb_cleared, vfsdbg73_unreadable);
	pr_info("inodedump-trigger: done reports=%d%s\n", nr_reports,
		err ? " FAILED" : "");
	return 0;

out_unpin:
	unpin_inodes();
	kfree(buf);
out_free:
	kfree(roles_copy);
	return err;
}
module_init(vfsdbg73_trigger_init);

MODULE_DESCRIPTION("inodedump fixture: fire real 7.3 VFS_*_ON_INODE reports and print inode truth");
MODULE_LICENSE("GPL");
