/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private interfaces between the parts of libinodedump (see DESIGN.md). */
#ifndef INODEDUMP_INTERNAL_H
#define INODEDUMP_INTERNAL_H

#include <elfutils/libdw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inodedump.h"

#define IDD_ATTR_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- errors (error.c) ---- */
struct inodedump_error {
	enum inodedump_error_code code;
	bool has_address;
	uint64_t address;
	char *message;
};

struct inodedump_error *idd_error(enum inodedump_error_code code,
				  const char *fmt, ...) IDD_ATTR_PRINTF(2, 3);
struct inodedump_error *idd_error_at(enum inodedump_error_code code,
				     uint64_t address, const char *fmt, ...)
	IDD_ATTR_PRINTF(3, 4);
/* Prefix an error's message with context ("reading i_sb: ..."). */
struct inodedump_error *idd_error_wrap(struct inodedump_error *err,
				       const char *fmt, ...)
	IDD_ATTR_PRINTF(2, 3);
struct inodedump_error *idd_nomem(void);
char *idd_strdup_printf(const char *fmt, ...) IDD_ATTR_PRINTF(1, 2);

/* ---- target (target.c): the dump's memory and VMCOREINFO ---- */
struct idd_target;

struct inodedump_error *idd_target_open(const char *path,
					struct idd_target **out);
/* Kernel memory held in a buffer: [start, start + size). */
struct idd_memory_region {
	uint64_t start;
	const uint8_t *data;
	size_t size;
};
/* A target over buffers (tests, fuzzers); regions must outlive it. */
struct inodedump_error *idd_target_open_memory(
	const struct idd_memory_region *regions, size_t n,
	const char *vmcoreinfo, struct idd_target **out);
bool idd_target_is_memory(const struct idd_target *t);
/* Who reads the file ("inodedump", "libkdumpfile", "memory") and who
 * translates addresses; reads libkdumpfile did because ours could not. */
const char *idd_target_reader(const struct idd_target *t);
const char *idd_target_translation(struct idd_target *t);
unsigned long idd_target_fallbacks(const struct idd_target *t);
/* For tests: a physical read, and our page-table walk alone. */
bool idd_target_read_phys(struct idd_target *t, uint64_t pa, void *buf,
			  size_t len);
bool idd_target_walk(struct idd_target *t, uint64_t va, uint64_t *pa);
/* A session over a target already open; takes ownership of it. */
struct inodedump_error *idd_open_target(struct idd_target *target,
					const char *vmlinux,
					struct inodedump **out);
/* Name the architecture when the dump's header does not. */
void idd_target_default_arch(struct idd_target *t, const char *arch);
const char *idd_target_arch(struct idd_target *t);
uint64_t idd_target_page_size(struct idd_target *t);
/* The release from the dump's header (utsname), or NULL. */
const char *idd_target_uts_release(struct idd_target *t);
void idd_target_close(struct idd_target *t);
/* Read len bytes of kernel virtual memory; all or an error naming why. */
struct inodedump_error *idd_target_read(struct idd_target *t, uint64_t addr,
					void *buf, size_t len);
/* A 64-bit value (a pointer, a list link) at addr. */
struct inodedump_error *idd_target_read_u64(struct idd_target *t,
					    uint64_t addr, uint64_t *out);
/*
 * Read a NUL-terminated string of at most max bytes. *truncated says the
 * bound was hit before a NUL. The result is malloc'd.
 */
struct inodedump_error *idd_target_read_string(struct idd_target *t,
					       uint64_t addr, size_t max,
					       char **out, bool *truncated);
/* A VMCOREINFO value ("OSRELEASE", "KERNELOFFSET", "SYMBOL(prb)"), or NULL. */
const char *idd_target_vmcoreinfo(struct idd_target *t, const char *key);
const char *idd_target_format(struct idd_target *t);
/* makedumpfile's dump level (-d), or -1 when the format has none. */
int idd_target_dump_level(struct idd_target *t);
bool idd_target_little_endian(struct idd_target *t);

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
typedef void (*idd_enumerator_fn)(const char *name, int64_t value, void *arg);
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
/* "name" or "name+0x10" for a runtime address; NULL when none. malloc'd. */
char *idd_symbols_name(struct idd_symbols *syms, uint64_t addr);
/* Many lookups ahead (a sweep): index the data symbols now. */
void idd_symbols_expect_many(struct idd_symbols *syms);
/* The same for n <= 8 addresses at once; out[i] malloc'd or NULL. */
void idd_symbols_names(struct idd_symbols *syms, const uint64_t *addrs,
		       size_t n, char **out);
bool idd_symbols_address(struct idd_symbols *syms, const char *name,
			 uint64_t *addr);
/* The GNU build-id note of vmlinux as lowercase hex, or NULL. malloc'd. */
char *idd_elf_build_id(struct Elf *elf);

/* ---- bounded walks (visited.c) ---- */
struct idd_visited {
	uint64_t *slots; /* open addressing; 0 is empty (never a node) */
	size_t cap, n;
};

