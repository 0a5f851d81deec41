// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * output: the decoded inode for a person. The rows of kernel/members.def
 * in their text order (seq); each row is a line of its kind, a part of the
 * line above (PAREN, INLINE), or a formatter of its own named by the row.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode/inode.h"
#include "output/output.h"


/* The printers lock the stream once (see json.c). */
#define fputc fputc_unlocked
#define fputs fputs_unlocked
#define fwrite fwrite_unlocked

/* Where the view is: a line is open until the next line starts. */
struct text {
	FILE *out;
	const struct inodedump_inode *ino;
	bool open;  /* a line is written up to its newline */
	bool paren; /* PAREN rows: a "(" is open */
};

static void line(struct text *t)
{
	if (t->open)
		fputc('\n', t->out);
	t->open = true;
}

static void label(struct text *t, const char *text)
{
	line(t);
	fprintf(t->out, "  %-12s ", text);
}

static void num_value(FILE *out, const struct idd_num *n, bool hex)
{
	switch (n->state) {
	case IDD_OK:
		if (hex)
			fprintf(out, "0x%" PRIx64, (uint64_t)n->v);
		else
			fprintf(out, "%" PRId64, n->v);
		break;
	case IDD_ABSENT:
		fputs("(this kernel has no such member)", out);
		break;
	case IDD_UNREADABLE:
		fputs("(unreadable)", out);
		break;
	case IDD_NA:
		fputs("-", out);
		break;
	}
}

static void names_value(FILE *out, char **names)
{
	if (!names || !*names)
		return;
	fputs("  ", out);
	for (char **p = names; *p; p++)
		fprintf(out, "%s%s", p == names ? "" : "|", *p);
}

static void ptr_value(FILE *out, const struct idd_ptr *p)
{
	if (p->state == IDD_ABSENT)
		fputs("(this kernel has no such member)", out);
	else if (p->state != IDD_OK)
		fputs("(unreadable)", out);
	else if (!p->addr)
		fputs("NULL", out);
	else if (p->symbol && p->symbol_note) { /* "ext4+0x1c2a0": why */
		idd_text_escape(out, p->symbol);
		fprintf(out, "  (0x%" PRIx64 ")  [", p->addr);
		idd_text_escape(out, p->symbol_note);
		fputc(']', out);
	} else if (p->symbol && p->module) {
		/* A module's names come from the dump's memory. */
		idd_text_escape(out, p->symbol);
		fputs(" [", out);
		idd_text_escape(out, p->module);
		fprintf(out, "]  (0x%" PRIx64 ")", p->addr);
	} else if (p->symbol) {
		idd_text_escape(out, p->symbol);
		fprintf(out, "  (0x%" PRIx64 ")", p->addr);
	} else if (p->symbol_error) { /* unknown, not nameless */
		fprintf(out, "0x%" PRIx64 "  (no name: ", p->addr);
		idd_text_escape(out, p->symbol_error);
		fputc(')', out);
	}
	else
		fprintf(out, "0x%" PRIx64, p->addr);
}

static void time_value(FILE *out, const struct idd_time *t)
{
	char buf[64] = "";
	time_t sec;
	struct tm tm;

	if (t->sec.state != IDD_OK) {
		fputs("(this kernel has no such member)", out);
		return;
	}
	sec = (time_t)t->sec.v;
	if (gmtime_r(&sec, &tm))
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(out, "%s.%09" PRId64 " UTC  (%" PRId64 ")", buf,
		t->nsec.state == IDD_OK ? t->nsec.v : 0, t->sec.v);
	if (t->queried)
		fputs("  queried (I_CTIME_QUERIED)", out);
}

static void dev_value(FILE *out, const struct idd_num *n)
{
	char buf[48];

	if (n->state != IDD_OK) {
		fputs("?", out);
		return;
	}
	idd_dev_string((uint64_t)n->v, buf, sizeof(buf));
	fputs(buf, out);
}

