// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Decode a filesystem's own state beside the VFS inode: the rows of its
 * table (kernel/fs_rows.h) from the object that embeds the inode.
 *
 * Once per session and filesystem: the embedding struct (inode_caches.def's
 * row for the table's cache: vmlinux's types, or the module's BTF), where
 * the inode is in it, and each row's member, pointer hops and flag names.
 * Per inode: one read of the object, pure decoding from its bytes, a read
 * per pointer a row follows. What cannot be had is said, never guessed: a
 * filesystem without types gives its reason, the VFS rows stand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/fs.h"
#include "decode/rows.h"
#include "decode/slab.h"
#include "kernel/vfs.h"

#define MAX_HOPS 8
#define STR_MAX 256

/* A member reached through up to MAX_HOPS pointers. */
struct chain {
	bool present;
	unsigned n;			/* members: [0] in the object */
	struct idd_member m[MAX_HOPS];	/* m[i > 0] in *m[i - 1] */
};

/* A FLAGS or ENUM row's names: value or mask, and name. */
struct named {
	char *name;
	uint64_t v;
};

struct fs_row_layout {
	struct chain at, len; /* len: STR/BYTES length member */
	struct named *names;
	size_t nnames;
	bool bits; /* FLAGS "bits:": names[].v is a bit number */
};

struct fs_layout {
	bool tried, ok;
	bool damaged;	/* !ok because the dump could not be read */
	char *why;	/* !ok: why there are no rows */
	char type[48];	/* the embedding struct */
	uint64_t inode_off, size;
	struct idd_btf *btf; /* its types: a module's BTF, or NULL */
	struct fs_row_layout *rows;
};

struct fs_layouts {
	size_t n;
	struct fs_layout l[]; /* one per idd_fs_tables[] */
};

static void member_in(struct inodedump *id, struct idd_btf *btf,
		      const struct idd_struct *s, const char *path,
		      struct idd_member *m)
{
	if (btf)
		idd_btf_types_member(btf, s, path, m);
	else
		idd_types_member(id->types, s, path, m);
}

/* struct name in the table's types: the module's BTF, else vmlinux's. */
static bool struct_named(struct inodedump *id, struct idd_btf *btf,
			 const char *name, struct idd_struct *out)
{
	struct inodedump_error *err = btf ? idd_btf_struct(btf, name, out)
					  : idd_types_struct(id->types, name,
							     out);

	inodedump_error_free(err);
	return !err;
}

/*
 * One segment between "->": a member path, or "a.b@T" / "a.b@T.c" (the
 * member a.b taken as struct T: a pointer's pointee for the next hop, or
 * an array's first element whose member c is read). *as is set to T when
 * it is the next hop's pointee.
 */
static void segment(struct inodedump *id, struct idd_btf *btf,
		    const struct idd_struct *s, const char *seg,
		    struct idd_member *m, struct idd_struct *as, bool *has_as)
{
	const char *at = strchr(seg, '@');
	char head[96], tname[48];
	const char *rest;
	struct idd_struct t;
	struct idd_member inner;

	*has_as = false;
	if (!at) {
		member_in(id, btf, s, seg, m);
		return;
	}
	snprintf(head, sizeof(head), "%.*s", (int)(at - seg), seg);
	member_in(id, btf, s, head, m);
	rest = strchr(at + 1, '.');
	snprintf(tname, sizeof(tname), "%.*s",
		 (int)(rest ? (size_t)(rest - at - 1) : strlen(at + 1)), at + 1);
	if (!m->present)
		return;
	if (!struct_named(id, btf, tname, &t)) {
		m->present = false;
		return;
	}
	if (!rest) {
		/* the pointer's pointee for the next hop */
		if (m->kind != IDD_KIND_PTR)
			m->present = false;
		*as = t;
		*has_as = true;
		return;
	}
	/* in place: the member's first element is a T */
	if (m->kind == IDD_KIND_PTR) {
		m->present = false;
		return;
	}
	member_in(id, btf, &t, rest + 1, &inner);
	if (!inner.present) {
		m->present = false;
		return;
	}
	inner.offset += m->offset;
	*m = inner;
}

/* One alternative ("a.b->c.d", "a@T.b->c"): each "->" a pointer hop. */
static void resolve_one(struct inodedump *id, struct idd_btf *btf,
			const struct idd_struct *top, const char *alt,
			size_t len, struct chain *c)
{
	struct idd_struct s = *top, as;
	const char *p = alt, *end = alt + len;
	bool has_as = false;

	memset(c, 0, sizeof(*c));
	while (p < end && c->n < MAX_HOPS) {
		const char *arrow = strstr(p, "->");
		size_t n = (arrow && arrow < end) ? (size_t)(arrow - p)
						  : (size_t)(end - p);
		char seg[96];
		struct idd_member *m = &c->m[c->n++];
		struct inodedump_error *err;

		snprintf(seg, sizeof(seg), "%.*s", (int)n, p);
		segment(id, btf, &s, seg, m, &as, &has_as);
		if (!m->present)
			return;
		p += n;
		if (p >= end) {
			c->present = !has_as;
			return;
		}
		p += 2; /* "->" */
		if (has_as) {
			s = as;
			continue;
		}
		err = btf ? idd_btf_pointee(btf, m, &s)
			  : idd_types_pointee_struct(id->types, m, &s);
		if (err) {
			inodedump_error_free(err);
			return;
		}
	}
}

/* The first of paths' alternatives this kernel has. */
static void resolve(struct inodedump *id, struct idd_btf *btf,
		    const struct idd_struct *s, const char *paths,
		    struct chain *c)
{
	memset(c, 0, sizeof(*c));
	for (const char *p = paths; p && *p;) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);

		resolve_one(id, btf, s, p, n, c);
		if (c->present)
			return;
		p += n + (bar ? 1 : 0);
	}
	memset(c, 0, sizeof(*c));
}

