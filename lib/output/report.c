// SPDX-License-Identifier: LGPL-2.1-or-later
/* Output: the decoded inode for a person (text) and for programs (JSON). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode/inode.h"

#define MINORBITS 20 /* the kernel's internal dev_t: 12 bits major, 20 minor */

/*
 * The public printers below take the stream's lock once (flockfile) and
 * write without taking it per call: a sweep writes ~60 small pieces per
 * inode, and the per-call locking cost more than the decode.
 */
#define fputc fputc_unlocked
#define fputs fputs_unlocked
#define fwrite fwrite_unlocked

/* Decimal without printf's machinery (the sweep's hot path). */
static void put_u64(FILE *out, uint64_t v)
{
	char buf[24];
	char *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), out);
}

static void put_i64(FILE *out, int64_t v)
{
	if (v < 0) {
		fputc('-', out);
		put_u64(out, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(out, (uint64_t)v);
	}
}

/* ---------------------------------------------------------------- JSON -- */

static void json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;

	fputc('"', out);
	for (;; p++) {
		unsigned c = *p;

		/* Runs of plain characters go out in one write. */
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			continue;
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), out);
		if (!c)
			break;
		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc((int)c, out);
		} else if (c == '\n') {
			fputs("\\n", out);
		} else {
			/* Bytes from memory are not UTF-8: keep them exact. */
			fprintf(out, "\\u%04x", c);
		}
		run = p + 1;
	}
	fputc('"', out);
}

/* Where the writer is in an object, and whether it writes one line. */
struct json_ctx {
	bool first;
	bool compact;
};

/* Keys are this file's own literals: nothing in them to escape. */
static void json_key(FILE *out, struct json_ctx *first, const char *key)
{
	if (first->compact)
		fputs(first->first ? "\"" : ", \"", out);
	else
		fputs(first->first ? "\n    \"" : ",\n    \"", out);
	first->first = false;
	fputs(key, out);
	fputs("\": ", out);
}

static void json_num(FILE *out, struct json_ctx *first, const char *key,
		     const struct idd_num *n, bool is_signed)
{
	json_key(out, first, key);
	if (n->state != IDD_OK)
		fputs("null", out);
	else if (is_signed)
		put_i64(out, n->v);
	else
		put_u64(out, (uint64_t)n->v);
}

static void json_hex(FILE *out, uint64_t v)
{
	char buf[24];
	char *p = buf + sizeof(buf);

	*--p = '"';
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	*--p = '"';
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), out);
}

static void json_ptr_symbol(FILE *out, struct json_ctx *first, const char *key,
			    const struct idd_ptr *p)
{
	json_key(out, first, key);
	if (p->state != IDD_OK || !p->addr)
		fputs("null", out);
	else if (p->symbol)
		json_string(out, p->symbol);
	else
		json_hex(out, p->addr);
}

static void json_addr(FILE *out, struct json_ctx *first, const char *key,
		      const struct idd_ptr *p)
{
	json_key(out, first, key);
	if (p->state != IDD_OK)
		fputs("null", out);
	else
		json_hex(out, p->addr);
}

static void json_str(FILE *out, struct json_ctx *first, const char *key,
		     const struct idd_str *s)
{
	json_key(out, first, key);
	if (s->state != IDD_OK || !s->s)
		fputs("null", out);
	else
		json_string(out, s->s);
}

static void json_names(FILE *out, struct json_ctx *first, const char *key, char **names)
{
	json_key(out, first, key);
	if (!names) {
		fputs("null", out);
		return;
	}
	fputc('[', out);
	for (char **p = names; *p; p++) {
		if (p != names)
			fputs(", ", out);
		json_string(out, *p);
	}
	fputc(']', out);
}

