/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * types: what the DWARF files share. dwarf.c (the type source) asks
 * dwarf_unit.c to look through one unit and dwarf_member.c for a member
 * of an aggregate, and keeps per vmlinux build-id in the cache what a run
 * should not pay for again:
 * - dwarf_inflate.c: which DWARF a vmlinux has (struct idd_dwarf_id), and
 *   its compressed .debug_* sections inflated once into the cache, so the
 *   next run maps them instead of inflating them all at dwarf_begin_elf;
 * - dwarf_index.c: every answer a session needed of the DWARF by name
 *   (units, structs, enums, enumerators, functions -> header or DIE
 *   offsets or values, found or not), of the layouts (sizes, members,
 *   pointees, enumerators by DIE reference) and of vmlinux's symbol table
 *   (symbols.c), so that each is looked for once per kernel, not once a
 *   run: a warm decode reads no DIE and scans no symbol.
 * Both are valid for a DWARF whatever its compression, and checked on open
 * as untrusted input. Not installed.
 */
#ifndef IDD_TYPES_DWARF_INTERNAL_H
#define IDD_TYPES_DWARF_INTERNAL_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * Which DWARF a vmlinux has, for a cached file to be valid for it: its
 * build-id and a fingerprint of its .debug_* sections (names and inflated
 * sizes; the build-id's hash covers their contents at link time). Not its
 * mtime: a copy, or the same file with its sections inflated by objcopy,
 * has the same DIE offsets.
 */
struct idd_dwarf_id {
	char *build_id;		/* hex, malloc'd; NULL: none, no cache */
	uint64_t fingerprint;
	bool compressed;	/* a .debug_* section is (SHF_COMPRESSED) */
	uint64_t inflated_size; /* of the sections the copy keeps */
};

/* dwarf_unit.c: one unit's top-level entries, by name */
bool idd_dwu_is_complete(Dwarf_Die *die); /* a definition, with members */
/* The first complete struct or union of that name. */
bool idd_dwu_struct(Dwarf_Die *cudie, const char *name, Dwarf_Die *out);
/* The first enum of that name with enumerators: its DIE (idd_dwu_ref). */
bool idd_dwu_enum(Dwarf_Die *cudie, const char *enum_name, int64_t *at);
/*
 * A DIE as the index keeps it: its offset, with IDD_DWU_ALT when it is in
 * the supplementary file (dwz, dwarf_alt.c), not main's; and back.
 */
#define IDD_DWU_ALT ((int64_t)1 << 62)
int64_t idd_dwu_ref(Dwarf *main, Dwarf_Die *die);
bool idd_dwu_at(Dwarf *main, int64_t ref, Dwarf_Die *out);
/* An enumerator of any of the unit's enums (one namespace a unit). */
bool idd_dwu_enumerator(Dwarf_Die *cudie, const char *name, int64_t *value);
bool idd_dwu_enumerator_value(Dwarf_Die *type, Dwarf_Die *e, int64_t *out);
/* A subprogram of that name (defined, or the abstract one inlined). */
bool idd_dwu_function(Dwarf_Die *cudie, const char *name, int64_t *unused);
bool idd_dwu_unit_die(Dwarf *dw, Dwarf_Off off, Dwarf_Die *out);
/* The unit covering a code address, from elf's .debug_aranges. */
bool idd_dwu_aranges(Elf *elf, uint64_t addr, Dwarf_Off *cu);
/*
 * Without an index: every unit walked (from *resume for a struct); units
 * non-NULL: at most that many, *units left (0: the walk was cut short).
 */
bool idd_dwu_walk_struct(Dwarf *dw, Dwarf_Off *resume, const char *name,
			 size_t *units, Dwarf_Die *out);
bool idd_dwu_walk_unit(Dwarf *dw, const char *suffix, Dwarf_Off *cu);

/* dwarf_member.c: an aggregate's members, from its DIEs */
struct idd_dwarf;
struct idd_member;
/*
 * An aggregate's direct members in order, read once: a layout asks for
 * ~60 members of struct inode, and walking the DIEs with dwarf_diename
 * for each lookup cost more than the rest of the layout.
 */
struct idd_dwm_entry {
	const char *name; /* NULL: an anonymous member, searched inside */
	size_t len;
	Dwarf_Die die;    /* the member */
	Dwarf_Die type;   /* anonymous members: their aggregate type */
	uint64_t loc;
};

struct idd_dwm_table {
	const void *agg; /* the aggregate's DIE (vmlinux's or the alt file's) */
	struct idd_dwm_entry *m;
	size_t n;
};

#define IDD_DWM_TABLES 64

/* One DWARF's member tables (dwarf.c's, zeroed at its open). */
struct idd_dwm {
	struct idd_dwm_table tables[IDD_DWM_TABLES];
	size_t ntables;
};
/*
 * A member of agg by dotted path into *out (zeroed by the caller; left
 * absent when not found): its offset, its type described (a reference by
 * idd_dwu_ref(dw, ...)), a bitfield placed in elf's byte order; the
 * member is of the source types (out->dwarf).
 */
void idd_dwm_read(struct idd_dwm *m, struct idd_dwarf *types, Dwarf *dw,
		  Elf *elf, Dwarf_Die agg, const char *path,
		  struct idd_member *out);
/* A member's (or pointer's) type, typedefs and qualifiers peeled. */
bool idd_dwm_member_type(Dwarf_Die *member, Dwarf_Die *out);
bool idd_dwm_is_aggregate(int tag); /* a struct or a union */
void idd_dwm_free(struct idd_dwm *m);

/* dwarf_inflate.c */
void idd_dwarf_id_of(Elf *elf, struct idd_dwarf_id *out);
void idd_dwarf_id_free(struct idd_dwarf_id *id);
/*
 * vmlinux's DWARF sections inflated (CACHE_DIR/dwarf.elf), made on the
 * first run from the vmlinux open as fd: NULL when there is none to be had
 * (*note malloc'd when a user should know why: it was damaged, or the
 * cache cannot be written). *fd_out is the copy's, to close after
 * elf_end().
 */
Elf *idd_dwarf_inflated(Elf *vmlinux, int fd, const struct idd_dwarf_id *id,
			const char *cache_dir, const char *file, int *fd_out,
			char **note);
#define IDD_DWARF_COPY "dwarf.elf"	/* vmlinux's */
#define IDD_DWARF_ALT_COPY "dwz.elf"	/* its dwz supplementary file's */
/* 64-bit hash of bytes, chained through seed (also the index's checksum). */
uint64_t idd_dwarf_hash(uint64_t seed, const void *data, size_t size);

/* dwarf_alt.c: the supplementary file of a vmlinux compressed by dwz -m */
struct idd_dwarf_alt {
	char *name;	/* as .gnu_debugaltlink names it */
	char *build_id; /* hex, as the link names it (and the file has) */
	char *path;	/* where it was found */
	int fd, dw_fd;
	Elf *elf, *dw_elf; /* the file; its inflated copy, if any */
	Dwarf *dwarf;
	struct idd_dwarf_id id;
};
/*
 * vmlinux's supplementary file found (below root; NULL: /) and checked:
 * *out NULL when vmlinux has no .gnu_debugaltlink; an error naming the
 * paths looked at and what each held when no file has its build-id.
 */
struct inodedump_error *idd_dwarf_alt_find(Elf *elf, const char *vmlinux,
					   const char *root,
					   struct idd_dwarf_alt **out);
/* Its DWARF begun, from its copy inflated in cache_dir if compressed. */
struct inodedump_error *idd_dwarf_alt_begin(struct idd_dwarf_alt *alt,
					    const char *cache_dir,
					    char **note);
void idd_dwarf_alt_close(struct idd_dwarf_alt *alt);

/* dwarf_index.c */
/* What a session asked of the DWARF by name, remembered: idd_dwx_recall(). */
enum idd_dwx_question {
	/* cu 0; value: the unit's header offset */
	IDD_DWX_UNIT = 1,	 /* the first unit whose name ends so */
	/* cu 0; value: the DIE's offset */
	IDD_DWX_ANY_STRUCT,	 /* a complete struct in any unit */
	IDD_DWX_UNIT_STRUCT,	 /* value: the DIE's offset */
	IDD_DWX_UNIT_ENUM,	 /* value: the enum type's DIE offset */
	IDD_DWX_UNIT_ENUMERATOR, /* value: the enumerator's value */
	IDD_DWX_UNIT_FUNCTION,	 /* value: unused */
	IDD_DWX_UNIT_NAMED,	 /* whether the unit's name ends so */
	/*
	 * Layouts, so that a run whose questions were all asked before
	 * reads no DIE (libdw, to reach a DIE, reads the header of every
	 * unit before it: 33 MB of Debian 6.12's .debug_info mapped for one
	 * decode). cu: a DIE's reference (dwarf.c's die_ref()), name "".
	 */
	IDD_DWX_SIZE,		 /* an aggregate's size */
	IDD_DWX_MEMBER,		 /* name: the dotted path; value: offset;
				  * aux[0]: the type's reference; aux[1]:
				  * size, bits, bit offset, sign, kind */
	IDD_DWX_POINTEE,	 /* a pointer type: value, the struct's ref */
	IDD_DWX_ENUM_COUNT,	 /* whether an enum type; value: how many */
	IDD_DWX_ENUM_AT,	 /* name: the position "0", "1", ...;
				  * value, aux_name: the enumerator */
	/*
	 * vmlinux's symbol table (symbols.c), which the build-id covers as
	 * it covers the DWARF: a decode that names what an earlier one named
	 * scans none of its ~150,000 symbols (11 M instructions, 8 MB).
	 */
	IDD_DWX_SYM_ADDR,	 /* name: a symbol; value: its link address */
	IDD_DWX_SYM_NAME,	 /* cu: a link address, name ""; aux_name:
				  * what names it (name or name+0x..) */
	IDD_DWX_SYM_DATA,	 /* the same, data objects only (one pass
				  * naming operations tables together) */
	IDD_DWX_ARANGE,		 /* cu: a code address; value: the unit
				  * .debug_aranges puts it in */
	IDD_DWX_QUESTIONS	 /* (how many, plus one) */
};

/* An answer in full (the layouts' questions use aux and aux_name). */
struct idd_dwx_answer {
	bool found;
	int64_t value;
	uint64_t aux[2];
	const char *aux_name; /* NULL: none */
};

struct idd_dwx;

/*
 * The index of the DWARF id names: cache_dir's if it is valid for id, else
 * an empty one, stored there when closed (cache_dir NULL: kept for this
 * session only). NULL: no memory. *note (malloc'd) says why an index on
 * disk was not used.
 */
struct idd_dwx *idd_dwx_open(const struct idd_dwarf_id *id,
			     const char *cache_dir, char **note);
/* Whether the index came from the cache (true) or was made (false). */
bool idd_dwx_from_cache(const struct idd_dwx *x);
/* Whether what is learned is kept for the next run (a cache directory). */
bool idd_dwx_kept(const struct idd_dwx *x);
/* An answer remembered: true when known (*found, and *value if found). */
bool idd_dwx_recall(const struct idd_dwx *x, enum idd_dwx_question q,
		    Dwarf_Off cu, const char *name, bool *found,
		    int64_t *value);
void idd_dwx_remember(struct idd_dwx *x, enum idd_dwx_question q, Dwarf_Off cu,
		      const char *name, bool found, int64_t value);
bool idd_dwx_recall_answer(const struct idd_dwx *x, enum idd_dwx_question q,
			   Dwarf_Off cu, const char *name,
			   struct idd_dwx_answer *out);
/* The first answer to a question is kept; a later one is dropped. */
void idd_dwx_remember_answer(struct idd_dwx *x, enum idd_dwx_question q,
			     Dwarf_Off cu, const char *name,
			     const struct idd_dwx_answer *a);
/* Free; what was learned since the open is stored first (*note: why not). */
void idd_dwx_close(struct idd_dwx *x, char **note);

#endif
