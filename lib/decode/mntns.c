// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Mount namespaces: what a mount's mnt_ns says it belongs to, and a task
 * in each namespace. The number is the one `ls -l /proc/PID/ns/mnt` shows
 * (mnt_namespace.ns.inum); the task is the lowest pid whose
 * nsproxy->mnt_ns is it (the namespace's init, as a container runtime
 * starts it). One walk of the task list, on first need, serves the whole
 * session: a sweep asks per inode, the walk is done once.
 *
 * A mount in no namespace is never a user's path: mnt_ns NULL (a
 * kernel's own vfs_kern_mount(), as devtmpfs's; a mount detached, or
 * lazily unmounted and still pinned), MNT_NS_INTERNAL
 * (ERR_PTR(-EINVAL): kern_mount()'s mounts and overlayfs's layer clones,
 * clone_private_mount(), on every kernel 5.10 to 7.3), or a namespace of
 * inode number 0 (an anonymous namespace: open_tree(OPEN_TREE_CLONE) and
 * fsmount() trees not yet attached; alloc_mnt_ns(anon) gives no inum).
 *
 * Where the kernel keeps each member is read from its types: mnt_namespace
 * is private to fs/ (fs/mount.h), so it comes from BTF where the dump has
 * it (a DWARF session's lazy BTF, as struct mount does), else from the
 * DWARF of fs/namespace.c; 5.10's mnt_namespace begins with a count
 * before ns, 6.x with ns, 7.x's ns_common differs again: only the path
 * "ns.inum" is assumed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "decode/inode.h"

#define MAX_TASKS (1 << 16)
#define MAX_NS 4096

struct ns_entry {
	uint64_t ns;	/* the struct mnt_namespace */
	uint64_t inum;	/* 0: not read */
	bool inum_read; /* tried: inum is what it says, or unreadable */
	bool inum_ok;
	uint64_t pid; /* the lowest pid in it; has_task false: none */
	bool has_task;
	char comm[16];
};

struct idd_mntns {
	bool layout_tried, layout_ok, walked;
	bool first_read; /* init_task's namespace and the first task read */
	uint64_t init_task;
	struct idd_member tasks, pid, comm, nsproxy, mnt_ns, inum;
	uint64_t initial; /* init_task's namespace, 0 unknown */
	struct ns_entry *v;
	size_t n, cap;
	char *walk_error; /* why the task walk stopped early */
	bool no_walk;	  /* ... or was not made: no init_task symbol */
};

void idd_mntns_free(struct idd_mntns *m)
{
	if (!m)
		return;
	free(m->v);
	free(m->walk_error);
	free(m);
}

/*
 * The session's BTF beside its DWARF, loaded once (btf_lazy.c); NULL when
 * the session's types are BTF already or there is none. Only running out
 * of memory is an error.
 */
struct inodedump_error *idd_session_lazy_btf(struct inodedump *id,
					     struct idd_btfl **out)
{
	*out = NULL;
	/*
	 * Not when the DWARF's answers are kept per kernel: the few structs
	 * BTF is for here (fs/'s struct mount, found in DWARF only deep in
	 * .debug_info) are then one lookup in them on every run after the
	 * first, where a BTF parse costs 2 M instructions and maps 2 MB of
	 * vmlinux's .BTF on every run.
	 */
	if (idd_types_btf(id->types) || idd_types_answers_kept(id->types))
		return NULL;
	if (!id->btf_tried) {
		struct inodedump_error *err = idd_btfl_load(id->types, id->syms,
							   id->target, &id->btf);

		if (idd_error_is_nomem(err))
			return err;
		inodedump_error_free(err);
		id->btf_tried = true;
	}
	*out = id->btf;
	return NULL;
}

/* A member of struct sname: the session's types, or its lazy BTF first. */
static struct inodedump_error *member(struct inodedump *id,
				      struct idd_btfl *btf, const char *sname,
				      const char *cu, const char *path,
				      struct idd_member *out)
{
	struct idd_struct s;
	struct inodedump_error *err;

	memset(out, 0, sizeof(*out));
	if (btf && idd_btfl_member(btf, sname, path, out))
		return NULL;
	err = cu ? idd_types_struct_in(id->types, sname, cu, &s)
		 : idd_types_struct(id->types, sname, &s);
	if (err)
		return idd_error_unless(err, INODEDUMP_ERR_TYPE);
	idd_types_member(id->types, &s, path, out);
	return NULL;
}

static struct inodedump_error *load_layout(struct inodedump *id,
					   struct idd_mntns *m)
{
	struct idd_btfl *btf;
	struct inodedump_error *err;

	m->layout_tried = true;
	if ((err = idd_session_lazy_btf(id, &btf)))
		return err;
	if (!btf || !idd_btfl_member(btf, "mnt_namespace", "ns.inum", &m->inum))
		idd_anchor(id->types, id->syms, "fs/namespace.c",
			   (const char *const[]){ "mntput", "kern_mount", NULL });
	if ((err = member(id, btf, "task_struct", NULL, "tasks", &m->tasks)) ||
	    (err = member(id, btf, "task_struct", NULL, "pid", &m->pid)) ||
	    (err = member(id, btf, "task_struct", NULL, "comm", &m->comm)) ||
	    (err = member(id, btf, "task_struct", NULL, "nsproxy", &m->nsproxy)) ||
	    (err = member(id, btf, "nsproxy", NULL, "mnt_ns", &m->mnt_ns)) ||
	    (!m->inum.present &&
	     (err = member(id, btf, "mnt_namespace", "fs/namespace.c",
			   "ns.inum", &m->inum))))
		return err;
	if (m->comm.present && !m->comm.size)
		m->comm.size = 16; /* TASK_COMM_LEN, 5.10 to 7.3 */
	m->layout_ok = m->tasks.present && m->pid.present && m->comm.present &&
		       m->nsproxy.present && m->nsproxy.size == 8 &&
		       m->mnt_ns.present && m->mnt_ns.size == 8 &&
		       m->inum.present && m->inum.size <= 8;
	return NULL;
}

static struct inodedump_error *read_uint(struct inodedump *id, uint64_t addr,
					 const struct idd_member *m,
					 uint64_t *out)
{
	size_t n = m->size < 8 ? (size_t)m->size : 8;

	*out = 0;
	return idd_target_read_uint(id->target, addr + m->offset, n, out);
}

static struct ns_entry *find(struct idd_mntns *m, uint64_t ns)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].ns == ns)
			return &m->v[i];
	return NULL;
}

