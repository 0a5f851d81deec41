// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * output: a filesystem's own rows (decode/fs.c) in JSON and text: its
 * struct, each row by kind, and what stat(2) would show, said derived.
 */
#include <inttypes.h>
#include <string.h>

#include "decode/inode.h"
#include "output/json.h"
#include "output/output.h"

static void json_value(struct idd_json *j, const struct idd_fs_value *v)
{
	char dev[48];

	if (v->state != IDD_OK) {
		idd_json_null(j);
		return;
	}
	switch (v->row->kind) {
	case IDD_FS_S:
		idd_json_i64(j, (int64_t)v->v);
		break;
	case IDD_FS_ADDR:
	case IDD_FS_SYM:
		idd_json_hex(j, v->v);
		break;
	case IDD_FS_DEV:
		idd_dev_string(v->v, dev, sizeof(dev));
		idd_json_string(j, dev);
		break;
	case IDD_FS_STR:
	case IDD_FS_BYTES:
		idd_json_string(j, v->s);
		break;
	default:
		idd_json_u64(j, v->v);
		break;
	}
}

/* The key of a row's companion: key + suffix. */
static void companion(struct idd_json *j, const char *key, const char *suffix)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s%s", key, suffix);
	idd_json_key(j, buf);
}

static void json_rows(struct idd_json *j, const struct idd_fs_part *fs)
{
	bool unread = false;

	idd_json_object(j, IDD_JSON_INLINE);
	for (size_t i = 0; i < fs->n; i++) {
		const struct idd_fs_value *v = &fs->v[i];

		idd_json_key(j, v->row->key);
		json_value(j, v);
		if (v->state != IDD_OK)
			unread |= v->state == IDD_UNREADABLE;
		else if (v->row->kind == IDD_FS_FLAGS) {
			companion(j, v->row->key, "_names");
			idd_json_array(j, IDD_JSON_INLINE);
			for (const char **p = v->names; p && *p; p++)
				idd_json_string(j, *p);
			idd_json_end(j);
		} else if (v->row->kind == IDD_FS_ENUM ||
			   v->row->kind == IDD_FS_SYM) {
			companion(j, v->row->key,
				  v->row->kind == IDD_FS_ENUM ? "_name"
							      : "_symbol");
			idd_json_string(j, v->s);
		}
	}
	idd_json_end(j);
	if (!unread)
		return;
	idd_json_key(j, "unread");
	idd_json_object(j, IDD_JSON_INLINE);
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].state == IDD_UNREADABLE) {
			idd_json_key(j, fs->v[i].row->key);
			idd_json_string(j, fs->v[i].why);
		}
	idd_json_end(j);
}

/* A derived number; a dev_t (is_dev) as "major:minor", like the VFS rows. */
static void json_derived_num(struct idd_json *j,
			     const struct idd_fs_derived *d, int64_t v)
{
	char dev[48];

	if (!d->is_dev) {
		idd_json_i64(j, v);
		return;
	}
	idd_dev_string((uint64_t)v, dev, sizeof(dev));
	idd_json_string(j, dev);
}

static void text_derived_num(FILE *out, const struct idd_fs_derived *d,
			     int64_t v)
{
	char dev[48];

	if (!d->is_dev) {
		fprintf(out, "%" PRId64, v);
		return;
	}
	idd_dev_string((uint64_t)v, dev, sizeof(dev));
	fputs(dev, out);
}

void idd_json_fs(struct idd_json *j, const struct inodedump_inode *ino)
{
	const struct idd_fs_part *fs = &ino->fs;

	if (!fs->asked || !fs->t) {
		idd_json_null(j);
		return;
	}
	idd_json_object(j, IDD_JSON_INLINE);
	idd_json_key(j, "struct");
	idd_json_string(j, fs->type);
	idd_json_key(j, "object");
	if (fs->type)
		idd_json_hex(j, fs->object);
	else
		idd_json_null(j);
	idd_json_key(j, "unavailable");
	idd_json_string(j, fs->unavailable);
	idd_json_key(j, "rows");
	if (fs->n)
		json_rows(j, fs);
	else
		idd_json_null(j);
	idd_json_key(j, "stat");
	idd_json_object(j, IDD_JSON_INLINE);
	for (size_t i = 0; i < fs->nd; i++) {
		const struct idd_fs_derived *d = &fs->d[i];

		idd_json_key(j, d->key);
		idd_json_object(j, IDD_JSON_INLINE);
		idd_json_key(j, "value");
		if (d->is_str)
			idd_json_string(j, d->s);
		else
			json_derived_num(j, d, d->v);
		if (d->vfs_key) {
			idd_json_key(j, "vfs_row");
			idd_json_string(j, d->vfs_key);
			idd_json_key(j, "vfs_value");
			json_derived_num(j, d, d->vfs);
		}
		idd_json_key(j, "derived");
		idd_json_string(j, d->how);
		idd_json_end(j);
	}
	idd_json_end(j);
	idd_json_end(j);
}

