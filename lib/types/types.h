/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* types: struct layouts (DWARF, BTF) and symbols (vmlinux, modules). */
#ifndef IDD_TYPES_TYPES_H
#define IDD_TYPES_TYPES_H

#include <elfutils/libdw.h>

#include "core/error.h"

struct idd_target;

/* ---- types (dwarf.c): struct layouts from vmlinux DWARF, found lazily ---- */
struct idd_types;

struct inodedump_error *idd_types_open(const char *vmlinux,
				       struct idd_types **out);
void idd_types_close(struct idd_types *types);
/* The ELF handle of vmlinux (for its symbol table and notes). */
struct Elf *idd_types_elf(struct idd_types *types);
int idd_types_fd(struct idd_types *types); /* vmlinux, open for reading */
/* libkdumpfile's name for vmlinux's architecture ("x86_64"), or NULL. */
const char *idd_elf_arch(struct Elf *elf);

/* A complete struct/union definition. */
struct idd_struct {
	Dwarf_Die die;
	uint64_t size;
};

/* Find the complete definition of "struct name" (or union). */
struct inodedump_error *idd_types_struct(struct idd_types *types,
					 const char *name,
					 struct idd_struct *out);

/* Same, looking first in the CU whose file name ends with cu_hint. */
struct inodedump_error *idd_types_struct_in(struct idd_types *types,
					    const char *name,
					    const char *cu_hint,
					    struct idd_struct *out);
/*
 * Tell the type search which unit is cu_hint's: the one whose code covers
 * code_addr (a link-time address of a function defined in that file), as
 * .debug_aranges says. Saves a walk over every unit's name.
 */
void idd_types_anchor(struct idd_types *types, const char *cu_hint,
		      uint64_t code_addr);
/* The value of enumerator name, from the enums of the CU cu_hint. */
bool idd_types_enumerator(struct idd_types *types, const char *cu_hint,
			  const char *name, int64_t *value);

/*
 * Every enumerator of "enum enum_name" as the CU cu_hint defines it;
 * false when that unit has no such enum.
 */
typedef void (*idd_enumerator_fn)(const char *name, int64_t value, void *arg);
bool idd_types_enum(struct idd_types *types, const char *cu_hint,
		    const char *enum_name, idd_enumerator_fn fn, void *arg);

enum idd_kind {
	IDD_KIND_OTHER,
	IDD_KIND_INT,	 /* base types, enums, bool */
	IDD_KIND_PTR,
	IDD_KIND_STRUCT, /* struct or union */
	IDD_KIND_ARRAY,
};

struct idd_member {
	bool present;
	uint64_t offset;  /* bytes from the start of the outer struct */
	uint64_t size;	  /* bytes of the member's type */
	unsigned bit_size; /* 0 unless a bitfield */
	unsigned bit_offset; /* from offset, little-endian bit numbering */
	bool is_signed;
	enum idd_kind kind;
	Dwarf_Die type;	  /* peeled of typedefs and qualifiers */
};

/*
 * Member by a dotted path ("i_count.counter", "i_data.a_ops"), looking
 * through anonymous structs and unions. out->present is false when this
 * kernel's struct has no such member.
 */
void idd_types_member(struct idd_types *types, const struct idd_struct *s,
		      const char *path, struct idd_member *out);
/* The struct a pointer member points to (complete definition). */
struct inodedump_error *idd_types_pointee_struct(struct idd_types *types,
						 const struct idd_member *m,
						 struct idd_struct *out);
/*
 * Enumerators of the enum that is a member's type, or of the enum named
 * name. Calls fn for each; returns false if no such enum.
 */
bool idd_types_member_enum(const struct idd_member *m, idd_enumerator_fn fn,
			   void *arg);

/* Extract a member's integer value from a struct's bytes. */
uint64_t idd_member_uval(const struct idd_member *m, const uint8_t *buf);
int64_t idd_member_sval(const struct idd_member *m, const uint8_t *buf);

/* ---- symbols (symbols.c): address <-> name with KASLR applied ---- */
struct idd_symbols;

struct inodedump_error *idd_symbols_open(struct Elf *elf, int fd,
					 uint64_t kaslr_offset,
					 struct idd_symbols **out);
void idd_symbols_close(struct idd_symbols *syms);
void idd_symbols_set_kaslr(struct idd_symbols *syms, uint64_t kaslr_offset);
/*
 * *name: "name" or "name+0x10" for a runtime address, NULL when no symbol
 * covers it; malloc'd, the caller frees it.
 */
struct inodedump_error *idd_symbols_name(struct idd_symbols *syms,
					 uint64_t addr, char **name);
/* Many lookups ahead (a sweep): index the data symbols now. */
void idd_symbols_expect_many(struct idd_symbols *syms);
/*
 * The same for n <= 8 addresses at once: out[i] as *name above, the
 * caller frees each; on error every out[i] is NULL.
 */
struct inodedump_error *idd_symbols_names(struct idd_symbols *syms,
					  const uint64_t *addrs, size_t n,
					  char **out);
/* The runtime address of a symbol; false when vmlinux has none so named. */
bool idd_symbols_address(struct idd_symbols *syms, const char *name,
			 uint64_t *addr);
/*
 * Point the type search at cu_hint's unit through the first of functions
 * (each defined in that file) that vmlinux has, at its link-time address
 * (idd_types_anchor). Only makes later lookups faster.
 */
void idd_anchor(struct idd_types *types, struct idd_symbols *syms,
		const char *cu_hint, const char *const *functions);
/*
 * *hex: the GNU build-id note of vmlinux as lowercase hex, NULL when it
 * has none; malloc'd, the caller frees it.
 */
struct inodedump_error *idd_elf_build_id(struct Elf *elf, char **hex);

struct idd_btf;
struct idd_modules;

/*
 * btf.c: BTF from vmlinux's .BTF, else from the dump's memory (between
 * the symbols __start_BTF and __stop_BTF, read through t). *out is NULL
 * when neither has any; an error says why BTF that is there could not be
 * read (a fault names its address). Free with idd_btf_free().
 */
struct inodedump_error *idd_btf_load(struct idd_types *types,
				     struct idd_symbols *syms,
				     struct idd_target *t,
				     struct idd_btf **out);
void idd_btf_free(struct idd_btf *btf);
/*
 * A member's offset by dotted path, like idd_types_member(); false when
 * the BTF has no such struct or member (a pure lookup: it cannot fail).
 */
bool idd_btf_member(struct idd_btf *btf, const char *structname,
		    const char *path, struct idd_member *out);

/*
 * modules.c: the symbol of a loaded module that covers addr
 * ("ext4_sops", "ext4_sops+0x8") and its module's name, both malloc'd
 * (the caller frees them), or both NULL when no module symbol covers it.
 * The modules' symbol tables are read through t on the first call and
 * kept in *cache (free it with idd_modules_free()); a module list that
 * cannot be read whole leaves the modules read before the fault.
 */
struct inodedump_error *idd_module_symbol(struct idd_modules **cache,
					  struct idd_target *t,
					  struct idd_types *types,
					  struct idd_symbols *syms,
					  uint64_t addr, char **name,
					  char **module);
void idd_modules_free(struct idd_modules *mods);

#endif