struct names_acc {
	struct fs_row_layout *rl;
	bool nomem;
};

static void add_name(const char *name, int64_t value, void *arg)
{
	struct names_acc *a = arg;
	struct fs_row_layout *rl = a->rl;
	struct named *n;

	if (a->nomem)
		return;
	n = realloc(rl->names, (rl->nnames + 1) * sizeof(*n));
	if (!n || !(n[rl->nnames].name = strdup(name))) {
		if (n)
			rl->names = n;
		a->nomem = true;
		return;
	}
	n[rl->nnames++].v = (uint64_t)value;
	rl->names = n;
}

/* A FLAGS or ENUM row's names: from the kernel's enum, or a table. */
static bool row_names(struct inodedump *id, struct fs_layout *fl,
		      const struct idd_inode_cache *ic,
		      const struct idd_fs_row *row, struct fs_row_layout *rl)
{
	struct names_acc a = { rl, false };
	const char *aux = row->aux, *name = aux;

	if (!aux && row->kind == IDD_FS_ENUM) {
		/* the member's own enum type (a typedef'd anonymous enum) */
		idd_types_member_enum(&rl->at.m[rl->at.n - 1], add_name, &a);
		return !a.nomem;
	}
	if (!aux)
		return true;
	if (!strncmp(aux, "table:", 6)) {
		const struct idd_fs_flag_table *t =
			idd_fs_flag_table_find(aux + 6);

		for (size_t i = 0; t && i < t->n; i++)
			add_name(t->flags[i].name, (int64_t)t->flags[i].mask,
				 &a);
		return !a.nomem;
	}
	if (row->kind == IDD_FS_FLAGS) {
		const char *colon = strchr(aux, ':');

		if (!colon)
			return true;
		name = colon + 1;
		rl->bits = !strncmp(aux, "bits:", 5);
	}
	/* a module's enum is in its BTF, where its member was found */
	if (rl->at.m[rl->at.n - 1].btf)
		idd_btf_enum(rl->at.m[rl->at.n - 1].btf, name, add_name, &a);
	else if (fl->btf)
		idd_btf_enum(fl->btf, name, add_name, &a);
	else
		idd_types_enum(id->types, ic->unit, name, add_name, &a);
	return !a.nomem;
}

static void layout_clear(struct fs_layout *fl, const struct idd_fs_table *t)
{
	for (size_t i = 0; fl->rows && i < t->nrows; i++) {
		for (size_t k = 0; k < fl->rows[i].nnames; k++)
			free(fl->rows[i].names[k].name);
		free(fl->rows[i].names);
	}
	free(fl->rows);
	free(fl->why);
}

