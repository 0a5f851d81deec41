// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Holders: the tasks that have an inode open (their fd tables), or as their
 * cwd or root. One walk of the task list serves every inode of a run; the
 * walk is bounded and a corrupt list ends it with a note. A task that
 * cannot be read in full (its files, a file, its cwd or root) does not end
 * it, but is counted: the holders of every inode of the run are then
 * incomplete (inodedump_inode_incomplete()), with the first reason.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/cleanup.h"
#include "decode/inode.h"
#include "kernel/vfs.h"

#define MAX_TASKS (1 << 16)
#define MAX_FDS (1 << 16)
#define MAX_HELD (1u << 20)

struct holder_layout {
	struct idd_struct task, files, fdt, file, fs;
	struct idd_member tasks, pid, comm, files_ptr, fs_ptr, fdt_ptr, max_fds,
		fd, f_inode, pwd_dentry, root_dentry, d_inode, list_next;
	/* f_ref.refcnt (file_ref_t, 6.13+) or f_count: absent leaves -1 */
	struct idd_member f_refs;
	bool file_ref;
	struct idd_member f_op; /* named for the inode asked only */
	bool ok;
};

struct held {
	uint64_t inode;
	struct idd_holder h;
};

/* The session's one walk: every (inode, task) pair it met. */
struct idd_holders {
	struct held *v;
	size_t n, cap;
	struct inodedump_error *stopped; /* why the walk stopped early */
	bool full;			 /* MAX_HELD reached: some left out */
	/* Tasks walked, those not read in full, and why the first was not. */
	size_t tasks, unreadable;
	char *first_unreadable;
	struct idd_member f_op; /* file.f_op, where the holders' files say */
};

static bool pointer(const struct idd_member *m)
{
	return m->present && m->size == 8;
}

/*
 * The members the walk needs. A type this kernel lacks leaves l->ok false;
 * only other errors (out of memory) are returned.
 */
static struct inodedump_error *load_holder_layout(struct inodedump *id,
						  struct holder_layout *l)
{
	struct idd_types *t = id->types;
	struct idd_struct dentry;
	struct inodedump_error *err;

	memset(l, 0, sizeof(*l));
	if ((err = idd_types_struct(t, "task_struct", &l->task)) ||
	    (err = idd_types_struct(t, "file", &l->file)) ||
	    (err = idd_types_struct(t, "dentry", &dentry)))
		return idd_error_unless(err, INODEDUMP_ERR_TYPE);
	idd_types_member(t, &l->task, "tasks", &l->tasks);
	idd_types_member(t, &l->task, "tasks.next", &l->list_next);
	idd_types_member(t, &l->task, "pid", &l->pid);
	idd_types_member(t, &l->task, "comm", &l->comm);
	idd_types_member(t, &l->task, "files", &l->files_ptr);
	idd_types_member(t, &l->task, "fs", &l->fs_ptr);
	idd_types_member(t, &l->file, "f_inode", &l->f_inode);
	idd_types_member(t, &l->file, "f_op", &l->f_op);
	idd_types_member(t, &l->file, "f_ref.refcnt.counter", &l->f_refs);
	l->file_ref = l->f_refs.present;
	if (!l->file_ref)
		idd_types_member(t, &l->file, "f_count.counter", &l->f_refs);
	if (l->f_refs.size > 8)
		l->f_refs.present = false;
	idd_types_member(t, &dentry, "d_inode", &l->d_inode);
	if (!l->tasks.present || !l->files_ptr.present || !l->fs_ptr.present)
		return NULL;
	if ((err = idd_types_pointee_struct(t, &l->files_ptr, &l->files)) ||
	    (err = idd_types_pointee_struct(t, &l->fs_ptr, &l->fs)))
		return idd_error_unless(err, INODEDUMP_ERR_TYPE);
	idd_types_member(t, &l->files, "fdt", &l->fdt_ptr);
	if (!l->fdt_ptr.present)
		return NULL;
	if ((err = idd_types_pointee_struct(t, &l->fdt_ptr, &l->fdt)))
		return idd_error_unless(err, INODEDUMP_ERR_TYPE);
	idd_types_member(t, &l->fdt, "max_fds", &l->max_fds);
	idd_types_member(t, &l->fdt, "fd", &l->fd);
	idd_types_member(t, &l->fs, "pwd.dentry", &l->pwd_dentry);
	idd_types_member(t, &l->fs, "root.dentry", &l->root_dentry);
	l->ok = pointer(&l->list_next) && l->pid.present && l->comm.present &&
		pointer(&l->files_ptr) && pointer(&l->fs_ptr) &&
		pointer(&l->fdt_ptr) && l->max_fds.present &&
		pointer(&l->fd) && pointer(&l->f_inode) &&
		pointer(&l->pwd_dentry) && pointer(&l->root_dentry) &&
		pointer(&l->d_inode);
	return NULL;
}