/* LINE: "  label        value" by kind. */
static void row_line(struct text *t, const struct idd_row *row)
{
	const struct inodedump_inode *ino = t->ino;
	const struct idd_num *n = IDD_ROW_CFIELD(ino, row, struct idd_num);

	label(t, row->label);
	switch (row->kind) {
	case IDD_ROW_FLAGS:
		num_value(t->out, n, true);
		names_value(t->out, *(char **const *)(const void *)(
					    (const char *)ino + row->names_offset));
		break;
	case IDD_ROW_NUM_X:
		num_value(t->out, n, true);
		break;
	case IDD_ROW_NUM_U:
	case IDD_ROW_NUM_S:
	case IDD_ROW_STRLEN:
		num_value(t->out, n, false);
		break;
	case IDD_ROW_DEV:
		dev_value(t->out, n);
		break;
	case IDD_ROW_TIME:
		time_value(t->out, IDD_ROW_CFIELD(ino, row, struct idd_time));
		break;
	case IDD_ROW_SYM:
	case IDD_ROW_ADDR:
		ptr_value(t->out, IDD_ROW_CFIELD(ino, row, struct idd_ptr));
		break;
	case IDD_ROW_STR: {
		const struct idd_str *s = IDD_ROW_CFIELD(ino, row, struct idd_str);

		/* as a number's: a "?" would pass for the string itself */
		if (s->state == IDD_UNREADABLE)
			fputs("(unreadable)", t->out);
		else
			idd_text_escape(t->out, s->state == IDD_OK ? s->s : NULL);
		break;
	}
	case IDD_ROW_VIEW:
		break;
	}
}

/* The raw value of a number or address row, whatever its state. */
static void raw_value(struct text *t, const struct idd_row *row)
{
	const struct inodedump_inode *ino = t->ino;

	switch (row->kind) {
	case IDD_ROW_SYM:
	case IDD_ROW_ADDR:
		fprintf(t->out, "0x%" PRIx64,
			IDD_ROW_CFIELD(ino, row, struct idd_ptr)->addr);
		break;
	case IDD_ROW_NUM_X:
	case IDD_ROW_FLAGS:
		fprintf(t->out, "0x%" PRIx64,
			(uint64_t)IDD_ROW_CFIELD(ino, row, struct idd_num)->v);
		break;
	case IDD_ROW_NUM_U:
	case IDD_ROW_NUM_S:
	case IDD_ROW_STRLEN:
		fprintf(t->out, "%" PRId64,
			IDD_ROW_CFIELD(ino, row, struct idd_num)->v);
		break;
	case IDD_ROW_DEV:
		dev_value(t->out, IDD_ROW_CFIELD(ino, row, struct idd_num));
		break;
	case IDD_ROW_STR: {
		const struct idd_str *s = IDD_ROW_CFIELD(ino, row, struct idd_str);

		if (s->state == IDD_UNREADABLE)
			fputs("(unreadable)", t->out);
		else
			idd_text_escape(t->out, s->s);
		break;
	}
	default:
		break;
	}
}

/* ---- the rows with a formatter of their own ---- */

static void text_header(struct text *t, const struct idd_row *row)
{
	const struct inodedump_inode *ino = t->ino;

	line(t);
	fprintf(t->out, "%s 0x%" PRIx64 "  %s  ino %" PRIu64 "  on ",
		row->label, ino->address,
		idd_mode_type_name((unsigned)ino->mode.v), (uint64_t)ino->ino.v);
	if (ino->fs_type.state == IDD_UNREADABLE && ino->fs_inferred) {
		idd_text_escape(t->out, ino->fs_inferred);
		fputs("? (inferred from ", t->out);
		idd_text_escape(t->out, ino->fs_inferred_from);
		fputs(": its superblock is not in the dump)", t->out);
		return;
	}
	if (ino->fs_type.state == IDD_UNREADABLE)
		fputs("(unreadable)", t->out);
	else
		idd_text_escape(t->out, ino->fs_type.s);
	fputs(" (", t->out);
	idd_text_escape(t->out, ino->s_id.s);
	fputc(')', t->out);
	/* btrfs: inode numbers repeat across subvolumes; which one, here */
	for (size_t i = 0; i < ino->fs.n; i++)
		if (!strcmp(ino->fs.v[i].row->key, "subvolume") &&
		    ino->fs.v[i].state == IDD_OK)
			fprintf(t->out, "  subvolume %" PRIu64, ino->fs.v[i].v);
}