/* Look the table's struct and rows up in this kernel's types, once. */
static struct inodedump_error *layout(struct inodedump *id,
				      const struct idd_fs_table *t,
				      bool module, struct fs_layout *fl)
{
	const struct idd_inode_cache *ic = idd_inode_cache_find(t->cache);
	struct idd_struct s;
	char *why = NULL;

	fl->tried = true;
	if (!ic) {
		fl->why = idd_strdup_printf("no inode cache %s in the table",
					    t->cache);
		return fl->why ? NULL : idd_nomem();
	}
	if (!module && t->anchors)
		idd_anchor(id->types, id->syms, ic->unit, t->anchors);
	if (!idd_slab_inode_place(id, ic, module, &fl->inode_off, fl->type, &s,
				  &fl->btf, &fl->damaged, &why)) {
		fl->why = idd_strdup_printf(
			fl->damaged ? "its types could not be read from the "
				      "dump: %s"
				    : "its types are in neither the dump nor "
				      "vmlinux: %s",
			why ? why : "struct not found");
		free(why);
		return fl->why ? NULL : idd_nomem();
	}
	free(why);
	fl->size = s.size;
	fl->rows = calloc(t->nrows, sizeof(*fl->rows));
	if (!fl->rows)
		return idd_nomem();
	for (size_t i = 0; i < t->nrows; i++) {
		const struct idd_fs_row *row = &t->rows[i];
		struct fs_row_layout *rl = &fl->rows[i];

		resolve(id, fl->btf, &s, row->paths, &rl->at);
		if ((row->kind == IDD_FS_STR || row->kind == IDD_FS_BYTES) &&
		    row->aux)
			resolve(id, fl->btf, &s, row->aux, &rl->len);
		if (rl->at.present &&
		    (row->kind == IDD_FS_FLAGS || row->kind == IDD_FS_ENUM) &&
		    !row_names(id, fl, ic, row, rl))
			return idd_nomem();
	}
	fl->ok = true;
	return NULL;
}

void idd_fs_layouts_free(struct fs_layouts *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < idd_fs_ntables; i++)
		layout_clear(&l->l[i], &idd_fs_tables[i]);
	free(l);
}

/*
 * The value of a chain: its last member's bytes into out (at most 8),
 * following each pointer. *why (static or arena) when unreadable.
 */
static enum idd_presence chain_value(struct inodedump *id,
				     const struct chain *c,
				     const uint8_t *obj, uint64_t *out,
				     uint64_t *last_addr, const char **why)
{
	struct idd_member cur = c->m[0];
	uint8_t buf[8];
	const uint8_t *src = obj;

	*last_addr = 0;
	for (unsigned i = 1; i < c->n; i++) {
		uint64_t ptr = idd_member_uval(&cur, src);
		struct inodedump_error *err;

		if (!ptr) {
			*why = "a NULL pointer on the way";
			return IDD_NA;
		}
		cur = c->m[i];
		*last_addr = ptr + cur.offset;
		if (cur.size > sizeof(buf)) {
			/* an array or struct at the end: its address only */
			*out = 0;
			return IDD_OK;
		}
		err = idd_target_read(id->target, *last_addr, buf, cur.size);
		if (err) {
			inodedump_error_free(err);
			*why = "its memory is not in the dump";
			return IDD_UNREADABLE;
		}
		cur.offset = 0; /* buf holds the member's bytes */
		src = buf;
	}
	*out = cur.size > 8 ? 0
	       : cur.is_signed ? (uint64_t)idd_member_sval(&cur, src)
			       : idd_member_uval(&cur, src);
	return IDD_OK;
}

static const char *hex_bytes(struct idd_arena *a, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *s = idd_arena_alloc(a, 2 * n + 1);

	for (size_t i = 0; s && i < n; i++) {
		s[2 * i] = digits[b[i] >> 4];
		s[2 * i + 1] = digits[b[i] & 15];
	}
	if (s)
		s[2 * n] = 0;
	return s;
}

