// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * BTF as a session's type source (source.h): its ops table, and structs
 * looked for in vmlinux's BTF, then in the loaded modules'.
 */
#include <string.h>

#include "types/btf_internal.h"
#include "types/source.h"

static struct inodedump_error *struct_once(struct idd_btf *b,
					   const char *name,
					   struct idd_struct *out)
{
	uint32_t id = idd_btf_lookup(b, name, 0);
	const struct btf_type *t = idd_btf_type(b, id);
	struct idd_btf *in = b;

	memset(out, 0, sizeof(*out));
	if (b->broken)
		return idd_error(INODEDUMP_ERR_TYPE, "%s", b->broken->message);
	if (!t && !b->first_id) /* not parsed: no such btf */
		return idd_error(INODEDUMP_ERR_TYPE, "no BTF");
	if (!t && b->lz) {
		/*
		 * Not found on demand, or a read failed: read whole (a
		 * module's BTF is split on vmlinux's, parsed by libbpf).
		 */
		idd_btf_whole(b);
		return struct_once(b, name, out);
	}
	if (!t && b->first_id == 1) {
		/* Not vmlinux's: a module's, if one has it. */
		if (!b->mods_tried)
			idd_btf_load_modules(b);
		for (size_t i = 0; i < b->nmods && !t; i++) {
			id = idd_btf_lookup(b->mods[i], name, 0);
			t = idd_btf_type(b->mods[i], id);
			in = b->mods[i];
		}
	}
	if (!t && b->nmods_unread)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "the dump's BTF has no struct %s (vmlinux's, "
				 "nor that of the %zu modules with BTF read); "
				 "the BTF of %zu more could not be read: %s",
				 name, b->nmods, b->nmods_unread,
				 b->mods_unread ? b->mods_unread : "?");
	if (!t)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "the dump's BTF has no struct %s (vmlinux's, "
				 "nor that of the %zu modules with BTF)",
				 name, b->nmods);
	/* The dump is untrusted: no struct the decode reads is this big. */
	if (t->size > STRUCT_MAX)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "the dump's BTF is corrupt: struct %s claims "
				 "%u bytes", name, t->size);
	out->btf_id = id;
	out->btf = in == b ? NULL : in;
	out->size = t->size;
	return NULL;
}

struct inodedump_error *idd_btf_struct(struct idd_btf *b, const char *name,
				       struct idd_struct *out)
{
	struct inodedump_error *err = struct_once(b, name, out);

	if (idd_btf_settle(b)) {
		inodedump_error_free(err);
		err = struct_once(b, name, out);
	}
	return err;
}

static struct inodedump_error *pointee_once(struct idd_btf *base,
					    const struct idd_member *m,
					    struct idd_struct *out)
{
	struct idd_btf *b = m->btf ? m->btf : base;
	const struct btf_type *p = idd_btf_type(b, m->btf_type), *t;
	uint32_t target;

	if (m->kind != IDD_KIND_PTR || !p || !btf_is_ptr(p))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "member is not a pointer to a struct");
	target = idd_btf_peel(b, p->type);
	t = idd_btf_type(b, target);
	if (t && btf_is_composite(t) && t->size <= STRUCT_MAX) {
		memset(out, 0, sizeof(*out));
		out->btf_id = target;
		out->btf = b == base ? NULL : b;
		out->size = t->size;
		return NULL;
	}
	if (!t || !btf_is_fwd(t) || !t->name_off)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "pointer to an anonymous incomplete type");
	return struct_once(base, idd_btf_name(b, t), out);
}

struct inodedump_error *idd_btf_pointee(struct idd_btf *base,
					const struct idd_member *m,
					struct idd_struct *out)
{
	struct inodedump_error *err = pointee_once(base, m, out);

	if (idd_btf_settle(m->btf ? m->btf : base)) {
		inodedump_error_free(err);
		err = pointee_once(base, m, out);
	}
	return err;
}

static void source_close(void *src)
{
	idd_btf_free(src);
}

/* One namespace: no unit to look in. */
static struct inodedump_error *source_struct(void *src, const char *name,
					     const char *cu_hint,
					     struct idd_struct *out)
{
	(void)cu_hint;
	return idd_btf_struct(src, name, out);
}

/* vmlinux's own BTF only: no module's read for a struct it lacks. */
static struct inodedump_error *source_struct_own(void *src, const char *name,
						 const char *cu_hint,
						 struct idd_struct *out)
{
	(void)cu_hint;
	if (idd_btf_own_struct(src, name, out))
		return NULL;
	return idd_error(INODEDUMP_ERR_TYPE, "vmlinux's BTF has no struct %s",
			 name);
}

static void source_member(void *src, const struct idd_struct *s,
			  const char *path, struct idd_member *out)
{
	idd_btf_types_member(src, s, path, out);
}

static struct inodedump_error *source_pointee(void *src,
					      const struct idd_member *m,
					      struct idd_struct *out)
{
	return idd_btf_pointee(src, m, out);
}

static bool source_enumerator(void *src, const char *cu_hint,
			      const char *enum_hint, const char *name,
			      int64_t *value)
{
	(void)cu_hint;
	return idd_btf_enumerator_in(src, enum_hint, name, value);
}

static bool source_enum(void *src, const char *cu_hint, const char *enum_name,
			idd_enumerator_fn fn, void *arg)
{
	(void)cu_hint;
	return idd_btf_enum(src, enum_name, fn, arg);
}

const struct idd_type_ops idd_btf_ops = {
	.close = source_close,
	.find_struct = source_struct,
	.find_struct_in_unit = source_struct_own,
	.member = source_member,
	.pointee = source_pointee,
	.enumerator = source_enumerator,
	.enum_values = source_enum,
	.member_enum = idd_btf_member_enum,
};

bool idd_btf_broken(const struct idd_btf *b)
{
	return b && b->broken;
}