/*
 * A namespace said compactly, after a path or a holder: "[mnt:N pid P
 * comm]"; nothing for the initial namespace (init_task's) or one whose
 * number could not be read, so a dump with one namespace reads as before.
 */
static void text_ns(struct text *t, const struct idd_ns_info *ns, bool covered)
{
	switch (ns->where) {
	case IDD_PATH_NS:
		if ((ns->initial || !ns->inum) && !covered)
			return;
		fputs("  [", t->out);
		if (!ns->initial && ns->inum) {
			fprintf(t->out, "mnt:%" PRIu64, ns->inum);
			if (ns->has_task) {
				fprintf(t->out, " pid %" PRIu64 " ", ns->pid);
				idd_text_escape(t->out, ns->comm);
			} else if (ns->walk_cut) {
				fputs(", its task unknown: the task walk was "
				      "cut short", t->out);
			} else if (ns->no_walk) {
				fputs(", its task unknown: no task walk (no "
				      "symbol init_task)", t->out);
			} else {
				fputs(", no task in it", t->out);
			}
		}
		if (covered)
			fprintf(t->out, "%scovered by a mount: no lookup there "
				"reaches it", !ns->initial && ns->inum ? "; " : "");
		fputc(']', t->out);
		return;
	case IDD_PATH_INTERNAL:
		fputs("  [in no namespace: a kernel-internal mount "
		      "(an overlayfs layer's private clone, a kern_mount)]",
		      t->out);
		return;
	case IDD_PATH_DETACHED:
		fputs("  [in no namespace: a kernel-private mount "
		      "(vfs_kern_mount), or one detached or lazily unmounted]",
		      t->out);
		return;
	case IDD_PATH_ANON:
		fputs("  [in no namespace: an anonymous mount tree "
		      "(open_tree, fsmount) not attached]", t->out);
		return;
	default:
		return;
	}
}

#define TEXT_MAX_PATHS 8

