/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core: notes, the named messages a decode and the checks leave on a
 * decoded inode (violations, skipped checks, what could not be read), and
 * the parts of it left incomplete (notes.c). Their memory is the owner's
 * arena; nothing here knows what the owner is.
 */
#ifndef IDD_CORE_NOTES_H
#define IDD_CORE_NOTES_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"

struct idd_note {
	char *name;   /* check name, or the part that could not be read */
	char *message;
	bool has_address;
	uint64_t address;
	bool borrowed; /* name and message are static strings: not freed */
};

struct idd_notes {
	struct idd_note *v;
	size_t n, cap;
};

/* How many part bits (INODEDUMP_PART_*) keep their first note. */
#define IDD_INCOMPLETE_PARTS 3

/*
 * The parts asked that could not be read (INODEDUMP_PART_* bits), and for
 * each (by bit number) its first note in the errors list, plus one.
 */
struct idd_incomplete {
	unsigned int parts;
	size_t note[IDD_INCOMPLETE_PARTS];
};

/*
 * Add a note; NULL on success, the error (out of memory) when it could
 * not be added. The note list is unchanged then.
 */
struct inodedump_error *idd_notes_add(struct idd_arena *arena,
				      struct idd_notes *notes,
				      const char *name, bool has_address,
				      uint64_t address, const char *fmt, ...)
	IDD_ATTR_PRINTF(6, 7);

/*
 * The same for a note whose name and message are static strings (a
 * check skipped on this kernel: the same note on every inode), kept as
 * pointers.
 */
struct inodedump_error *idd_notes_add_static(struct idd_arena *arena,
					     struct idd_notes *notes,
					     const char *name,
					     const char *message);

/*
 * A part asked of the decode (an INODEDUMP_PART_* bit) that could not be
 * read: a note in errors, and the part marked in inc. NULL on success, the
 * error (out of memory) when the note could not be added.
 */
struct inodedump_error *idd_notes_add_incomplete(struct idd_arena *arena,
						 struct idd_notes *errors,
						 struct idd_incomplete *inc,
						 unsigned int part,
						 const char *name,
						 bool has_address,
						 uint64_t address,
						 const char *fmt, ...)
	IDD_ATTR_PRINTF(8, 9);

/* The same for a read that failed: err's message and address (consumed). */
struct inodedump_error *idd_notes_add_error_incomplete(
	struct idd_arena *arena, struct idd_notes *errors,
	struct idd_incomplete *inc, unsigned int part, const char *what,
	struct inodedump_error *err);

/* The message of part's first note in errors, or NULL when it has none. */
const char *idd_incomplete_reason(const struct idd_incomplete *inc,
				  const struct idd_notes *errors,
				  unsigned int part);

/* Free the notes' strings and array (what the arena did not give). */
void idd_notes_free(const struct idd_arena *arena, struct idd_notes *notes);

#endif