/* An integer member (pid, max_fds) of the struct at addr. */
static struct inodedump_error *read_int(struct inodedump *id, uint64_t addr,
					const struct idd_member *m,
					uint64_t *out)
{
	size_t n = m->size < 8 ? (size_t)m->size : 8;

	return idd_target_read_uint(id->target, addr + m->offset, n, out);
}

/*
 * A pointer whose memory may be unreadable: *out is then 0, and the walk
 * goes on, but what it pointed to is unknown: the first such failure of a
 * task is kept in *lost. Out of memory is still an error.
 */
static struct inodedump_error *read_ptr_or_0(struct inodedump *id,
					     uint64_t addr, uint64_t *out,
					     struct inodedump_error **lost)
{
	struct inodedump_error *err = idd_target_read_u64(id->target, addr, out);

	if (err && !idd_error_is_nomem(err)) {
		*out = 0;
		if (!*lost)
			*lost = err;
		else
			inodedump_error_free(err);
		return NULL;
	}
	return err;
}

/* Remember that task pid holds inode; bounded to MAX_HELD in all. */
static struct inodedump_error *add_held(struct idd_holders *hs,
					uint64_t inode, const char *kind,
					uint64_t pid, const char *comm,
					const struct idd_ns_info *ns,
					int64_t fd, int64_t file_refs,
					uint64_t file)
{
	if (!inode)
		return NULL;
	if (hs->n == hs->cap) {
		size_t cap = hs->cap ? 2 * hs->cap : 64;
		struct held *grown;

		if (hs->n >= MAX_HELD) {
			hs->full = true;
			return NULL;
		}
		grown = realloc(hs->v, cap * sizeof(*grown));
		if (!grown)
			return idd_nomem();
		hs->v = grown;
		hs->cap = cap;
	}
	struct held *e = &hs->v[hs->n++];

	e->inode = inode;
	e->h.kind = kind;
	e->h.pid = pid;
	e->h.fd = fd;
	e->h.file_refs = file_refs;
	e->h.file = file;
	e->h.f_op_addr = 0;
	e->h.f_op[0] = 0;
	e->h.ns = *ns;
	snprintf(e->h.comm, sizeof(e->h.comm), "%s", comm);
	return NULL;
}

/* The inode of the dentry member of fs (cwd, root); 0 when unreadable. */
static struct inodedump_error *fs_dentry_inode(struct inodedump *id,
					       const struct holder_layout *l,
					       uint64_t fs,
					       const struct idd_member *m,
					       uint64_t *inode,
					       struct inodedump_error **lost)
{
	uint64_t dentry;
	struct inodedump_error *err;

	*inode = 0;
	err = read_ptr_or_0(id, fs + m->offset, &dentry, lost);
	if (err || !dentry)
		return err;
	return read_ptr_or_0(id, dentry + l->d_inode.offset, inode, lost);
}

/* An open file's references; -1 when unknown or unreadable. */
static struct inodedump_error *file_refs(struct inodedump *id,
					 const struct holder_layout *l,
					 uint64_t file, int64_t *refs)
{
	uint64_t raw;
	struct inodedump_error *err;

	*refs = -1;
	if (!l->f_refs.present)
		return NULL;
	err = read_int(id, file, &l->f_refs, &raw);
	if (err && !idd_error_is_nomem(err)) {
		inodedump_error_free(err);
		return NULL;
	}
	if (!err)
		*refs = (int64_t)idd_file_refs(raw, (unsigned)l->f_refs.size,
					       l->file_ref);
	return err;
}

/*
 * What one task holds: its cwd and root, and its open files. A pointer
 * of one of them that could not be read leaves that one unknown: *lost
 * says why (the first such read), and the walk of the task goes on.
 */
