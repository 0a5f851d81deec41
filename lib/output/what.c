// SPDX-License-Identifier: LGPL-2.1-or-later
/* What an address is (inodedump_what()), for a person and as JSON. */
#include <inttypes.h>
#include <stdio.h>

#include "decode/slab.h"
#include "output/output.h"

static const char *state_name(enum inodedump_slab_state s)
{
	switch (s) {
	case INODEDUMP_SLAB_ALLOCATED:
		return "allocated";
	case INODEDUMP_SLAB_FREE:
		return "free";
	default:
		return "unknown";
	}
}

void inodedump_what_print_text(const struct inodedump_what *w, FILE *out)
{
	const struct idd_slab_obj *o = &w->o;

	if (!o->in_slab) {
		fprintf(out, "0x%" PRIx64 "  %s: ", o->addr,
			o->unknown ? "in a slab object or not: not known"
				   : "in no slab object");
		idd_text_escape(out, o->page);
		fputc('\n', out);
		return;
	}
	if (o->name[0]) {
		fprintf(out, "0x%" PRIx64 "  in kmem_cache \"", o->addr);
		idd_text_escape(out, o->name);
		fprintf(out, "\" (0x%" PRIx64 ")\n", o->cache);
	} else {
		fprintf(out, "0x%" PRIx64 "  in kmem_cache 0x%" PRIx64
			" (its name unread", o->addr, o->cache);
		if (o->ctor) {
			fputs("; constructor ", out);
			idd_text_escape(out, o->ctor);
		}
		fputs(")\n", out);
	}
	if (o->in_object)
		fprintf(out, "  object     0x%" PRIx64 " + 0x%" PRIx64
			"  (object %" PRIu32 " of %" PRIu32 " in slab 0x%" PRIx64
			", object_size %" PRIu64 ", stride %" PRIu64 ")\n",
			o->start, o->offset, o->index, o->objects, o->slab,
			o->object_size, o->size);
	else
		fprintf(out, "  object     none: in the padding of slab 0x%" PRIx64
			" (%" PRIu32 " objects of stride %" PRIu64 ")\n",
			o->slab, o->objects, o->size);
	fprintf(out, "  state      %s", state_name(o->state));
	if (o->state == INODEDUMP_SLAB_FREE)
		fprintf(out, " (%s): a freed object", o->where);
	else if (o->state == INODEDUMP_SLAB_ALLOCATED)
		fputs(" (on no freelist and in no sheaf)", out);
	fputc('\n', out);
	if (o->unknown) {
		fputs("  unread     ", out);
		idd_text_escape(out, o->unknown);
		fputc('\n', out);
	}
	if (!o->ic) {
		if (o->in_object && o->name[0])
			fputs("  inode      none: this cache holds no inodes\n", out);
		return;
	}
	fprintf(out, "  inode      a cache of %s%s inodes (struct %s)", 
		o->ic->fs ? o->ic->fs : "the VFS's own", o->ic->fs ? "" : "",
		(o->inode_type[0] ? o->inode_type : o->ic->type));
	if (!o->inode_known) {
		fputs(", where the inode is in it is not known: ", out);
		idd_text_escape(out, o->inode_why);
		fputc('\n', out);
		return;
	}
	fprintf(out, ": its inode is 0x%" PRIx64 " (+0x%" PRIx64 ")",
		o->start + o->inode_offset, o->inode_offset);
	if (o->offset == o->inode_offset)
		fputs(", this address", out);
	else
		fprintf(out, ", not this address (%+" PRId64 " bytes from it)",
			(int64_t)(o->addr - (o->start + o->inode_offset)));
	fputc('\n', out);
}

void idd_json_what(struct idd_json *j, const struct inodedump_what *w)
{
	const struct idd_slab_obj *o = &w->o;

	idd_json_object(j, IDD_JSON_LINES);
	idd_json_key(j, "address");
	idd_json_hex(j, o->addr);
	idd_json_key(j, "slab");
	if (!o->in_slab) {
		idd_json_null(j);
		idd_json_key(j, "memory");
		idd_json_string(j, o->page);
		idd_json_end(j);
		return;
	}
	idd_json_object(j, IDD_JSON_LINES);
	idd_json_key(j, "cache");
	idd_json_string(j, o->name[0] ? o->name : NULL);
	idd_json_key(j, "cache_address");
	idd_json_hex(j, o->cache);
	idd_json_key(j, "ctor");
	idd_json_string(j, o->ctor);
	idd_json_key(j, "object_size");
	idd_json_u64(j, o->object_size);
	idd_json_key(j, "stride");
	idd_json_u64(j, o->size);
	idd_json_key(j, "slab");
	idd_json_hex(j, o->slab);
	idd_json_key(j, "objects");
	idd_json_u64(j, o->objects);
	idd_json_key(j, "object");
	if (o->in_object)
		idd_json_hex(j, o->start);
	else
		idd_json_null(j);
	idd_json_key(j, "index");
	if (o->in_object)
		idd_json_u64(j, o->index);
	else
		idd_json_null(j);
	idd_json_key(j, "offset");
	if (o->in_object)
		idd_json_u64(j, o->offset);
	else
		idd_json_null(j);
	idd_json_key(j, "state");
	idd_json_string(j, state_name(o->state));
	idd_json_key(j, "free_where");
	idd_json_string(j, o->state == INODEDUMP_SLAB_FREE ? o->where : NULL);
	idd_json_key(j, "unread");
	idd_json_string(j, o->unknown);
	idd_json_key(j, "inode");
	if (!o->ic) {
		idd_json_null(j);
	} else {
		idd_json_object(j, IDD_JSON_INLINE);
		idd_json_key(j, "fs");
		idd_json_string(j, o->ic->fs);
		idd_json_key(j, "type");
		idd_json_string(j, (o->inode_type[0] ? o->inode_type : o->ic->type));
		idd_json_key(j, "offset");
		if (o->inode_known)
			idd_json_u64(j, o->inode_offset);
		else
			idd_json_null(j);
		idd_json_key(j, "address");
		if (o->inode_known)
			idd_json_hex(j, o->start + o->inode_offset);
		else
			idd_json_null(j);
		idd_json_key(j, "offset_unknown_why");
		idd_json_string(j, o->inode_why);
		idd_json_end(j);
	}
	idd_json_end(j);
	idd_json_key(j, "memory");
	idd_json_null(j);
	idd_json_end(j);
}

void inodedump_what_print_json(const struct inodedump_what *w, FILE *out)
{
	struct idd_json j;

	idd_json_init(&j, out, false, 0);
	idd_json_what(&j, w);
}

void inodedump_what_print_jsonl(const struct inodedump_what *w, FILE *out)
{
	struct idd_json j;

	idd_json_init(&j, out, true, 0);
	idd_json_what(&j, w);
}