static void text_paths(struct text *t, const struct idd_row *row)
{
	const struct inodedump_inode *ino = t->ino;
	bool cut = ino->incomplete.parts & INODEDUMP_PART_PATHS;
	const char *none = NULL; /* why no path a user can open is shown */
	size_t shown = 0;

	/* a dentry or mount not in the dump: never shown as whole */
	if (!ino->npaths && cut)
		none = "(not read: the walk was cut short, see \"unreadable\" "
		       "below)";
	else if (!ino->npaths && ino->npath_rows)
		none = "(no name in any mount namespace)";
	else if (!ino->npaths && ino->paths_known)
		none = "(no name: no dentry alias in memory)";
	if (none) {
		label(t, row->label);
		fputs(none, t->out);
	}
	/* The paths a user can open first, then those through no namespace. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < ino->npath_rows; i++) {
			const struct idd_path *p = &ino->path_rows[i];
			bool user = !p->covered && (p->ns.where == IDD_PATH_NS ||
						    p->ns.where == IDD_PATH_PSEUDO);

			if (user != !pass || shown++ >= TEXT_MAX_PATHS)
				continue;
			label(t, shown > 1 || none ? "" : row->label);
			idd_text_escape(t->out, p->path);
			text_ns(t, &p->ns, p->covered);
		}
	if (shown > TEXT_MAX_PATHS) {
		label(t, "");
		fprintf(t->out, "(%zu more names)", shown - TEXT_MAX_PATHS);
	}
	if (cut && ino->npaths) {
		label(t, "");
		fputs("(maybe more: the walk was cut short, see \"unreadable\" "
		      "below)", t->out);
	}
}

static void text_holders(struct text *t, const struct idd_row *row)
{
	const struct inodedump_inode *ino = t->ino;

	for (size_t i = 0; i < ino->nholders; i++) {
		const struct idd_holder *h = &ino->holders[i];

		label(t, i ? "" : row->label);
		fprintf(t->out, "pid %" PRIu64 " (", h->pid);
		idd_text_escape(t->out, h->comm);
		fputs(") ", t->out);
		if (h->fd >= 0 && h->file_refs >= 0)
			fprintf(t->out, "fd %" PRId64 " (file refs %" PRId64 ")",
				h->fd, h->file_refs);
		else if (h->fd >= 0)
			fprintf(t->out, "fd %" PRId64, h->fd);
		else
			fputs("as its ", t->out), idd_text_escape(t->out, h->kind);
		if (h->f_op[0])
			fputs("  ", t->out), idd_text_escape(t->out, h->f_op);
		if (h->ns.where == IDD_PATH_NS && !h->ns.initial && h->ns.inum)
			fprintf(t->out, "  [mnt:%" PRIu64 "]", h->ns.inum);
	}
	if (ino->holders_known && !ino->nholders) {
		label(t, row->label);
		fputs("no task has it open", t->out);
	}
}

static void text_forced(struct text *t)
{
	if (!t->ino->forced)
		return;
	line(t);
	fputs("  WARNING: decoded with --force; this may not be an inode: ",
	      t->out);
	idd_text_escape(t->out, t->ino->not_inode_reason);
}

static void text_slab(struct text *t, const struct idd_row *row)
{
	const struct inodedump_inode *ino = t->ino;

	if (!ino->slab.known)
		return;
	label(t, row->label);
	if (ino->slab.state == INODEDUMP_SLAB_FREE)
		fputs("FREED: ", t->out);
	if (ino->slab.cache)
		idd_text_escape(t->out, ino->slab.cache);
	else
		fputs("(cache name unread)", t->out);
	fprintf(t->out, " object 0x%" PRIx64 " + 0x%" PRIx64, ino->slab.object,
		ino->slab.offset);
	if (ino->slab.type)
		fprintf(t->out, " (struct %s)", ino->slab.type);
	switch (ino->slab.state) {
	case INODEDUMP_SLAB_ALLOCATED:
		fputs(", allocated", t->out);
		break;
	case INODEDUMP_SLAB_FREE:
		fputs(", free (", t->out);
		idd_text_escape(t->out, ino->slab.where);
		fputs("): this inode was freed; what follows is what the "
		      "freed memory holds", t->out);
		break;
	default:
		fputs(", allocated or free: not known", t->out);
		break;
	}
	if (ino->slab.unread) {
		label(t, "");
		fputs("(unread: ", t->out);
		idd_text_escape(t->out, ino->slab.unread);
		fputc(')', t->out);
	}
}

static void text_mode(struct text *t, const struct idd_row *row)
{
	unsigned mode = (unsigned)t->ino->mode.v;
	char perms[11];

	idd_mode_string(mode, perms);
	label(t, row->label);
	fprintf(t->out, "0%o  %s  %s", mode, perms, idd_mode_type_name(mode));
}

static void text_link(struct text *t, const struct idd_row *row)
{
	const struct inodedump_inode *ino = t->ino;

	if (ino->i_link.state != IDD_OK)
		return;
	label(t, row->label);
	if (!ino->i_link.addr)
		fputs("NULL", t->out);
	else if (ino->link.state == IDD_OK)
	{
		fprintf(t->out, "0x%" PRIx64 "  \"", ino->i_link.addr);
		idd_text_escape(t->out, ino->link.s);
		fprintf(t->out, "\"%s  (strlen %" PRId64 ")",
			ino->link.truncated ? "..." : "", ino->link_strlen.v);
	}
	else
		fprintf(t->out, "0x%" PRIx64 "  (unreadable)", ino->i_link.addr);
}

static void text_mapping(struct text *t, const struct idd_row *row)
{
	const struct idd_ptr *p = IDD_ROW_CFIELD(t->ino, row, struct idd_ptr);

	label(t, row->label);
	if (p->state == IDD_OK)
		fprintf(t->out, "0x%" PRIx64 "%s", p->addr,
			t->ino->mapping_is_i_data ? "  (&i_data)" : "");
	else
		fputs("(unreadable)", t->out);
}

static void text_violations(struct text *t)
{
	const struct idd_notes *v = &t->ino->violations;

	line(t);
	if (!v->n) {
		fputs("  no violation found", t->out);
		return;
	}
	fprintf(t->out, "  VIOLATIONS (%zu)", v->n);
	for (size_t i = 0; i < v->n; i++) {
		line(t);
		fprintf(t->out, "    %s: ", v->v[i].name);
		idd_text_escape(t->out, v->v[i].message);
	}
}

static void text_skipped(struct text *t)
{
	const struct inodedump_inode *ino = t->ino;

	for (size_t i = 0; i < ino->skipped.n; i++) {
		/* Only where it matters to a person: the link check on links. */
		if (!strcmp(ino->skipped.v[i].name, "cached_link_length") &&
		    ino->i_link.state == IDD_NA)
			continue;
		line(t);
		fprintf(t->out, "  check %s skipped: ", ino->skipped.v[i].name);
		idd_text_escape(t->out, ino->skipped.v[i].message);
	}
}