/* STR and BYTES: a char array in place, or what a pointer points to. */
static struct inodedump_error *take_bytes(struct inodedump *id,
					  struct inodedump_inode *ino,
					  const struct idd_fs_row *row,
					  const struct fs_row_layout *rl,
					  const uint8_t *obj,
					  struct idd_fs_value *v)
{
	const struct idd_member *m = &rl->at.m[rl->at.n - 1];
	uint64_t val = 0, addr = 0, len = STR_MAX;
	bool has_len = false;
	uint8_t *bytes;
	struct inodedump_error *err;
	const char *why = NULL;

	if (rl->len.present) {
		uint64_t la;

		if (chain_value(id, &rl->len, obj, &len, &la, &why) != IDD_OK) {
			v->state = IDD_UNREADABLE;
			v->why = why;
			return NULL;
		}
		has_len = true;
	}
	v->state = chain_value(id, &rl->at, obj, &val, &addr, &why);
	if (v->state != IDD_OK) {
		v->why = why;
		return NULL;
	}
	if (m->kind == IDD_KIND_PTR) {
		addr = val;
		if (!addr) {
			v->state = IDD_NA;
			v->why = "NULL";
			return NULL;
		}
	} else {
		/* an array: in the object, or at the end of the pointers */
		addr = rl->at.n == 1 ? ino->fs.object + m->offset : addr;
		if (has_len && len > m->size) {
			/* a length the array cannot hold: garbage, not cut */
			v->state = IDD_UNREADABLE;
			v->v = len;
			v->why = "its length is absurd: more than its array "
				 "holds";
			return NULL;
		}
		if (len > m->size)
			len = m->size;
	}
	if (len > 4096) {
		v->state = IDD_UNREADABLE;
		v->why = "its length is absurd";
		return NULL;
	}
	if (row->kind == IDD_FS_STR && !has_len) {
		char *s = NULL;

		err = idd_target_read_string(id->target, addr, len, &s,
					     &v->truncated);
		if (err) {
			inodedump_error_free(err);
			v->state = IDD_UNREADABLE;
			v->why = "its memory is not in the dump";
			return NULL;
		}
		v->s = idd_arena_strdup(&ino->arena, s);
		v->s_owned = true;
		free(s);
		return v->s ? NULL : idd_nomem();
	}
	err = idd_read_bytes(id, addr, len ? len : 1, &bytes);
	if (err) {
		if (idd_error_is_nomem(err))
			return err;
		inodedump_error_free(err);
		v->state = IDD_UNREADABLE;
		v->why = "its memory is not in the dump";
		return NULL;
	}
	v->v = len;
	v->s_owned = true;
	v->s = row->kind == IDD_FS_STR
		       ? idd_arena_strndup(&ino->arena, (const char *)bytes, len)
		       : hex_bytes(&ino->arena, bytes, len);
	free(bytes);
	return v->s ? NULL : idd_nomem();
}

/* FLAGS and ENUM: the names of the value. */
static struct inodedump_error *take_names(struct inodedump_inode *ino,
					  const struct idd_fs_row *row,
					  const struct fs_row_layout *rl,
					  struct idd_fs_value *v)
{
	size_t k = 0;

	if (row->kind == IDD_FS_ENUM) {
		for (size_t i = 0; i < rl->nnames; i++)
			if (rl->names[i].v == v->v)
				v->s = rl->names[i].name;
		return NULL;
	}
	if (!rl->nnames)
		return NULL;
	v->names = idd_arena_alloc(&ino->arena,
				   (rl->nnames + 1) * sizeof(*v->names));
	if (!v->names)
		return idd_nomem();
	for (size_t i = 0; i < rl->nnames; i++) {
		uint64_t mask = rl->bits ? (rl->names[i].v < 64
						    ? 1ull << rl->names[i].v
						    : 0)
					 : rl->names[i].v;

		if (mask && (v->v & mask) == mask)
			v->names[k++] = rl->names[i].name;
	}
	v->names[k] = NULL;
	return NULL;
}

static struct inodedump_error *take_row(struct inodedump *id,
					struct inodedump_inode *ino,
					const struct idd_fs_row *row,
					const struct fs_row_layout *rl,
					const uint8_t *obj,
					struct idd_fs_value *v)
{
	uint64_t addr;
	const char *why = NULL;