static struct inodedump_error *task_holds(struct inodedump *id,
					  const struct holder_layout *l,
					  uint64_t task, struct idd_holders *hs,
					  struct inodedump_error **lost)
{
	uint64_t pid, files, fs, fdt, max_fds, fd_array, inode;
	int64_t refs;
	char comm[16] = "";
	struct inodedump_error *err;
	_cleanup_free_ uint64_t *fds = NULL;
	struct idd_ns_info ns;

	if ((err = read_int(id, task, &l->pid, &pid)) ||
	    (err = idd_target_read_u64(id->target, task + l->files_ptr.offset,
				       &files)) ||
	    (err = idd_target_read_u64(id->target, task + l->fs_ptr.offset,
				       &fs)) ||
	    (err = idd_target_read(id->target, task + l->comm.offset, comm,
				   l->comm.size < sizeof(comm) ? l->comm.size
							       : sizeof(comm) - 1)))
		return err;
	/* The task's mount namespace, said beside what it holds. */
	if ((err = idd_mntns_of_task(id, task, &ns)))
		return err;
	if (fs) {
		if ((err = fs_dentry_inode(id, l, fs, &l->pwd_dentry, &inode,
					   lost)) ||
		    (err = add_held(hs, inode, "cwd", pid, comm, &ns, -1, -1,
				    0)) ||
		    (err = fs_dentry_inode(id, l, fs, &l->root_dentry, &inode,
					   lost)) ||
		    (err = add_held(hs, inode, "root", pid, comm, &ns, -1, -1,
				    0)))
			return err;
	}
	if (!files)
		return NULL; /* a kernel thread */
	if ((err = idd_target_read_u64(id->target, files + l->fdt_ptr.offset,
				       &fdt)) ||
	    (err = read_int(id, fdt, &l->max_fds, &max_fds)) ||
	    (err = idd_target_read_u64(id->target, fdt + l->fd.offset,
				       &fd_array)))
		return err;
	if (max_fds > MAX_FDS)
		max_fds = MAX_FDS;
	fds = calloc(max_fds ? max_fds : 1, sizeof(*fds));
	if (!fds)
		return idd_nomem();
	err = idd_target_read(id->target, fd_array, fds, max_fds * 8);
	for (uint64_t i = 0; !err && i < max_fds; i++) {
		fds[i] = idd_target_uint(id->target, &fds[i], 8);
		if (!fds[i])
			continue;
		if ((err = read_ptr_or_0(id, fds[i] + l->f_inode.offset, &inode,
					 lost)) ||
		    (err = file_refs(id, l, fds[i], &refs)) ||
		    (err = add_held(hs, inode, "fd", pid, comm, &ns,
				    (int64_t)i, refs, fds[i])))
			return err;
	}
	return err;
}

/*
 * What an open file is, by its f_op's symbol (eventfd_fops, pipefifo_fops,
 * socket_file_ops, ...): for the inode asked only, not in the walk. Left
 * "" where it cannot be read or named; only running out of memory fails.
 */
static struct inodedump_error *name_file(struct inodedump *id,
					 const struct idd_holders *hs,
					 struct idd_holder *h)
{
	uint64_t f_op;
	char *name = NULL;
	struct inodedump_error *err;

	if (!h->file || !pointer(&hs->f_op))
		return NULL;
	err = idd_target_read_u64(id->target, h->file + hs->f_op.offset,
				  &f_op);
	if (err || !f_op) {
		inodedump_error_free(err);
		return NULL;
	}
	h->f_op_addr = f_op;
	/* vmlinux's symbols; a module's are named by the decode after */
	err = idd_symbols_names(id->syms, &f_op, 1, &name);
	if (err && !idd_error_is_nomem(err)) {
		inodedump_error_free(err);
		err = NULL;
	}
	if (name)
		snprintf(h->f_op, sizeof(h->f_op), "%s", name);
	free(name);
	return err;
}

/*
 * Walk every task from init_task into hs. Why the walk stopped early (a
 * type this kernel lacks, a corrupt list, a fault) is kept in
 * hs->stopped; only running out of memory is returned.
 */
static struct inodedump_error *walk_tasks(struct inodedump *id,
					  struct idd_holders *hs)
{
	_cleanup_visited_ struct idd_visited seen = { 0 };
	struct holder_layout l;
	uint64_t init_task, head, node, next_offset;
	struct inodedump_error *err;
	size_t count = 0;