static void text_errors(struct text *t)
{
	const struct idd_notes *e = &t->ino->errors;

	for (size_t i = 0; i < e->n; i++) {
		line(t);
		fprintf(t->out, "  unreadable %s: ", e->v[i].name);
		idd_text_escape(t->out, e->v[i].message);
	}
}

static void text_row(struct text *t, const struct idd_row *row)
{
	bool paren = row->text == IDD_TEXT_PAREN;

	if (t->paren && !paren) {
		fputc(')', t->out);
		t->paren = false;
	}
	if (row->text != IDD_TEXT_NONE && !idd_row_applies(row, t->ino))
		return;
	switch (row->text) {
	case IDD_TEXT_NONE:
		break;
	case IDD_TEXT_LINE:
		row_line(t, row);
		break;
	case IDD_TEXT_PRESENT: {
		const enum idd_presence *st = idd_row_state(t->ino, row);

		if (!st || *st != IDD_ABSENT)
			row_line(t, row);
		break;
	}
	case IDD_TEXT_PAREN:
		fputs(t->paren ? ", " : "  (", t->out);
		t->paren = true;
		fprintf(t->out, "%s ", row->label);
		raw_value(t, row);
		break;
	case IDD_TEXT_INLINE: {
		const enum idd_presence *st = idd_row_state(t->ino, row);

		fprintf(t->out, "  %s%s", row->label, *row->label ? " " : "");
		if (st && *st == IDD_UNREADABLE)
			fputs("(unreadable)", t->out); /* its struct was not read */
		else
			raw_value(t, row);
		break;
	}
	case IDD_TEXT_RAW:
		label(t, row->label);
		raw_value(t, row);
		break;
	case IDD_TEXT_HEADER:
		text_header(t, row);
		break;
	case IDD_TEXT_PATHS:
		text_paths(t, row);
		break;
	case IDD_TEXT_HOLDERS:
		text_holders(t, row);
		break;
	case IDD_TEXT_FORCED:
		text_forced(t);
		break;
	case IDD_TEXT_SLAB:
		text_slab(t, row);
		break;
	case IDD_TEXT_MODE:
		text_mode(t, row);
		break;
	case IDD_TEXT_LINK:
		text_link(t, row);
		break;
	case IDD_TEXT_MAPPING:
		text_mapping(t, row);
		break;
	case IDD_TEXT_FS:
		if (t->open)
			fputc('\n', t->out);
		t->open = false;
		idd_text_fs(t->out, t->ino);
		break;
	case IDD_TEXT_VIOLATIONS:
		text_violations(t);
		break;
	case IDD_TEXT_SKIPPED:
		text_skipped(t);
		break;
	case IDD_TEXT_ERRORS:
		text_errors(t);
		break;
	}
}

/* The rows in text order: by seq, table order among equals. */
static void text_order(size_t order[IDD_NROWS], size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < IDD_NROWS; i++) {
		size_t k;

		if (idd_rows[i].text == IDD_TEXT_NONE)
			continue;
		for (k = (*n)++; k > 0 && idd_rows[order[k - 1]].text_seq >
						    idd_rows[i].text_seq;
		     k--)
			order[k] = order[k - 1];
		order[k] = i;
	}
}

void inodedump_inode_print_text(const struct inodedump_inode *ino, FILE *out)
{
	struct text t = { .out = out, .ino = ino };
	size_t order[IDD_NROWS], n;

	text_order(order, &n);
	flockfile(out);
	for (size_t i = 0; i < n; i++)
		text_row(&t, &idd_rows[order[i]]);
	if (t.paren)
		fputc(')', out);
	if (t.open)
		fputc('\n', out);
	funlockfile(out);
}
