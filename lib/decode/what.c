// SPDX-License-Identifier: LGPL-2.1-or-later
/* inodedump_what(): the public face of slab.c, what an address is. */
#include <stdlib.h>
#include <string.h>

#include "decode/slab.h"

struct inodedump_error *inodedump_what(struct inodedump *id, uint64_t address,
				       struct inodedump_what **out)
{
	struct inodedump_what *w;
	struct inodedump_error *err;

	if (!id || !out)
		return idd_error(INODEDUMP_ERR_USAGE, "inodedump_what: NULL");
	if ((err = idd_session_need_types(id)))
		return err;
	w = calloc(1, sizeof(*w));
	if (!w)
		return idd_nomem();
	err = idd_slab_object(id, address, 0, &w->o);
	if (!err && w->o.ctor_addr) {
		/* the cache's name is gone: its constructor says what it is */
		char *sym = NULL, *mod = NULL;

		err = idd_session_symbol(id, w->o.ctor_addr, &sym, &mod);
		if (!err && sym)
			w->o.ctor = mod ? idd_strdup_printf("%s [%s]", sym, mod)
					: strdup(sym);
		if (err && !idd_error_is_nomem(err)) {
			inodedump_error_free(err);
			err = NULL;
		}
		free(sym);
		free(mod);
	}
	if (err) {
		inodedump_what_free(w);
		return err;
	}
	*out = w;
	return NULL;
}

void inodedump_what_free(struct inodedump_what *w)
{
	if (!w)
		return;
	idd_slab_obj_clear(&w->o);
	free(w);
}

bool inodedump_what_slab(const struct inodedump_what *w,
			 struct inodedump_slab_object *out)
{
	struct inodedump_slab_object s = { 0 };
	const struct idd_slab_obj *o = &w->o;
	size_t sz;

	if (!o->in_slab || !out || out->sz < offsetof(struct inodedump_slab_object, cache))
		return false;
	s.sz = out->sz;
	s.cache = o->name;
	s.cache_address = o->cache;
	s.object_size = o->object_size;
	s.stride = o->size;
	s.slab = o->slab;
	s.object = o->start;
	s.offset = o->offset;
	s.in_object = o->in_object;
	s.state = o->state;
	s.free_where = o->state == INODEDUMP_SLAB_FREE ? o->where : NULL;
	s.unknown_why = o->unknown;
	s.inode_fs = o->ic ? o->ic->fs : NULL;
	s.inode_type = o->ic ? (o->inode_type[0] ? o->inode_type : o->ic->type) : NULL;
	s.inode_offset = o->ic && o->inode_known ? (int64_t)o->inode_offset : -1;
	sz = out->sz < sizeof(s) ? out->sz : sizeof(s);
	memcpy(out, &s, sz);
	return true;
}

const char *inodedump_what_unread(const struct inodedump_what *w)
{
	return w ? w->o.unknown : NULL;
}

const char *inodedump_what_memory(const struct inodedump_what *w)
{
	return w && !w->o.in_slab ? w->o.page : NULL;
}
