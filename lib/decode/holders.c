// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Holders: the tasks that have an inode open (their fd tables), or as their
 * cwd or root. One walk of the task list serves every inode of a run; the
 * walk is bounded and a corrupt list ends it with a note.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "decode/inode.h"

#define MAX_TASKS (1 << 16)
#define MAX_FDS (1 << 16)

struct holder_layout {
	struct idd_struct task, files, fdt, file, fs;
	struct idd_member tasks, pid, comm, files_ptr, fs_ptr, fdt_ptr, max_fds,
		fd, f_inode, pwd_dentry, root_dentry, d_inode, list_next;
	bool ok;
};

struct held {
	uint64_t inode;
	struct idd_holder h;
};

struct idd_holders {
	struct held *v;
	size_t n, cap;
	char *error; /* why the walk stopped early */
};

static bool layout(struct inodedump *id, struct holder_layout *l)
{
	struct idd_types *t = id->types;
	struct idd_struct dentry;

	memset(l, 0, sizeof(*l));
	if (idd_types_struct(t, "task_struct", &l->task) ||
	    idd_types_struct(t, "file", &l->file) ||
	    idd_types_struct(t, "dentry", &dentry))
		return false;
	idd_types_member(t, &l->task, "tasks", &l->tasks);
	idd_types_member(t, &l->task, "tasks.next", &l->list_next);
	idd_types_member(t, &l->task, "pid", &l->pid);
	idd_types_member(t, &l->task, "comm", &l->comm);
	idd_types_member(t, &l->task, "files", &l->files_ptr);
	idd_types_member(t, &l->task, "fs", &l->fs_ptr);
	idd_types_member(t, &l->file, "f_inode", &l->f_inode);
	idd_types_member(t, &dentry, "d_inode", &l->d_inode);
	if (!l->tasks.present || !l->files_ptr.present || !l->fs_ptr.present ||
	    idd_types_pointee_struct(t, &l->files_ptr, &l->files) ||
	    idd_types_pointee_struct(t, &l->fs_ptr, &l->fs))
		return false;
	idd_types_member(t, &l->files, "fdt", &l->fdt_ptr);
	if (!l->fdt_ptr.present ||
	    idd_types_pointee_struct(t, &l->fdt_ptr, &l->fdt))
		return false;
	idd_types_member(t, &l->fdt, "max_fds", &l->max_fds);
	idd_types_member(t, &l->fdt, "fd", &l->fd);
	idd_types_member(t, &l->fs, "pwd.dentry", &l->pwd_dentry);
	idd_types_member(t, &l->fs, "root.dentry", &l->root_dentry);
	l->ok = l->list_next.present && l->pid.present && l->comm.present &&
		l->max_fds.present && l->fd.present && l->f_inode.present &&
		l->pwd_dentry.present && l->root_dentry.present &&
		l->d_inode.present;
	return l->ok;
}

static struct inodedump_error *rd(struct inodedump *id, uint64_t addr,
				  const struct idd_member *m, uint64_t *out)
{
	uint8_t buf[8];
	struct idd_member rel = *m;
	struct inodedump_error *err;

	if (rel.size > 8)
		rel.size = 8;
	err = idd_target_read(id->target, addr + m->offset, buf, rel.size);
	rel.offset = 0;
	if (!err)
		*out = idd_member_uval(&rel, buf);
	return err;
}

#define MAX_HELD (1u << 20)

static void add(struct idd_holders *hs, uint64_t inode, const char *kind,
		uint64_t pid, const char *comm, int64_t fd)
{
	if (hs->n == hs->cap) {
		size_t cap = hs->cap ? 2 * hs->cap : 64;
		struct held *grown;

		if (hs->n >= MAX_HELD)
			return;
		grown = realloc(hs->v, cap * sizeof(*grown));
		if (!grown)
			return;
		hs->v = grown;
		hs->cap = cap;
	}
	struct held *e = &hs->v[hs->n++];

	e->inode = inode;
	e->h.kind = kind;
	e->h.pid = pid;
	e->h.fd = fd;
	snprintf(e->h.comm, sizeof(e->h.comm), "%s", comm);
}

/* A read whose failure only means "not this one". */
static bool rd_ok(struct inodedump *id, uint64_t addr,
		  const struct idd_member *m, uint64_t *out)
{
	struct inodedump_error *err = rd(id, addr, m, out);

	inodedump_error_free(err);
	return err == NULL;
}