/* The entry of ns, added when new; NULL: out of memory or too many. */
static struct ns_entry *entry(struct idd_mntns *m, uint64_t ns, bool *nomem)
{
	struct ns_entry *e = find(m, ns);

	*nomem = false;
	if (e)
		return e;
	if (m->n >= MAX_NS)
		return NULL;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 8;
		struct ns_entry *grown = realloc(m->v, cap * sizeof(*grown));

		if (!grown) {
			*nomem = true;
			return NULL;
		}
		m->v = grown;
		m->cap = cap;
	}
	e = &m->v[m->n++];
	memset(e, 0, sizeof(*e));
	e->ns = ns;
	return e;
}

/*
 * The namespace of task (0: a zombie's, or unreadable: then *why, if
 * given and not yet set, keeps the first read's reason, malloc'd).
 */
static uint64_t task_ns_why(struct inodedump *id, const struct idd_mntns *m,
			    uint64_t task, char **why)
{
	uint64_t nsproxy, ns;
	struct inodedump_error *err;

	err = idd_target_read_u64(id->target, task + m->nsproxy.offset,
				  &nsproxy);
	if (!err && nsproxy)
		err = idd_target_read_u64(id->target,
					  nsproxy + m->mnt_ns.offset, &ns);
	if (err || !nsproxy)
		ns = 0;
	if (err && why && !*why)
		*why = idd_strdup_printf("task 0x%" PRIx64 ": %s", task,
					 inodedump_error_message(err));
	inodedump_error_free(err);
	return ns;
}

