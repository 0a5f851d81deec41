// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Notes: the named messages left on a decoded inode (by the decode, its
 * walks and the checks), in its arena, and the parts marked incomplete.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/notes.h"

/* Room for one more note; false: out of memory. */
static bool notes_grow(struct idd_arena *arena, struct idd_notes *notes)
{
	size_t cap = notes->cap ? 2 * notes->cap : 4;
	struct idd_note *v;

	if (notes->n < notes->cap)
		return true;
	v = idd_arena_alloc(arena, cap * sizeof(*v));
	if (!v)
		return false;
	if (notes->n)
		memcpy(v, notes->v, notes->n * sizeof(*v));
	idd_arena_release(arena, notes->v);
	notes->v = v;
	notes->cap = cap;
	return true;
}

struct inodedump_error *idd_notes_add_static(struct idd_arena *arena,
					     struct idd_notes *notes,
					     const char *name,
					     const char *message)
{
	if (!notes_grow(arena, notes))
		return idd_nomem();
	/* never written through: idd_notes_free() leaves borrowed ones */
	notes->v[notes->n++] = (struct idd_note){ .name = (char *)name,
						  .message = (char *)message,
						  .borrowed = true };
	return NULL;
}

/* idd_notes_add() with the message's arguments as a va_list. */
static struct inodedump_error *notes_addv(struct idd_arena *arena,
					  struct idd_notes *notes,
					  const char *name, bool has_address,
					  uint64_t address, const char *fmt,
					  va_list ap)
{
	bool room = notes_grow(arena, notes);
	char *msg = NULL, *copy = idd_arena_strdup(arena, name);
	struct idd_note *v;

	if (!strcmp(fmt, "%s")) { /* the checks' notes: no printf for a copy */
		msg = idd_arena_strdup(arena, va_arg(ap, const char *));
	} else if (vasprintf(&msg, fmt, ap) < 0) {
		msg = NULL;
	} else {
		char *in = idd_arena_strdup(arena, msg);

		free(msg);
		msg = in;
	}
	if (!room || !msg || !copy) {
		idd_arena_release(arena, msg);
		idd_arena_release(arena, copy);
		return idd_nomem();
	}
	v = notes->v;
	v[notes->n].borrowed = false;
	v[notes->n].name = copy;
	v[notes->n].message = msg;
	v[notes->n].has_address = has_address;
	v[notes->n].address = address;
	notes->n++;
	return NULL;
}

struct inodedump_error *idd_notes_add(struct idd_arena *arena,
				      struct idd_notes *notes,
				      const char *name, bool has_address,
				      uint64_t address, const char *fmt, ...)
{
	struct inodedump_error *err;
	va_list ap;

	va_start(ap, fmt);
	err = notes_addv(arena, notes, name, has_address, address, fmt, ap);
	va_end(ap);
	return err;
}

struct inodedump_error *idd_notes_add_incomplete(struct idd_arena *arena,
						 struct idd_notes *errors,
						 struct idd_incomplete *inc,
						 unsigned int part,
						 const char *name,
						 bool has_address,
						 uint64_t address,
						 const char *fmt, ...)
{
	unsigned int bit = (unsigned int)__builtin_ctz(part);
	struct inodedump_error *failed;
	char *msg;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return idd_nomem();
	failed = idd_notes_add(arena, errors, name, has_address, address, "%s",
			       msg);
	free(msg);
	if (failed)
		return failed;
	if (!(inc->parts & part))
		inc->note[bit] = errors->n;
	inc->parts |= part;
	return NULL;
}

const char *idd_incomplete_reason(const struct idd_incomplete *inc,
				  const struct idd_notes *errors,
				  unsigned int part)
{
	size_t at;

	if (!(inc->parts & part))
		return NULL;
	at = inc->note[__builtin_ctz(part)];
	return at && at <= errors->n ? errors->v[at - 1].message : NULL;
}

void idd_notes_free(const struct idd_arena *arena, struct idd_notes *notes)
{
	for (size_t i = 0; i < notes->n; i++) {
		if (notes->v[i].borrowed)
			continue;
		idd_arena_release(arena, notes->v[i].name);
		idd_arena_release(arena, notes->v[i].message);
	}
	idd_arena_release(arena, notes->v);
	*notes = (struct idd_notes){ 0 };
}

struct inodedump_error *idd_notes_add_error_incomplete(
	struct idd_arena *arena, struct idd_notes *errors,
	struct idd_incomplete *inc, unsigned int part, const char *what,
	struct inodedump_error *err)
{
	uint64_t addr = 0;
	bool has = inodedump_error_address(err, &addr);
	struct inodedump_error *failed;

	failed = idd_notes_add_incomplete(arena, errors, inc, part, what, has,
					  addr, "%s",
					  inodedump_error_message(err));
	inodedump_error_free(err);
	return failed;
}