static struct inodedump_error *task_holds(struct inodedump *id,
					  const struct holder_layout *l,
					  uint64_t task, struct idd_holders *hs)
{
	uint64_t pid, files, fs, fdt, max_fds, fd_array, dentry, inode;
	char comm[16] = "";
	struct inodedump_error *err;
	uint64_t *fds;

	if ((err = rd(id, task, &l->pid, &pid)) ||
	    (err = rd(id, task, &l->files_ptr, &files)) ||
	    (err = rd(id, task, &l->fs_ptr, &fs)) ||
	    (err = idd_target_read(id->target, task + l->comm.offset, comm,
				   l->comm.size < sizeof(comm) ? l->comm.size
							       : sizeof(comm) - 1)))
		return err;
	if (fs) {
		if (rd_ok(id, fs, &l->pwd_dentry, &dentry) && dentry &&
		    rd_ok(id, dentry, &l->d_inode, &inode))
			add(hs, inode, "cwd", pid, comm, -1);
		if (rd_ok(id, fs, &l->root_dentry, &dentry) && dentry &&
		    rd_ok(id, dentry, &l->d_inode, &inode))
			add(hs, inode, "root", pid, comm, -1);
	}
	if (!files)
		return NULL; /* a kernel thread */
	if ((err = rd(id, files, &l->fdt_ptr, &fdt)) ||
	    (err = rd(id, fdt, &l->max_fds, &max_fds)) ||
	    (err = rd(id, fdt, &l->fd, &fd_array)))
		return err;
	if (max_fds > MAX_FDS)
		max_fds = MAX_FDS;
	fds = calloc(max_fds ? max_fds : 1, sizeof(*fds));
	if (!fds)
		return idd_nomem();
	err = idd_target_read(id->target, fd_array, fds, max_fds * 8);
	for (uint64_t i = 0; !err && i < max_fds; i++) {
		if (!fds[i])
			continue;
		if (rd_ok(id, fds[i], &l->f_inode, &inode))
			add(hs, inode, "fd", pid, comm, (int64_t)i);
	}
	free(fds);
	return err;
}

static void walk(struct inodedump *id, struct idd_holders *hs)
{
	struct holder_layout l;
	uint64_t init_task, head, node;
	struct inodedump_error *err = NULL;
	size_t count = 0;

	if (!layout(id, &l)) {
		hs->error = strdup("this kernel's task/file types lack a member "
				   "the holder walk needs");
		return;
	}
	if (!idd_symbols_address(id->syms, "init_task", &init_task)) {
		hs->error = strdup("no symbol init_task in vmlinux");
		return;
	}
	struct idd_member next = { .present = true, .size = 8,
				   .offset = l.list_next.offset - l.tasks.offset };

	head = init_task + l.tasks.offset;
	err = rd(id, head, &next, &node);
	struct idd_visited seen = { 0 };

	while (!err && node != head) {
		uint64_t task = node - l.tasks.offset;
		struct inodedump_error *terr;

		if (idd_visit(&seen, node) || ++count > MAX_TASKS) {
			err = idd_error_at(INODEDUMP_ERR_DUMP, node,
					   "task list loops at 0x%" PRIx64
					   " without returning to init_task: "
					   "corrupt", node);
			break;
		}
		terr = task_holds(id, &l, task, hs);
		if (terr) /* one unreadable task does not end the walk */
			inodedump_error_free(terr);
		err = rd(id, node, &next, &node);
	}
	idd_visited_free(&seen);
	if (err) {
		hs->error = idd_strdup_printf("task walk stopped after %zu tasks: "
					      "%s", count,
					      inodedump_error_message(err));
		inodedump_error_free(err);
	}
}

void idd_decode_holders(struct inodedump *id, struct inodedump_inode *ino)
{
	struct idd_holders *hs = id->holders;

	if (!hs) {
		hs = id->holders = calloc(1, sizeof(*hs));
		if (!hs)
			return;
		walk(id, hs);
	}
	ino->holders_known = true;
	if (hs->error)
		idd_notes_add(&ino->errors, "holders", false, 0, "%s", hs->error);
	for (size_t i = 0; i < hs->n; i++) {
		struct idd_holder *grown;

		if (hs->v[i].inode != ino->address)
			continue;
		grown = realloc(ino->holders, (ino->nholders + 1) * sizeof(*grown));
		if (!grown)
			return;
		ino->holders = grown;
		ino->holders[ino->nholders++] = hs->v[i].h;
	}
}

void idd_holders_free(struct idd_holders *hs)
{
	if (!hs)
		return;
	free(hs->v);
	free(hs->error);
	free(hs);
}
