// SPDX-License-Identifier: GPL-2.0
/*
 * vfsdbg_trigger - make the patched kernel report two inodes, then print
 * the ground truth a dump reader must reproduce.
 *
 * roles= is a comma-separated list of role:path (see CONTRACT.md). On load:
 *
 *  1. Every path is looked up without following a trailing symlink and its
 *     inode is pinned with ihold(); the references are never dropped, so
 *     the inodes (and the counts printed below) stay as they are for the
 *     dumps taken afterwards.
 *  2. victim_symlink, a long tmpfs symlink (its target is in the page cache,
 *     so tmpfs did not cache it in i_link), gets inode_set_cached_link()
 *     with a length one short: VFS_WARN_ON_INODE(strlen(link) != linklen)
 *     reports it. A short symlink would already carry IOP_CACHED_LINK and
 *     make the second assertion report as well, so it is refused.
 *  3. victim_new, a fresh new_inode() on the same tmpfs superblock, gets
 *     the same treatment: the second report. It has no path; the
 *     vfsdbg_victim_new global points at it.
 *  4. One "inodedump-truth: " line per inode, then one "inodedump-page: "
 *     line per inode: where the kernel itself finds the inode's struct
 *     page (virt_to_page(), whatever its memory model), its pfn, its
 *     slab's head page, and kmem_dump_obj()'s slab provenance (cache,
 *     object start, offset, object size); then
 *     "inodedump-trigger: done reports=2".
 *
 * The module has no exit routine: it cannot be unloaded, so the references
 * it holds and the vfsdbg_victim_new pointer stay for the dumps.
 */
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uidgid.h>

#define MAX_ROLES		32
#define TRUTH_LINE_MAX		900	/* below printk's ~1000-byte record */
#define VICTIM_SYMLINK		"victim_symlink"
#define VICTIM_NEW		"victim_new"
#define VICTIM_NEW_TARGET	"/tmp/fx/victim_new_target"
/*
 * tmpfs numbers its inodes per superblock with 32-bit values (unless
 * mounted inode64), so a number above 2^32 cannot collide.
 */
#define VICTIM_NEW_INO		((1UL << 40) | 0x1ee7)

static char *roles;
module_param(roles, charp, 0444);
MODULE_PARM_DESC(roles, "comma-separated role:path list, one role victim_symlink");

struct role {
	const char *name;
	const char *path;	/* "-" for victim_new */
	struct inode *inode;	/* pinned with ihold() or new_inode() */
};

static struct role role_table[MAX_ROLES + 1];
static int nr_roles;
static char *roles_copy;	/* role_table's strings point into it */

/* The inode created for the second report; for dump readers to find. */
struct inode *vfsdbg_victim_new;

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
		pr_err("vfsdbg_trigger: roles= is required\n");
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
			pr_err("vfsdbg_trigger: bad or too many roles at '%s'\n", entry);
			return -EINVAL;
		}
		*sep = '\0';
		if (!is_token(entry) || !is_token(sep + 1) ||
		    !strcmp(entry, VICTIM_NEW)) {
			pr_err("vfsdbg_trigger: bad role '%s'\n", entry);
			return -EINVAL;
		}
		role_table[nr_roles].name = entry;
		role_table[nr_roles].path = sep + 1;
		nr_roles++;
	}
	return 0;
}

static struct role *find_role(const char *name)
{
	int i;