/* Remember addr; true if it was seen before (the list loops). */
bool idd_visit(struct idd_visited *v, uint64_t addr);
void idd_visited_free(struct idd_visited *v);

/* ---- VFS knowledge (vfs_types.c) ---- */
struct idd_flag {
	const char *name;
	uint64_t value;
};

/* Kernel version as KERNEL_VERSION(a,b,c). */
#define IDD_KVER(a, b, c) (((a) << 16) + ((b) << 8) + (c))
uint32_t idd_parse_release(const char *osrelease);

struct idd_vfs_evidence {
	uint32_t version;
	bool has_linklen; /* struct inode has i_linklen */
};

/* IOP_* and S_* flags this kernel knows, from versioned tables. */
size_t idd_vfs_iop_flags(const struct idd_vfs_evidence *ev,
			 struct idd_flag *out, size_t max);
size_t idd_vfs_inode_flags(const struct idd_vfs_evidence *ev,
			   struct idd_flag *out, size_t max);
size_t idd_vfs_state_flags(const struct idd_vfs_evidence *ev,
			   struct idd_flag *out, size_t max);
/* "IOP_LOOKUP|IOP_XATTR|0x100" style list into a malloc'd NULL-ended array. */
char **idd_flag_names(const struct idd_flag *table, size_t n, uint64_t value);
const char *idd_mode_type_name(unsigned mode); /* "regular", ..., "invalid" */
void idd_mode_string(unsigned mode, char out[11]); /* "-rwsr-xr-x" */

/* ---- the session (inodedump.c) ---- */
struct layout;
struct idd_modules;
struct path_layout;
struct sym_memo;
struct idd_btf;

/*
 * dumpfile.c: our reader of compressed kdump and x86-64 ELF dumps by
 * physical address; NULL from open means "not ours, use libkdumpfile".
 */
struct idd_dumpfile;
struct idd_dumpfile *idd_dumpfile_open(int fd);
void idd_dumpfile_close(struct idd_dumpfile *d);
bool idd_dumpfile_read(struct idd_dumpfile *d, uint64_t pa, void *buf,
		       size_t len);
const char *idd_dumpfile_format(const struct idd_dumpfile *d);
const char *idd_dumpfile_arch(const struct idd_dumpfile *d);
const char *idd_dumpfile_release(const struct idd_dumpfile *d);
const char *idd_dumpfile_vmcoreinfo(const struct idd_dumpfile *d);
uint32_t idd_dumpfile_page_size(const struct idd_dumpfile *d);

/* btf.c: BTF from vmlinux's .BTF, else from the dump's memory; NULL if none. */
struct idd_btf *idd_btf_load(struct inodedump *id);
void idd_btf_free(struct idd_btf *btf);
/* A member's offset by dotted path, like idd_types_member(). */
bool idd_btf_member(struct idd_btf *btf, const char *structname,
		    const char *path, struct idd_member *out);

/* modules.c: a module symbol covering addr ("ext4_sops"), its module. */
char *idd_module_symbol(struct inodedump *id, uint64_t addr, char **module);
void idd_modules_free(struct idd_modules *mods);

struct inodedump {
	struct idd_target *target;
	struct idd_types *types;
	struct idd_symbols *syms;
	char *vmlinux;
	char *vmlinux_source; /* "given with -k", "found by ..." */
	char *build_id_vmlinux;
	char *kaslr_text, *dump_level_text, *page_size_text;
	uint64_t kaslr;
	bool kaslr_from_vmcoreinfo; /* KERNELOFFSET, not derived */
	uint32_t version;
	struct layout *layout;
	struct idd_modules *modules; /* loaded on first use */
	struct path_layout *paths_layout;
	struct idd_holders *holders; /* one task walk per session */
	struct sym_memo *sym_memo;   /* address -> symbol answers */
	struct idd_btf *btf;	     /* loaded on first use */
	bool btf_tried;
	struct sb_memo {	     /* the last superblock decoded */
		uint64_t addr;
		char *s_id, *fs_type, *s_op_symbol, *s_op_module;
		int64_t s_dev, s_magic;
		uint64_t s_op;
		bool valid, has_dev, has_magic, has_op;
	} sb_memo;
};

struct inodedump_inode;
/* inodedump.c: the decode, also handing back i_sb_list.next from its bytes. */
struct inodedump_error *idd_decode(struct inodedump *id, uint64_t address,
				   unsigned int flags,
				   struct inodedump_inode **out,
				   uint64_t *sb_list_next);
struct inodedump_error *idd_layout_ready(struct inodedump *id);
/* Point the type search at cu_hint's unit via one of its functions. */
void idd_anchor(struct inodedump *id, const char *cu_hint,
		const char *const *functions);
/* paths.c: fill ino->paths from its dentry aliases and the mount tree. */
void idd_decode_paths(struct inodedump *id, struct inodedump_inode *ino);
/* holders.c: the tasks holding ino open, or as cwd/root. */
struct idd_holders;
void idd_decode_holders(struct inodedump *id, struct inodedump_inode *ino);
void idd_holders_free(struct idd_holders *hs);

#endif