static void json_notes(FILE *out, struct json_ctx *first, const char *key,
		       const struct idd_notes *notes, const char *name_key,
		       const char *msg_key)
{
	json_key(out, first, key);
	fputc('[', out);
	for (size_t i = 0; i < notes->n; i++) {
		const struct idd_note *n = &notes->v[i];

		fputs(i ? ", {" : "{", out);
		json_string(out, name_key);
		fputs(": ", out);
		json_string(out, n->name ? n->name : "");
		fputs(", ", out);
		json_string(out, msg_key);
		fputs(": ", out);
		json_string(out, n->message ? n->message : "");
		if (n->has_address) {
			fputs(", \"address\": ", out);
			json_hex(out, n->address);
		}
		fputc('}', out);
	}
	fputc(']', out);
}

static void json_time(FILE *out, struct json_ctx *first, const char *key,
		      const struct idd_time *t)
{
	json_key(out, first, key);
	if (t->sec.state != IDD_OK) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"sec\": %" PRId64 ", \"nsec\": ", t->sec.v);
	if (t->nsec.state == IDD_OK)
		fprintf(out, "%" PRId64 "}", t->nsec.v);
	else
		fputs("null}", out);
}

static void json_dev(FILE *out, struct json_ctx *first, const char *key,
		     const struct idd_num *n)
{
	json_key(out, first, key);
	if (n->state != IDD_OK)
		fputs("null", out);
	else
		fprintf(out, "\"%" PRIu64 ":%" PRIu64 "\"",
			(uint64_t)n->v >> MINORBITS,
			(uint64_t)n->v & ((1u << MINORBITS) - 1));
}

static void print_json(const struct inodedump_inode *ino, FILE *out,
		       bool compact)
{
	struct json_ctx first = { true, compact };
	unsigned mode = (unsigned)ino->mode.v;

	fputc('{', out);
	json_key(out, &first, "address");
	json_hex(out, ino->address);
	json_key(out, &first, "forced");
	fputs(ino->forced ? "true" : "false", out);
	json_key(out, &first, "not_inode_reason");
	if (ino->not_inode_reason)
		json_string(out, ino->not_inode_reason);
	else
		fputs("null", out);
	json_names(out, &first, "paths", ino->paths_known
			  ? (ino->paths ? ino->paths : (char *[]){ NULL }) : NULL);
	json_key(out, &first, "holders");
	if (!ino->holders_known) {
		fputs("null", out);
	} else {
		fputc('[', out);
		for (size_t i = 0; i < ino->nholders; i++) {
			const struct idd_holder *h = &ino->holders[i];

			fprintf(out, "%s{\"pid\": %" PRIu64 ", \"comm\": ",
				i ? ", " : "", h->pid);
			json_string(out, h->comm);
			fprintf(out, ", \"kind\": \"%s\", \"fd\": ", h->kind);
			if (h->fd >= 0)
				fprintf(out, "%" PRId64 "}", h->fd);
			else
				fputs("null}", out);
		}
		fputc(']', out);
	}
	json_key(out, &first, "unlinked");
	fputs(ino->unlinked_alias || (ino->nlink.state == IDD_OK && !ino->nlink.v)
		      ? "true" : "false", out);
	json_key(out, &first, "type");
	json_string(out, idd_mode_type_name(mode));
	json_num(out, &first, "mode", &ino->mode, false);
	json_key(out, &first, "mode_string");
	{
		char s[11];

		idd_mode_string(mode, s);
		json_string(out, s);
	}
	json_num(out, &first, "ino", &ino->ino, false);
	json_num(out, &first, "generation", &ino->generation, false);
	json_num(out, &first, "opflags", &ino->opflags, false);
	json_names(out, &first, "opflags_names", ino->opflags_names);
	json_num(out, &first, "flags", &ino->flags, false);
	json_names(out, &first, "flags_names", ino->flags_names);
	json_num(out, &first, "state", &ino->state, false);
	json_names(out, &first, "state_names", ino->state_names);
	json_num(out, &first, "count", &ino->count, true);
	json_num(out, &first, "nlink", &ino->nlink, false);
	json_num(out, &first, "writecount", &ino->writecount, true);
	json_num(out, &first, "version", &ino->version, false);
	json_num(out, &first, "uid", &ino->uid, false);
	json_num(out, &first, "gid", &ino->gid, false);
	json_num(out, &first, "size", &ino->size, true);
	json_num(out, &first, "blocks", &ino->blocks, false);
	json_num(out, &first, "bytes", &ino->bytes, false);
	json_num(out, &first, "blkbits", &ino->blkbits, false);
	json_dev(out, &first, "rdev", &ino->rdev);
	json_time(out, &first, "atime", &ino->atime);
	json_time(out, &first, "mtime", &ino->mtime);
	json_time(out, &first, "ctime", &ino->ctime);
	json_addr(out, &first, "i_link_address", &ino->i_link);
	json_str(out, &first, "link", &ino->link);
	json_num(out, &first, "link_strlen", &ino->link_strlen, false);
	json_num(out, &first, "linklen", &ino->linklen, true);
	json_addr(out, &first, "i_pipe", &ino->i_pipe);
	json_addr(out, &first, "i_cdev", &ino->i_cdev);
	json_num(out, &first, "i_dir_seq", &ino->dir_seq, false);
	json_ptr_symbol(out, &first, "i_op", &ino->i_op);
	json_ptr_symbol(out, &first, "i_fop", &ino->i_fop);
	json_addr(out, &first, "i_mapping", &ino->mapping);
	json_key(out, &first, "i_mapping_is_i_data");
	fputs(ino->mapping_is_i_data ? "true" : "false", out);
	json_ptr_symbol(out, &first, "a_ops", &ino->a_ops);
	json_num(out, &first, "nrpages", &ino->nrpages, false);
	json_addr(out, &first, "sb", &ino->sb);
	json_str(out, &first, "fs_type", &ino->fs_type);
	json_str(out, &first, "s_id", &ino->s_id);
	json_dev(out, &first, "s_dev", &ino->s_dev);
	json_num(out, &first, "s_magic", &ino->s_magic, false);
	json_ptr_symbol(out, &first, "s_op", &ino->s_op);
	json_notes(out, &first, "violations", &ino->violations, "check",
		   "message");
	json_notes(out, &first, "skipped_checks", &ino->skipped, "check",
		   "reason");
	json_notes(out, &first, "errors", &ino->errors, "field", "reason");
	fputs(compact ? "}" : "\n  }", out);
}