static uint64_t task_ns(struct inodedump *id, const struct idd_mntns *m,
			uint64_t task)
{
	return task_ns_why(id, m, task, NULL);
}

/* Task (pid) is in namespace ns: the lowest pid of each is kept. */
static struct inodedump_error *note_task(struct inodedump *id,
					 struct idd_mntns *m, uint64_t ns,
					 uint64_t task, uint64_t pid)
{
	bool nomem;
	struct ns_entry *e = entry(m, ns, &nomem);

	if (nomem)
		return idd_nomem();
	if (e && (!e->has_task || pid < e->pid)) {
		e->has_task = true;
		e->pid = pid;
		memset(e->comm, 0, sizeof(e->comm));
		inodedump_error_free(idd_target_read(
			id->target, task + m->comm.offset, e->comm,
			m->comm.size < sizeof(e->comm) ? m->comm.size
						       : sizeof(e->comm) - 1));
	}
	return NULL;
}

/*
 * init_task's namespace (the initial one), and the first task of the
 * list: when it is pid 1 and in the initial namespace, no pid in it is
 * lower (pid 0 is init_task itself, in no list), and a dump with one
 * namespace needs no walk. Only running out of memory is an error.
 */
static struct inodedump_error *read_first(struct inodedump *id,
					  struct idd_mntns *m)
{
	uint64_t node, pid;
	struct inodedump_error *err;

	m->first_read = true;
	if (!idd_symbols_address(id->syms, "init_task", &m->init_task)) {
		m->init_task = 0;
		return NULL;
	}
	{
		char *why = NULL;

		m->initial = task_ns_why(id, m, m->init_task, &why);
		if (why) /* which namespace is the initial one: not known */
			idd_session_note(id, "mount namespaces: init_task's "
					 "namespace could not be read (%s): no "
					 "path can be said to be in the initial "
					 "one", why);
		free(why);
	}
	err = idd_target_read_u64(id->target, m->init_task + m->tasks.offset,
				  &node);
	if (!err && m->initial && node != m->init_task + m->tasks.offset &&
	    task_ns(id, m, node - m->tasks.offset) == m->initial &&
	    !(err = read_uint(id, node - m->tasks.offset, &m->pid, &pid)) &&
	    pid == 1)
		return note_task(id, m, m->initial, node - m->tasks.offset, pid);
	if (idd_error_is_nomem(err))
		return err;
	inodedump_error_free(err);
	return NULL;
}

/*
 * Every task from init_task: the lowest pid of each namespace. A task
 * that cannot be read is passed over; a corrupt list ends the walk, the
 * reason kept (the namespaces' numbers are still read from each one).
 */
static struct inodedump_error *walk_tasks(struct inodedump *id,
					  struct idd_mntns *m)
{
	_cleanup_visited_ struct idd_visited seen = { 0 };
	uint64_t init_task, head, node;
	struct inodedump_error *err;
	size_t count = 0, unread = 0;
	char *why = NULL;