	for (i = 0; i < nr_roles; i++)
		if (!strcmp(role_table[i].name, name))
			return &role_table[i];
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
			pr_err("vfsdbg_trigger: %s: lookup of %s failed: %d\n",
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

/*
 * Only a tmpfs symlink whose target tmpfs keeps in the page cache is a
 * victim that reports exactly once: i_link unset, IOP_CACHED_LINK clear.
 */
static int check_victim(struct inode *inode)
{
	if (!S_ISLNK(inode->i_mode) || strcmp(inode->i_sb->s_type->name, "tmpfs")) {
		pr_err("vfsdbg_trigger: victim_symlink must be a tmpfs symlink\n");
		return -EINVAL;
	}
	if (inode->i_link || (inode->i_opflags & IOP_CACHED_LINK)) {
		pr_err("vfsdbg_trigger: victim_symlink is already cached; use a target longer than 127 bytes\n");
		return -EINVAL;
	}
	return 0;
}

/* Cache @target in @inode with a length one short: one VFS_WARN_ON_INODE. */
static int cache_link_one_short(struct inode *inode, const char *target)
{
	char *link = kstrdup(target, GFP_KERNEL);

	if (!link)
		return -ENOMEM;
	spin_lock(&inode->i_lock);
	inode_set_cached_link(inode, link, strlen(link) - 1);
	spin_unlock(&inode->i_lock);
	return 0;
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

static int report_victim_symlink(struct inode *inode)
{
	char *target;
	int err;

	err = check_victim(inode);
	if (err)
		return err;
	target = read_target(inode);
	if (IS_ERR(target)) {
		pr_err("vfsdbg_trigger: reading victim_symlink failed: %ld\n",
		       PTR_ERR(target));
		return PTR_ERR(target);
	}
	err = cache_link_one_short(inode, target);
	kfree(target);
	return err;
}

static int report_victim_new(struct super_block *sb)
{
	struct inode *inode = new_inode(sb);
	int err;

	if (!inode)
		return -ENOMEM;
	inode->i_ino = VICTIM_NEW_INO;
	inode->i_mode = S_IFLNK | 0777;
	inode->i_size = strlen(VICTIM_NEW_TARGET);
	err = cache_link_one_short(inode, VICTIM_NEW_TARGET);
	if (err) {
		iput(inode);
		return err;
	}
	vfsdbg_victim_new = inode;
	role_table[nr_roles].name = VICTIM_NEW;
	role_table[nr_roles].path = "-";
	role_table[nr_roles].inode = inode;
	nr_roles++;
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
		      "addr=%px path=%s ino=%lu mode=0%o opflags=0x%x flags=0x%x state=0x%x count=%d nlink=%u size=%lld uid=%u gid=%u s_id=%s fstype=%s",
		      inode, role->path, inode->i_ino, inode->i_mode,
		      inode->i_opflags, inode->i_flags, inode->i_state,
		      atomic_read(&inode->i_count), inode->i_nlink,
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

/*
 * The kernel's own answer to "which struct page, which slab object": a
 * dump reader's memory-model walk and slab lookup are checked against it
 * (drgn 0.0.22 and 0.3.0 know no SPARSEMEM without VMEMMAP).
 */
static void print_page(const struct role *role)
{
	void *obj = role->inode;
	struct page *page = virt_to_page(obj);

	pr_info("inodedump-page: role=%s addr=%px pfn=0x%lx page=%px head=%px",
		role->name, obj, page_to_pfn(page), page,
		&virt_to_folio(obj)->page);
	if (!kmem_dump_obj(obj))
		pr_cont(" slab -\n");
}

static int __init vfsdbg_trigger_init(void)
{
	struct role *victim;
	char *buf;
	int i, err;

	err = parse_roles();
	if (err)
		goto out_free;
	victim = find_role(VICTIM_SYMLINK);
	if (!victim) {
		pr_err("vfsdbg_trigger: no victim_symlink role\n");
		err = -EINVAL;
		goto out_free;
	}
	buf = kmalloc(TRUTH_LINE_MAX, GFP_KERNEL);
	if (!buf) {
		err = -ENOMEM;
		goto out_free;
	}
	err = pin_inodes();
	if (err)
		goto out_unpin;
	err = report_victim_symlink(victim->inode);
	if (err)
		goto out_unpin;

	/* From here on nothing is undone: the first report has fired. */
	err = report_victim_new(victim->inode->i_sb);
	if (err)
		pr_err("vfsdbg_trigger: victim_new failed: %d\n", err);

	for (i = 0; i < nr_roles; i++)
		print_truth(buf, &role_table[i]);
	for (i = 0; i < nr_roles; i++)
		print_page(&role_table[i]);
	kfree(buf);
	pr_info("inodedump-trigger: done reports=%d\n", err ? 1 : 2);
	return 0;

out_unpin:
	unpin_inodes();
	kfree(buf);
out_free:
	kfree(roles_copy);
	return err;
}
module_init(vfsdbg_trigger_init);

MODULE_DESCRIPTION("inodedump fixture: fire two VFS_WARN_ON_INODE reports and print inode truth");
MODULE_LICENSE("GPL");
