// SPDX-License-Identifier: LGPL-2.1-or-later
/* output: the INODE object (README.md's schema), a loop over the rows. */
#include <inttypes.h>
#include <stdatomic.h>
#include <string.h>

#include "decode/inode.h"
#include "output/json.h"
#include "output/output.h"

/* idd_dev_string()'s "MAJOR:MINOR" without printf (two rows an inode). */
static char *put_dec(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

static const char *dev_string(uint64_t dev, char buf[48])
{
	char *p = put_dec(buf + 47, dev & ((1u << 20) - 1));

	buf[47] = 0;
	*--p = ':';
	return put_dec(p, dev >> 20);
}

/* The slab object holding the inode, or null (not asked, or no slab). */
static void json_slab(struct idd_json *j, const struct inodedump_inode *ino)
{
	static const char *const states[] = { "allocated", "free", "unknown" };

	if (!ino->slab.known) {
		idd_json_null(j);
		return;
	}
	idd_json_object(j, IDD_JSON_INLINE);
	idd_json_key(j, "cache");
	idd_json_string(j, ino->slab.cache);
	idd_json_key(j, "object");
	idd_json_hex(j, ino->slab.object);
	idd_json_key(j, "offset");
	idd_json_u64(j, ino->slab.offset);
	idd_json_key(j, "type");
	idd_json_string(j, ino->slab.type);
	idd_json_key(j, "state");
	idd_json_string(j, states[ino->slab.state]);
	idd_json_key(j, "free_where");
	idd_json_string(j, ino->slab.where);
	idd_json_key(j, "unread");
	idd_json_string(j, ino->slab.unread);
	idd_json_end(j);
}

static void json_names(struct idd_json *j, char *const *names)
{
	if (!names) {
		idd_json_null(j);
		return;
	}
	idd_json_array(j, IDD_JSON_INLINE);
	for (char *const *p = names; *p; p++)
		idd_json_string(j, *p);
	idd_json_end(j);
}

static void json_notes(struct idd_json *j, const struct idd_notes *notes,
		       const char *name_key, const char *msg_key)
{
	idd_json_array(j, IDD_JSON_INLINE);
	for (size_t i = 0; i < notes->n; i++) {
		const struct idd_note *n = &notes->v[i];

		idd_json_object(j, IDD_JSON_INLINE);
		idd_json_key(j, name_key);
		idd_json_string(j, n->name ? n->name : "");
		idd_json_key(j, msg_key);
		idd_json_string(j, n->message ? n->message : "");
		if (n->has_address) {
			idd_json_key(j, "address");
			idd_json_hex(j, n->address);
		}
		idd_json_end(j);
	}
	idd_json_end(j);
}

/* A namespace's number, null where none is known. */
static void json_ns(struct idd_json *j, const struct idd_ns_info *ns)
{
	idd_json_key(j, "mnt_ns");
	if (ns->where == IDD_PATH_NS && ns->inum)
		idd_json_u64(j, ns->inum);
	else
		idd_json_null(j);
}

static const char *const where_names[] = {
	[IDD_PATH_NS] = "namespace",	 [IDD_PATH_PSEUDO] = "pseudo",
	[IDD_PATH_INTERNAL] = "internal", [IDD_PATH_DETACHED] = "detached",
	[IDD_PATH_ANON] = "anonymous",
};

/*
 * Every (namespace, path) row: the path, the namespace's number and the
 * lowest pid in it; "mount" says what the path was seen through, and
 * "covered" that another mount is on it there (only a "namespace" row not
 * covered is a path a user can open).
 */
static void json_path_rows(struct idd_json *j, const struct inodedump_inode *ino)
{
	if (!ino->paths_known) {
		idd_json_null(j);
		return;
	}
	idd_json_array(j, IDD_JSON_INLINE);
	for (size_t i = 0; i < ino->npath_rows; i++) {
		const struct idd_path *p = &ino->path_rows[i];

		idd_json_object(j, IDD_JSON_INLINE);
		idd_json_key(j, "path");
		idd_json_string(j, p->path);
		json_ns(j, &p->ns);
		idd_json_key(j, "ns_pid");
		if (p->ns.where == IDD_PATH_NS && p->ns.has_task)
			idd_json_u64(j, p->ns.pid);
		else
			idd_json_null(j);
		idd_json_key(j, "ns_comm");
		if (p->ns.where == IDD_PATH_NS && p->ns.has_task)
			idd_json_string(j, p->ns.comm);
		else
			idd_json_null(j);
		idd_json_key(j, "ns_initial");
		idd_json_bool(j, p->ns.where == IDD_PATH_NS && p->ns.initial);
		idd_json_key(j, "mount");
		idd_json_string(j, where_names[p->ns.where]);
		idd_json_key(j, "covered");
		idd_json_bool(j, p->covered);
		idd_json_end(j);
	}
	idd_json_end(j);
}

static void json_holders(struct idd_json *j, const struct inodedump_inode *ino)
{
	if (!ino->holders_known) {
		idd_json_null(j);
		return;
	}
	idd_json_array(j, IDD_JSON_INLINE);
	for (size_t i = 0; i < ino->nholders; i++) {
		const struct idd_holder *h = &ino->holders[i];

		idd_json_object(j, IDD_JSON_INLINE);
		idd_json_key(j, "pid");
		idd_json_u64(j, h->pid);
		idd_json_key(j, "comm");
		idd_json_string(j, h->comm);
		idd_json_key(j, "kind");
		idd_json_string(j, h->kind);
		idd_json_key(j, "fd");
		if (h->fd >= 0)
			idd_json_i64(j, h->fd);
		else
			idd_json_null(j);
		idd_json_key(j, "file_refs");
		if (h->file_refs >= 0)
			idd_json_i64(j, h->file_refs);
		else
			idd_json_null(j);
		idd_json_key(j, "f_op");
		if (h->f_op[0])
			idd_json_string(j, h->f_op);
		else
			idd_json_null(j);
		json_ns(j, &h->ns);
		idd_json_end(j);
	}
	idd_json_end(j);
}

/* The rows that are no member: the address, the checks' notes, ... */
static void json_view(struct idd_json *j, const struct inodedump_inode *ino,
		      enum idd_row_id id)
{
	static char *const no_paths[] = { NULL };
	unsigned mode = (unsigned)ino->mode.v;
	char s[11];

	switch (id) {
	case IDD_M_address:
		idd_json_hex(j, ino->address);
		break;
	case IDD_M_forced:
		idd_json_bool(j, ino->forced);
		break;
	case IDD_M_not_inode_reason:
		idd_json_string(j, ino->not_inode_reason);
		break;
	case IDD_M_slab:
		json_slab(j, ino);
		break;
	case IDD_M_fs_inferred:
		if (!ino->fs_inferred) {
			idd_json_null(j);
			break;
		}
		idd_json_object(j, IDD_JSON_INLINE);
		idd_json_key(j, "fs");
		idd_json_string(j, ino->fs_inferred);
		idd_json_key(j, "from");
		idd_json_string(j, ino->fs_inferred_from);
		idd_json_end(j);
		break;
	case IDD_M_paths:
		json_names(j, !ino->paths_known ? NULL
				: ino->paths	? ino->paths
						: no_paths);
		break;
	case IDD_M_path_rows:
		json_path_rows(j, ino);
		break;
	case IDD_M_holders:
		json_holders(j, ino);
		break;
	case IDD_M_unlinked:
		idd_json_bool(j, ino->unlinked_alias || (ino->nlink.state == IDD_OK &&
							 !ino->nlink.v));
		break;
	case IDD_M_type:
		idd_json_string(j, idd_mode_type_name(mode));
		break;
	case IDD_M_mode_string:
		idd_mode_string(mode, s);
		idd_json_string(j, s);
		break;
	case IDD_M_i_mapping_is_i_data:
		idd_json_bool(j, ino->mapping_is_i_data);
		break;
	case IDD_M_fs:
		idd_json_fs(j, ino);
		break;
	case IDD_M_violations:
		json_notes(j, &ino->violations, "check", "message");
		break;
	case IDD_M_skipped_checks:
		json_notes(j, &ino->skipped, "check", "reason");
		break;
	case IDD_M_errors:
		json_notes(j, &ino->errors, "field", "reason");
		break;
	default:
		idd_json_null(j);
		break;
	}
}

/*
 * The key of a row's companion, key + suffix ("i_op_symbol_error",
 * "i_state_names"); no printf: rows like these come three an inode in a
 * sweep.
 */
static void suffixed_key(struct idd_json *j, const char *key,
			 const char *suffix)
{
	char buf[48];
	size_t len = strlen(key), slen = strlen(suffix) + 1;

	if (len + slen > sizeof(buf))
		len = sizeof(buf) - slen;
	memcpy(buf, key, len);
	memcpy(buf + len, suffix, slen);
	idd_json_key(j, buf);
}

static void json_row(struct idd_json *j, const struct inodedump_inode *ino,
		     const struct idd_row *row)
{
	const struct idd_num *n = IDD_ROW_CFIELD(ino, row, struct idd_num);
	const struct idd_ptr *p = IDD_ROW_CFIELD(ino, row, struct idd_ptr);
	const struct idd_str *s = IDD_ROW_CFIELD(ino, row, struct idd_str);
	const struct idd_time *t = IDD_ROW_CFIELD(ino, row, struct idd_time);
	char buf[48];

	switch (row->kind) {
	case IDD_ROW_VIEW:
		json_view(j, ino, (enum idd_row_id)(row - idd_rows));
		return;
	case IDD_ROW_NUM_U:
	case IDD_ROW_NUM_X:
	case IDD_ROW_FLAGS:
	case IDD_ROW_STRLEN:
		if (n->state == IDD_OK)
			idd_json_u64(j, (uint64_t)n->v);
		else
			idd_json_null(j);
		break;
	case IDD_ROW_NUM_S:
		if (n->state == IDD_OK)
			idd_json_i64(j, n->v);
		else
			idd_json_null(j);
		break;
	case IDD_ROW_DEV:
		if (n->state == IDD_OK) {
			idd_json_string(j, dev_string((uint64_t)n->v, buf));
		} else {
			idd_json_null(j);
		}
		break;
	case IDD_ROW_TIME:
		if (t->sec.state != IDD_OK) {
			idd_json_null(j);
			break;
		}
		idd_json_object(j, IDD_JSON_INLINE);
		idd_json_key(j, "sec");
		idd_json_i64(j, t->sec.v);
		idd_json_key(j, "nsec");
		if (t->nsec.state == IDD_OK)
			idd_json_i64(j, t->nsec.v);
		else
			idd_json_null(j);
		if (t->has_queried) {
			idd_json_key(j, "queried");
			idd_json_bool(j, t->queried);
		}
		idd_json_end(j);
		break;
	case IDD_ROW_SYM:
		if (p->state != IDD_OK || !p->addr)
			idd_json_null(j);
		else if (p->symbol)
			idd_json_string(j, p->symbol);
		else
			idd_json_hex(j, p->addr);
		break;
	case IDD_ROW_ADDR:
		if (p->state != IDD_OK)
			idd_json_null(j);
		else
			idd_json_hex(j, p->addr);
		break;
	case IDD_ROW_STR:
		idd_json_string(j, s->state == IDD_OK ? s->s : NULL);
		break;
	}
	if (row->kind == IDD_ROW_SYM && p->state == IDD_OK && p->addr &&
	    !p->symbol && p->symbol_error) { /* only then: the key is new */
		suffixed_key(j, row->key, "_symbol_error");
		idd_json_string(j, p->symbol_error);
	}
	if (row->kind == IDD_ROW_SYM && p->state == IDD_OK && p->addr &&
	    p->symbol && p->symbol_note) { /* "ext4+0x1c2a0": why no name */
		suffixed_key(j, row->key, "_symbol_note");
		idd_json_string(j, p->symbol_note);
	}
	if (row->kind == IDD_ROW_FLAGS) {
		suffixed_key(j, row->key, "_names");
		json_names(j, *(char **const *)(const void *)((const char *)ino +
							       row->names_offset));
	}
}

/*
 * The rows with a key, the key's length and the key written ahead as
 * ', "key": ' (KEY_AHEAD bytes at most), found once per process.
 */
#define KEY_AHEAD IDD_JSON_KEY_AHEAD
static struct {
	size_t n;
	unsigned short row[IDD_NROWS];
	unsigned short len[IDD_NROWS];
	unsigned short ahead_len[IDD_NROWS]; /* 0: too long, no ahead */
	char ahead[IDD_NROWS][KEY_AHEAD];
} keyed;
/* 0: not yet, 1: being found, 2: ready (no pthread_once: it needs futex) */
static atomic_int keyed_state;

static void find_keyed(void)
{
	for (size_t i = 0; i < IDD_NROWS; i++) {
		size_t k = keyed.n, len;

		if (!idd_rows[i].key)
			continue;
		len = strlen(idd_rows[i].key);
		keyed.row[k] = (unsigned short)i;
		keyed.len[k] = (unsigned short)len;
		if (len + 6 <= KEY_AHEAD - 16) {
			memcpy(keyed.ahead[k], ", \"", 3);
			memcpy(keyed.ahead[k] + 3, idd_rows[i].key, len);
			memcpy(keyed.ahead[k] + 3 + len, "\": ", 3);
			keyed.ahead_len[k] = (unsigned short)(len + 6);
		}
		keyed.n++;
	}
}

void idd_json_inode(struct idd_json *j, const struct inodedump_inode *ino)
{
	if (atomic_load_explicit(&keyed_state, memory_order_acquire) != 2) {
		int none = 0;

		/*
		 * glibc's pthread_once() wakes waiters with futex(2), which a
		 * kernel without CONFIG_FUTEX (the live set's) lacks: abort.
		 */
		if (atomic_compare_exchange_strong(&keyed_state, &none, 1)) {
			find_keyed();
			atomic_store_explicit(&keyed_state, 2,
					      memory_order_release);
		}
		while (atomic_load_explicit(&keyed_state, memory_order_acquire) !=
		       2)
			;
	}
	idd_json_object(j, IDD_JSON_LINES);
	for (size_t k = 0; k < keyed.n; k++) {
		const struct idd_row *row = &idd_rows[keyed.row[k]];

		if (!keyed.ahead_len[k] ||
		    !idd_json_key_inline(j, keyed.ahead[k], keyed.ahead_len[k]))
			idd_json_key_n(j, row->key, keyed.len[k]);
		json_row(j, ino, row);
	}
	idd_json_end(j);
}

void inodedump_inode_print_json(const struct inodedump_inode *ino, FILE *out)
{
	struct idd_json j;

	flockfile(out);
	idd_json_init_buffered(&j, out, false, 1); /* an element of "inodes" */
	idd_json_inode(&j, ino);
	idd_json_flush(&j);
	funlockfile(out);
}

void inodedump_inode_print_jsonl(const struct inodedump_inode *ino, FILE *out)
{
	struct idd_json j;

	flockfile(out);
	idd_json_init_buffered(&j, out, true, 0);
	idd_json_inode(&j, ino);
	idd_json_flush(&j);
	funlockfile(out);
}
