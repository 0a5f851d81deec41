/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target: one architecture's page-table walk behind one ops table (one
 * file each: x86_64.c, aarch64.c, ppc64.c, s390x.c), chosen from the dump (the name its
 * header gives the machine, its ELF machine, or what VMCOREINFO holds),
 * never from the host. A walk reads page tables by physical address
 * through the target's reader and takes its root and the kernel's
 * address-space facts from VMCOREINFO; it calls nothing else of the
 * target, so a new architecture is a file and a row in arch.c.
 */
#ifndef IDD_TARGET_ARCH_H
#define IDD_TARGET_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/aarch64.h"
#include "target/ppc64.h"
#include "target/s390x.h"
#include "target/target.h"
#include "target/x86_64.h"

struct idd_vmcoreinfo;

/* What a walk may use of the dump. */
struct idd_walk_env {
	const struct idd_vmcoreinfo *info;
	/* Bytes at a physical address, all or false. */
	bool (*read_phys)(void *arg, uint64_t pa, void *buf, size_t len);
	void *arg;
};

/* One walk's state, whichever architecture's. */
union idd_arch_walk {
	struct idd_x86_64_walk x86_64;
	struct idd_aarch64_walk aarch64;
	struct idd_ppc64_walk ppc64;
	struct idd_s390x_walk s390x;
};

struct idd_arch_ops {
	const char *name; /* libkdumpfile's name of it ("x86_64") */
	/* Other names a dump header gives the machine, NULL-ended. */
	const char *const *aliases;
	uint16_t elf_machine; /* EM_* of its ELF cores and its vmlinux */
	/* Its kernels' byte order (s390x) and so its page tables'. */
	bool big_endian;
	/*
	 * User space is an address space of its own (s390x: the kernel's
	 * is at 0 up), so no unmapped kernel address is said to be a user's.
	 */
	bool own_user_space;
	/* The page sizes it walks, ORed (powers of two; little-endian). */
	uint64_t page_sizes;
	/*
	 * Whether an ELF dump without a VMCOREINFO note is looked through
	 * for the kernel's own (QEMU's ELF of a machine without fw_cfg).
	 */
	bool vmcoreinfo_in_memory;
	/* Whether VMCOREINFO names what only this architecture has. */
	bool (*owns_vmcoreinfo)(const struct idd_vmcoreinfo *info);
	/* Where the kernel's direct map and memory map are (target.h). */
	void (*kernel_map)(const struct idd_vmcoreinfo *info,
			   struct idd_target_kernel_map *out);
	/* The VMCOREINFO values walk_init() starts from, for a note. */
	const char *walk_keys;
	/*
	 * The root table's virtual address (VMCOREINFO's symbol) and the
	 * physical one the walk took: the kernel's tables map themselves,
	 * so a translation of the one that is not the other means
	 * VMCOREINFO disagrees with them. May be NULL (no check).
	 */
	bool (*root)(const union idd_arch_walk *w,
		     const struct idd_walk_env *env, uint64_t *va,
		     uint64_t *pa);
	/* Set up from env; false when the dump lacks what the walk needs. */
	bool (*walk_init)(union idd_arch_walk *w, const struct idd_walk_env *env);
	/*
	 * The physical address of va and the bytes left in its page
	 * (*left); false when the tables do not map it, or cannot be read.
	 */
	bool (*translate)(union idd_arch_walk *w, const struct idd_walk_env *env,
			  uint64_t va, uint64_t *pa, uint64_t *left);
	/* What --info says of the walk. */
	const char *(*describe)(const union idd_arch_walk *w);
	/*
	 * Why the last translate() that returned false cannot be answered
	 * by anyone (a page-table loop, a table outside memory), or NULL:
	 * not mapped, or let libkdumpfile try. May be NULL.
	 */
	const char *(*broken)(const union idd_arch_walk *w);
};

/* The architecture named so (its name or an alias) whose walk we have. */
const struct idd_arch_ops *idd_arch_find(const char *name);
/* The architecture of ELF machine EM_*, or NULL. */
const struct idd_arch_ops *idd_arch_of_elf(unsigned machine);
/* The one architecture whose VMCOREINFO keys info holds, or NULL. */
const struct idd_arch_ops *idd_arch_of_vmcoreinfo(
	const struct idd_vmcoreinfo *info);

extern const struct idd_arch_ops idd_x86_64_arch;
extern const struct idd_arch_ops idd_aarch64_arch;
extern const struct idd_arch_ops idd_ppc64_arch;
extern const struct idd_arch_ops idd_s390x_arch;

#endif