	m->walked = true;
	if (!(init_task = m->init_task)) {
		m->walk_error = idd_strdup_printf(
			"no symbol init_task in %s",
			idd_session_symbols_whence(id));
		m->no_walk = true;
		return m->walk_error ? NULL : idd_nomem();
	}
	head = init_task + m->tasks.offset;
	err = idd_target_read_u64(id->target, head, &node);
	while (!err && node != head) {
		uint64_t task = node - m->tasks.offset, pid, ns;
		bool again;

		if ((err = idd_visit(&seen, node, &again)))
			return err;
		if (again || ++count > MAX_TASKS) {
			err = idd_error_at(INODEDUMP_ERR_DUMP, node,
					   "task list loops at 0x%" PRIx64, node);
			break;
		}
		{
			char *w = NULL;

			ns = task_ns_why(id, m, task, &w);
			if (w) {
				unread++;
				if (!why)
					why = w;
				else
					free(w);
			}
		}
		if (ns && !read_uint(id, task, &m->pid, &pid) &&
		    (err = note_task(id, m, ns, task, pid))) {
			free(why);
			return err;
		}
		err = idd_target_read_u64(id->target, node, &node);
	}
	if (unread)
		idd_session_note(id, "mount namespaces: the namespace of %zu "
				 "task(s) could not be read (first: %s): a "
				 "namespace's process may be missing, or not its "
				 "lowest pid", unread, why ? why : "?");
	free(why);
	if (idd_error_is_nomem(err))
		return err;
	if (err) {
		m->walk_error = idd_strdup_printf(
			"task walk stopped after %zu tasks: %s", count,
			inodedump_error_message(err));
		inodedump_error_free(err);
		if (!m->walk_error)
			return idd_nomem();
		idd_session_note(id, "mount namespaces: %s: a namespace's "
				 "process may be missing, or not its lowest pid",
				 m->walk_error);
	}
	return NULL;
}

static struct inodedump_error *ready(struct inodedump *id,
				     struct idd_mntns **out)
{
	struct idd_mntns *m = id->mntns;
	struct inodedump_error *err;

	*out = NULL;
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return idd_nomem();
		id->mntns = m;
	}
	if (!m->layout_tried && (err = load_layout(id, m)))
		return err;
	if (m->layout_ok && !m->first_read && (err = read_first(id, m)))
		return err;
	if (m->layout_ok)
		*out = m;
	return NULL;
}

/* ERR_PTR(): the top 4095 addresses (MNT_NS_INTERNAL is -EINVAL). */
static bool err_ptr(uint64_t p)
{
	return p >= (uint64_t)-4095;
}

struct inodedump_error *idd_mntns_lookup(struct inodedump *id, uint64_t ns,
					 struct idd_ns_info *out)
{
	struct idd_mntns *m;
	struct ns_entry *e;
	struct inodedump_error *err;
	bool nomem;

	memset(out, 0, sizeof(*out));
	if (!ns) {
		out->where = IDD_PATH_DETACHED;
		return NULL;
	}
	if (err_ptr(ns)) {
		out->where = IDD_PATH_INTERNAL;
		return NULL;
	}
	out->where = IDD_PATH_NS;
	if ((err = ready(id, &m)) || !m)
		return err;
	/* The task walk, once, for a namespace the first task is not in. */
	e = find(m, ns);
	if ((!e || !e->has_task) && !m->walked && (err = walk_tasks(id, m)))
		return err;
	e = entry(m, ns, &nomem);
	if (nomem)
		return idd_nomem();
	if (!e)
		return NULL;
	if (!e->inum_read) {
		struct inodedump_error *why = read_uint(id, ns, &m->inum, &e->inum);

		e->inum_read = true;
		e->inum_ok = !why;
		if (idd_error_is_nomem(why))
			return why;
		inodedump_error_free(why);
	}
	if (e->inum_ok && !e->inum && !e->has_task) {
		out->where = IDD_PATH_ANON;
		return NULL;
	}
	out->inum = e->inum_ok ? e->inum : 0;
	out->initial = ns == m->initial;
	out->has_task = e->has_task;
	out->walk_cut = !e->has_task && m->walk_error && !m->no_walk;
	out->no_walk = !e->has_task && m->no_walk;
	out->pid = e->pid;
	memcpy(out->comm, e->comm, sizeof(out->comm));
	return NULL;
}

struct inodedump_error *idd_mntns_of_task(struct inodedump *id, uint64_t task,
					  struct idd_ns_info *out)
{
	struct idd_mntns *m;
	struct inodedump_error *err;
	uint64_t ns;

	memset(out, 0, sizeof(*out));
	out->where = IDD_PATH_DETACHED;
	if ((err = ready(id, &m)) || !m)
		return err;
	ns = task_ns(id, m, task);
	if (!ns)
		return NULL;
	return idd_mntns_lookup(id, ns, out);
}