void inodedump_inode_print_json(const struct inodedump_inode *ino, FILE *out)
{
	flockfile(out);
	print_json(ino, out, false);
	funlockfile(out);
}

void inodedump_inode_print_jsonl(const struct inodedump_inode *ino, FILE *out)
{
	flockfile(out);
	print_json(ino, out, true);
	funlockfile(out);
}

/* ---------------------------------------------------------------- text -- */

static void text_num(FILE *out, const char *label, const struct idd_num *n,
		     bool hex)
{
	fprintf(out, "  %-12s ", label);
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

static void text_names(FILE *out, char **names)
{
	if (!names || !*names)
		return;
	fputs("  ", out);
	for (char **p = names; *p; p++)
		fprintf(out, "%s%s", p == names ? "" : "|", *p);
}

static void text_ptr(FILE *out, const char *label, const struct idd_ptr *p)
{
	fprintf(out, "  %-12s ", label);
	if (p->state == IDD_ABSENT)
		fputs("(this kernel has no such member)\n", out);
	else if (p->state != IDD_OK)
		fputs("(unreadable)\n", out);
	else if (!p->addr)
		fputs("NULL\n", out);
	else if (p->symbol && p->module)
		fprintf(out, "%s [%s]  (0x%" PRIx64 ")\n", p->symbol, p->module,
			p->addr);
	else if (p->symbol)
		fprintf(out, "%s  (0x%" PRIx64 ")\n", p->symbol, p->addr);
	else
		fprintf(out, "0x%" PRIx64 "\n", p->addr);
}

static void text_time(FILE *out, const char *label, const struct idd_time *t)
{
	char buf[64] = "";
	time_t sec;
	struct tm tm;

	fprintf(out, "  %-12s ", label);
	if (t->sec.state != IDD_OK) {
		fputs("(this kernel has no such member)\n", out);
		return;
	}
	sec = (time_t)t->sec.v;
	if (gmtime_r(&sec, &tm))
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(out, "%s.%09" PRId64 " UTC  (%" PRId64 ")\n", buf,
		t->nsec.state == IDD_OK ? t->nsec.v : 0, t->sec.v);
}

static void text_dev(FILE *out, const struct idd_num *n)
{
	if (n->state == IDD_OK)
		fprintf(out, "%" PRIu64 ":%" PRIu64, (uint64_t)n->v >> MINORBITS,
			(uint64_t)n->v & ((1u << MINORBITS) - 1));
	else
		fputs("?", out);
}

static void text_union(FILE *out, const struct inodedump_inode *ino)
{
	if (ino->i_link.state == IDD_OK) {
		fprintf(out, "  %-12s ", "i_link");
		if (!ino->i_link.addr)
			fputs("NULL", out);
		else if (ino->link.state == IDD_OK)
			fprintf(out, "0x%" PRIx64 "  \"%s\"%s  (strlen %" PRId64
				")",
				ino->i_link.addr, ino->link.s,
				ino->link.truncated ? "..." : "",
				ino->link_strlen.v);
		else
			fprintf(out, "0x%" PRIx64 "  (unreadable)",
				ino->i_link.addr);
		fputc('\n', out);
	}
	if (ino->i_link.state != IDD_NA) { /* symlinks only */
		text_num(out, "i_linklen", &ino->linklen, false);
		fputc('\n', out);
	}
	if (ino->i_pipe.state == IDD_OK)
		text_ptr(out, "i_pipe", &ino->i_pipe);
	if (ino->i_cdev.state == IDD_OK)
		text_ptr(out, "i_cdev", &ino->i_cdev);
	if (ino->dir_seq.state == IDD_OK) {
		text_num(out, "i_dir_seq", &ino->dir_seq, false);
		fputc('\n', out);
	}
}

static void print_text(const struct inodedump_inode *ino, FILE *out)
{
	unsigned mode = (unsigned)ino->mode.v;
	char perms[11];

	idd_mode_string(mode, perms);
	fprintf(out, "inode 0x%" PRIx64 "  %s  ino %" PRIu64 "  on %s (%s)\n",
		ino->address, idd_mode_type_name(mode), (uint64_t)ino->ino.v,
		ino->fs_type.s ? ino->fs_type.s : "?",
		ino->s_id.s ? ino->s_id.s : "?");
	if (ino->npaths)
		fprintf(out, "  %-12s %s%s\n", "path", ino->paths[0],
			ino->npaths > 1 ? "" : "");
	for (size_t i = 1; i < ino->npaths && i < 4; i++)
		fprintf(out, "  %-12s %s\n", "", ino->paths[i]);
	if (ino->npaths > 4)
		fprintf(out, "  %-12s (%zu more names)\n", "", ino->npaths - 4);
	if (ino->paths_known && !ino->npaths)
		fprintf(out, "  %-12s (no name: no dentry alias in memory)\n",
			"path");
	for (size_t i = 0; i < ino->nholders; i++) {
		const struct idd_holder *h = &ino->holders[i];

		fprintf(out, "  %-12s pid %" PRIu64 " (%s) ", i ? "" : "held by",
			h->pid, h->comm);
		if (h->fd >= 0)
			fprintf(out, "fd %" PRId64 "\n", h->fd);
		else
			fprintf(out, "as its %s\n", h->kind);
	}
	if (ino->holders_known && !ino->nholders)
		fprintf(out, "  %-12s no task has it open\n", "held by");
	if (ino->forced)
		fprintf(out, "  WARNING: decoded with --force; this may not be "
			     "an inode: %s\n", ino->not_inode_reason);
	fprintf(out, "  %-12s 0%o  %s  %s\n", "i_mode", mode, perms,
		idd_mode_type_name(mode));
	text_num(out, "i_opflags", &ino->opflags, true);
	text_names(out, ino->opflags_names);
	fputc('\n', out);
	text_num(out, "i_flags", &ino->flags, true);
	text_names(out, ino->flags_names);
	fputc('\n', out);
	text_num(out, "i_state", &ino->state, true);
	text_names(out, ino->state_names);
	fputc('\n', out);
	text_num(out, "i_count", &ino->count, false);
	fputc('\n', out);
	text_num(out, "i_nlink", &ino->nlink, false);
	fputc('\n', out);
	text_num(out, "i_writecount", &ino->writecount, false);
	fputc('\n', out);
	text_num(out, "i_uid", &ino->uid, false);
	fputc('\n', out);
	text_num(out, "i_gid", &ino->gid, false);
	fputc('\n', out);
	text_num(out, "i_size", &ino->size, false);
	fputc('\n', out);
	text_num(out, "i_blocks", &ino->blocks, false);
	fprintf(out, "  (i_bytes %" PRId64 ", i_blkbits %" PRId64 ")\n",
		ino->bytes.v, ino->blkbits.v);
	fprintf(out, "  %-12s ", "i_rdev");
	text_dev(out, &ino->rdev);
	fputc('\n', out);
	text_num(out, "i_generation", &ino->generation, false);
	fputc('\n', out);
	text_num(out, "i_version", &ino->version, false);
	fputc('\n', out);
	text_time(out, "atime", &ino->atime);
	text_time(out, "mtime", &ino->mtime);
	text_time(out, "ctime", &ino->ctime);
	text_union(out, ino);
	text_ptr(out, "i_op", &ino->i_op);
	text_ptr(out, "i_fop", &ino->i_fop);
	fprintf(out, "  %-12s ", "i_mapping");
	if (ino->mapping.state == IDD_OK)
		fprintf(out, "0x%" PRIx64 "%s\n", ino->mapping.addr,
			ino->mapping_is_i_data ? "  (&i_data)" : "");
	else
		fputs("(unreadable)\n", out);
	text_ptr(out, "  a_ops", &ino->a_ops);
	text_num(out, "  nrpages", &ino->nrpages, false);
	fputc('\n', out);
	fprintf(out, "  %-12s 0x%" PRIx64 "  %s  s_id %s  dev ", "i_sb",
		ino->sb.addr, ino->fs_type.s ? ino->fs_type.s : "?",
		ino->s_id.s ? ino->s_id.s : "?");
	text_dev(out, &ino->s_dev);
	fprintf(out, "  magic 0x%" PRIx64 "\n", (uint64_t)ino->s_magic.v);
	text_ptr(out, "  s_op", &ino->s_op);

	if (ino->violations.n) {
		fprintf(out, "  VIOLATIONS (%zu)\n", ino->violations.n);
		for (size_t i = 0; i < ino->violations.n; i++)
			fprintf(out, "    %s: %s\n", ino->violations.v[i].name,
				ino->violations.v[i].message);
	} else {
		fputs("  no violation found\n", out);
	}
	for (size_t i = 0; i < ino->skipped.n; i++) {
		/* Only where it matters to a person: the link check on links. */
		if (!strcmp(ino->skipped.v[i].name, "cached_link_length") &&
		    ino->i_link.state == IDD_NA)
			continue;
		fprintf(out, "  check %s skipped: %s\n", ino->skipped.v[i].name,
			ino->skipped.v[i].message);
	}
	for (size_t i = 0; i < ino->errors.n; i++)
		fprintf(out, "  unreadable %s: %s\n", ino->errors.v[i].name,
			ino->errors.v[i].message);
}

void inodedump_inode_print_text(const struct inodedump_inode *ino, FILE *out)
{
	flockfile(out);
	print_text(ino, out);
	funlockfile(out);
}
