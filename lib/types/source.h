/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * types: what a type source gives the front door (types.c). One source
 * per format, each behind a struct idd_type_ops chosen once per session,
 * as the target's backends (target/backend.h) and libkdumpfile's
 * format_ops: dwarf.c (vmlinux DWARF through libdw) and btf_source.c (the
 * dump's BTF). Neither source calls the other; what both need (a member's
 * value from bytes) is member.c's. Not installed.
 */
#ifndef IDD_TYPES_SOURCE_H
#define IDD_TYPES_SOURCE_H

#include "types/types.h"

struct idd_type_ops {
	/* Free the source. */
	void (*close)(void *src);
	/*
	 * The complete "struct name" (or union), first in the unit whose
	 * file name ends with cu_hint (NULL: any) where units mean anything.
	 */
	struct inodedump_error *(*find_struct)(void *src, const char *name,
					       const char *cu_hint,
					       struct idd_struct *out);
	/*
	 * The same, looked for only in cu_hint's unit (a struct a module
	 * defines is in no unit of vmlinux: no walk of every unit to learn
	 * it; BTF: vmlinux's own, no module's). NULL: find_struct is asked.
	 */
	struct inodedump_error *(*find_struct_in_unit)(void *src,
						       const char *name,
						       const char *cu_hint,
						       struct idd_struct *out);
	/* A member by dotted path; out->present false when there is none. */
	void (*member)(void *src, const struct idd_struct *s, const char *path,
		       struct idd_member *out);
	/* The struct a pointer member points to. */
	struct inodedump_error *(*pointee)(void *src,
					   const struct idd_member *m,
					   struct idd_struct *out);
	/* An enumerator's value (idd_types_enumerator()). */
	bool (*enumerator)(void *src, const char *cu_hint,
			   const char *enum_hint, const char *name,
			   int64_t *value);
	/* Every enumerator of an enum by name (idd_types_enum()). */
	bool (*enum_values)(void *src, const char *cu_hint,
			    const char *enum_name, idd_enumerator_fn fn,
			    void *arg);
	/* Every enumerator of a member's enum type (m found by member). */
	bool (*member_enum)(const struct idd_member *m, idd_enumerator_fn fn,
			    void *arg);
	/* Where cu_hint's unit is (idd_types_anchor()); NULL: no units. */
	void (*anchor)(void *src, const char *cu_hint, uint64_t code_addr);
	/* Whether anchor() placed cu_hint's unit; NULL: no units. */
	bool (*anchored)(void *src, const char *cu_hint);
	/*
	 * Whether the unit cu_hint defines or inlines a function of that
	 * name (idd_types_function()); NULL: the source cannot tell.
	 */
	bool (*function)(void *src, const char *cu_hint, const char *name);
};

/* dwarf.c: types from vmlinux DWARF; the source is a struct idd_dwarf. */
struct idd_dwarf;
extern const struct idd_type_ops idd_dwarf_ops;
struct inodedump_error *idd_dwarf_open(const char *vmlinux,
				       const char *debug_root,
				       struct idd_dwarf **out);
struct Elf *idd_dwarf_elf(struct idd_dwarf *dw);
int idd_dwarf_fd(struct idd_dwarf *dw);
/* The per-kernel answers (dwarf_index.c) the symbols keep theirs in too. */
struct idd_dwx *idd_dwarf_answers(struct idd_dwarf *dw);
/* Whether those answers are kept in the cache for the next run. */
bool idd_dwarf_answers_kept(struct idd_dwarf *dw);
const char *idd_dwarf_alt_path(struct idd_dwarf *dw); /* NULL: none */

/* btf_source.c: types from BTF; the source is a struct idd_btf. */
extern const struct idd_type_ops idd_btf_ops;

#endif
