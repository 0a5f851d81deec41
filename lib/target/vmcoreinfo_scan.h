/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target: the kernel's VMCOREINFO note found in its memory, for a dump
 * that carries none (vmcoreinfo_scan.c; elf.c and diskdump.c). Not
 * installed.
 */
#ifndef IDD_TARGET_VMCOREINFO_SCAN_H
#define IDD_TARGET_VMCOREINFO_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct idd_arch_ops;
struct idd_backend;

struct idd_vmcoreinfo_found {
	char *text;   /* malloc'd, NUL-ended; NULL: none found */
	size_t size;  /* the note's descsz */
	uint64_t pa;  /* the physical address of its page */
	bool twice;   /* another, different one too: text dropped */
};

/* Bytes at a physical address, all or false (the dump's own reader). */
typedef bool (*idd_vmcoreinfo_read_fn)(void *arg, uint64_t pa, void *buf,
				       size_t len);

/*
 * Every 4 KiB page of the physical range [start, end) looked at, read a
 * chunk at a time through read (a chunk that cannot be read, a page at
 * a time: a page left out of the dump holds no note), in the kernel's
 * byte order (big). Once per range, then idd_vmcoreinfo_scan_end().
 */
void idd_vmcoreinfo_scan(struct idd_vmcoreinfo_found *f, uint64_t start,
			 uint64_t end, idd_vmcoreinfo_read_fn read, void *arg,
			 bool big);
/* Done: two different notes are none (f->text NULL, f->twice). */
void idd_vmcoreinfo_scan_end(struct idd_vmcoreinfo_found *f);
/*
 * A dump without a VMCOREINFO note of its own, whose memory [0, end)
 * read gives: the kernel's note from it (*f) where the machine's kernels
 * are looked through (arch->vmcoreinfo_in_memory). False when they are
 * not (nothing said: another reader's) or no one note is found (said to
 * the target as why our reader does not take the file, after what).
 */
bool idd_vmcoreinfo_from_memory(struct idd_backend *b, const char *what,
				const struct idd_arch_ops *arch, uint64_t end,
				idd_vmcoreinfo_read_fn read, void *arg,
				struct idd_vmcoreinfo_found *f);

#endif