	v->row = row;
	if (!rl->at.present) {
		v->state = IDD_ABSENT;
		return NULL;
	}
	if (row->kind == IDD_FS_STR || row->kind == IDD_FS_BYTES)
		return take_bytes(id, ino, row, rl, obj, v);
	v->state = chain_value(id, &rl->at, obj, &v->v, &addr, &why);
	v->why = why;
	if (v->state != IDD_OK)
		return NULL;
	switch (row->kind) {
	case IDD_FS_FLAGS:
	case IDD_FS_ENUM:
		return take_names(ino, row, rl, v);
	default:
		return NULL;
	}
}

static const char *fs_name(const struct inodedump_inode *ino)
{
	if (ino->fs_type.state == IDD_OK && ino->fs_type.s)
		return ino->fs_type.s;
	return ino->fs_inferred;
}

struct inodedump_error *idd_decode_fs(struct inodedump *id,
				      struct inodedump_inode *ino)
{
	const struct idd_fs_table *t = idd_fs_table_find(fs_name(ino));
	struct fs_layout *fl;
	struct inodedump_error *err;
	uint8_t *obj;
	size_t ti;

	ino->fs.asked = true;
	if (!t)
		return NULL;
	ti = (size_t)(t - idd_fs_tables);
	if (!id->fs_layouts) {
		id->fs_layouts = calloc(1, sizeof(*id->fs_layouts) +
						   idd_fs_ntables *
							   sizeof(struct fs_layout));
		if (!id->fs_layouts)
			return idd_nomem();
		id->fs_layouts->n = idd_fs_ntables;
	}
	fl = &id->fs_layouts->l[ti];
	/* a module's operations: its types are in its BTF, not vmlinux's */
	if (!fl->tried &&
	    (err = layout(id, t, ino->i_op.state == IDD_OK && ino->i_op.module,
			  fl)))
		return err;
	ino->fs.t = t;
	if (!fl->ok) {
		/*
		 * the session's, like fs.type: an arena copy of a long why
		 * overflowed the arena into malloc, which nothing freed
		 */
		ino->fs.unavailable = fl->why;
		/* types the dump lost: a part asked, not read */
		return fl->damaged ? idd_note_incomplete(ino, INODEDUMP_PART_FIELDS,
							 "fs", false, 0, "%s",
							 fl->why)
				   : NULL;
	}
	ino->fs.type = fl->type;
	ino->fs.object = ino->address - fl->inode_off;
	if (ino->slab.known && ino->slab.offset != fl->inode_off) {
		ino->fs.unavailable = "the inode is not where its filesystem's "
				      "struct keeps it in its slab object";
		return NULL;
	}
	err = idd_read_bytes(id, ino->fs.object, fl->size, &obj);
	if (err) {
		char *why;

		if (idd_error_is_nomem(err))
			return err;
		why = idd_strdup_printf("struct %s at 0x%llx: %s", fl->type,
					(unsigned long long)ino->fs.object,
					inodedump_error_message(err));
		inodedump_error_free(err);
		/* malloc'd, owned by the inode (inodedump_inode_free) */
		ino->fs.unavailable_buf = why;
		ino->fs.unavailable = why;
		if (!ino->fs.unavailable)
			return idd_nomem();
		return idd_note_incomplete(ino, INODEDUMP_PART_FIELDS, "fs",
					   true, ino->fs.object, "%s",
					   ino->fs.unavailable);
	}
	ino->fs.v = idd_arena_alloc(&ino->arena, t->nrows * sizeof(*ino->fs.v));
	err = ino->fs.v ? NULL : idd_nomem();
	if (ino->fs.v)
		memset(ino->fs.v, 0, t->nrows * sizeof(*ino->fs.v));
	for (size_t i = 0; !err && i < t->nrows; i++)
		err = take_row(id, ino, &t->rows[i], &fl->rows[i], obj,
			       &ino->fs.v[i]);
	free(obj);
	if (!err)
		ino->fs.n = t->nrows;
	/* a row the dump could not give: said, as any member's */
	for (size_t i = 0; !err && i < ino->fs.n; i++)
		if (ino->fs.v[i].state == IDD_UNREADABLE)
			err = idd_note_incomplete(ino, INODEDUMP_PART_FIELDS,
						  "fs", false, 0, "%s: %s",
						  t->rows[i].key,
						  ino->fs.v[i].why
							  ? ino->fs.v[i].why
							  : "unreadable");
	return err;
}