static void text_value(FILE *out, const struct idd_fs_value *v)
{
	char dev[48];

	switch (v->state) {
	case IDD_OK:
		break;
	case IDD_NA:
		fputs(v->why && !strcmp(v->why, "NULL") ? "NULL" : "-", out);
		return;
	default:
		fputs("(unreadable", out);
		if (v->why) {
			fputs(": ", out);
			idd_text_escape(out, v->why);
		}
		fputc(')', out);
		return;
	}
	switch (v->row->kind) {
	case IDD_FS_S:
		fprintf(out, "%" PRId64, (int64_t)v->v);
		break;
	case IDD_FS_U:
		fprintf(out, "%" PRIu64, v->v);
		break;
	case IDD_FS_DEV:
		idd_dev_string(v->v, dev, sizeof(dev));
		fputs(dev, out);
		break;
	case IDD_FS_STR:
		fputc('"', out);
		idd_text_escape(out, v->s);
		fputs(v->truncated ? "\"..." : "\"", out);
		break;
	case IDD_FS_BYTES:
		fprintf(out, "%s (%" PRIu64 " bytes)", v->s ? v->s : "",
			v->v);
		break;
	case IDD_FS_ENUM:
		fprintf(out, "%" PRIu64 "%s%s%s", v->v, v->s ? " (" : "",
			v->s ? v->s : "", v->s ? ")" : "");
		break;
	case IDD_FS_SYM:
		fprintf(out, "0x%" PRIx64 "%s%s", v->v, v->s ? "  " : "",
			v->s ? v->s : "");
		break;
	case IDD_FS_FLAGS:
		fprintf(out, "0x%" PRIx64, v->v);
		for (const char **p = v->names; p && *p; p++)
			fprintf(out, "%s%s", p == v->names ? "  " : "|", *p);
		break;
	default:
		fprintf(out, "0x%" PRIx64, v->v);
		break;
	}
}

void idd_text_fs(FILE *out, const struct inodedump_inode *ino)
{
	const struct idd_fs_part *fs = &ino->fs;

	if (!fs->asked || !fs->t)
		return;
	if (fs->type)
		fprintf(out, "  %-12s 0x%" PRIx64 "  (the inode's %s)\n",
			fs->type, fs->object, fs->t->fs);
	if (fs->unavailable) {
		fprintf(out, "  %-12s unavailable: ",
			fs->type ? "" : "fs rows");
		idd_text_escape(out, fs->unavailable);
		fputc('\n', out);
	}
	for (size_t i = 0; i < fs->n; i++) {
		const struct idd_fs_value *v = &fs->v[i];

		if (v->state == IDD_ABSENT)
			continue;
		fprintf(out, "    %-16s ", v->row->label);
		text_value(out, v);
		fputc('\n', out);
	}
	for (size_t i = 0; i < fs->nd; i++) {
		const struct idd_fs_derived *d = &fs->d[i];

		fprintf(out, "  %-12s ", i ? "" : "stat would");
		if (d->is_str) {
			fprintf(out, "%s \"", d->key);
			idd_text_escape(out, d->s);
			fputc('"', out);
		} else {
			fprintf(out, "%s ", d->key);
			text_derived_num(out, d, d->v);
			if (d->vfs_key) {
				fprintf(out, " (the VFS inode's %s: ",
					d->vfs_key);
				text_derived_num(out, d, d->vfs);
				fputc(')', out);
			}
		}
		fputs("  derived: ", out);
		idd_text_escape(out, d->how);
		fputc('\n', out);
	}
}