	if ((err = load_holder_layout(id, &l)))
		return err;
	hs->f_op = l.f_op;
	if (!l.ok) {
		hs->stopped = idd_error(INODEDUMP_ERR_TYPE,
					"this kernel's task/file types lack a "
					"member the holder walk needs");
		return idd_error_is_nomem(hs->stopped) ? hs->stopped : NULL;
	}
	if (!idd_symbols_address(id->syms, "init_task", &init_task)) {
		hs->stopped = idd_error(INODEDUMP_ERR_TYPE,
					"no symbol init_task in %s",
					idd_session_symbols_whence(id));
		return idd_error_is_nomem(hs->stopped) ? hs->stopped : NULL;
	}
	/* tasks.next, from the list node (tasks) rather than the task. */
	next_offset = l.list_next.offset - l.tasks.offset;
	head = init_task + l.tasks.offset;
	err = idd_target_read_u64(id->target, head + next_offset, &node);
	while (!err && node != head) {
		uint64_t task = node - l.tasks.offset;
		struct inodedump_error *task_err, *lost = NULL;
		bool again;

		if ((err = idd_visit(&seen, node, &again)))
			return err;
		if (again || ++count > MAX_TASKS) {
			err = idd_error_at(INODEDUMP_ERR_DUMP, node,
					   "task list loops at 0x%" PRIx64
					   " without returning to init_task: "
					   "corrupt", node);
			break;
		}
		task_err = task_holds(id, &l, task, hs, &lost);
		if (idd_error_is_nomem(task_err)) {
			inodedump_error_free(lost);
			return task_err;
		}
		/*
		 * One unreadable task does not end the walk, but what it
		 * holds is unknown: counted, and the first reason kept.
		 */
		hs->tasks++;
		if (task_err || lost) {
			struct inodedump_error *why = task_err ? task_err : lost;

			hs->unreadable++;
			if (!hs->first_unreadable &&
			    !(hs->first_unreadable = idd_strdup_printf(
				      "task 0x%" PRIx64 ": %s", task,
				      inodedump_error_message(why)))) {
				inodedump_error_free(task_err);
				inodedump_error_free(lost);
				return idd_nomem();
			}
		}
		inodedump_error_free(task_err);
		inodedump_error_free(lost);
		lost = NULL;
		err = idd_target_read_u64(id->target, node + next_offset, &node);
	}
	if (idd_error_is_nomem(err))
		return err;
	if (err)
		hs->stopped = idd_error_wrap(err, "task walk stopped after %zu "
					     "tasks", count);
	else if (hs->full)
		hs->stopped = idd_error(INODEDUMP_ERR_DUMP,
					"more than %u open files, cwds and roots "
					"in %zu tasks: the rest were not "
					"recorded", MAX_HELD, count);
	return idd_error_is_nomem(hs->stopped) ? hs->stopped : NULL;
}

struct inodedump_error *idd_decode_holders(struct inodedump *id,
					   struct inodedump_inode *ino)
{
	struct idd_holders *hs = id->holders;
	struct inodedump_error *err;

	if (!hs) {
		hs = calloc(1, sizeof(*hs));
		if (!hs)
			return idd_nomem();
		if ((err = walk_tasks(id, hs))) {
			idd_holders_free(hs);
			return err;
		}
		id->holders = hs;
	}
	ino->holders_known = true;
	if (hs->stopped &&
	    (err = idd_note_incomplete(ino, INODEDUMP_PART_HOLDERS, "holders",
				       false, 0, "%s",
				       inodedump_error_message(hs->stopped))))
		return err;
	if (hs->unreadable &&
	    (err = idd_note_incomplete(ino, INODEDUMP_PART_HOLDERS, "holders",
				       false, 0, "%zu of %zu tasks could not "
				       "be read in full: what they hold is "
				       "unknown (first: %s)", hs->unreadable,
				       hs->tasks, hs->first_unreadable)))
		return err;
	for (size_t i = 0; i < hs->n; i++) {
		struct idd_holder *grown;

		if (hs->v[i].inode != ino->address)
			continue;
		grown = realloc(ino->holders, (ino->nholders + 1) * sizeof(*grown));
		if (!grown)
			return idd_nomem();
		ino->holders = grown;
		ino->holders[ino->nholders++] = hs->v[i].h;
		if ((err = name_file(id, hs,
				     &ino->holders[ino->nholders - 1])))
			return err;
	}
	return NULL;
}

void idd_holders_free(struct idd_holders *hs)
{
	if (!hs)
		return;
	free(hs->v);
	inodedump_error_free(hs->stopped);
	free(hs->first_unreadable);
	free(hs);
}
