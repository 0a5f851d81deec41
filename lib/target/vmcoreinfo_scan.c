// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel's VMCOREINFO note in its memory, for a dump without one
 * (QEMU's ELF and kdump of a machine without fw_cfg, so without the
 * vmcoreinfo device: pseries, s390-ccw-virtio): the note the kernel keeps
 * (crash_save_vmcoreinfo_init(): vmcoreinfo_note, a page of its own, the
 * address /sys/kernel/vmcoreinfo gives kexec-tools) begins a page:
 * namesz 11, type 0, "VMCOREINFO", then "OSRELEASE=", its header in the
 * kernel's byte order (big: s390x's). Every 4 KiB of memory is looked
 * at; two different notes are none (a stale one of an earlier kernel
 * cannot be told from the running one's).
 */
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "target/arch.h"
#include "target/backend.h"
#include "target/vmcoreinfo_scan.h"

#define SCAN_CHUNK (1u << 20)
#define SCAN_PAGE 4096u

static bool note_at(const uint8_t *p, size_t left, size_t *descsz, bool big)
{
	if (left < 34 || idd_load(p, 4, big) != 11 || idd_load(p + 8, 4, big) ||
	    memcmp(p + 12, "VMCOREINFO\0\0OSRELEASE=", 22))
		return false;
	*descsz = idd_load(p + 4, 4, big);
	return *descsz >= 10 && *descsz < 65536;
}

/* The note whose header is at pa (descsz bytes of text): kept or compared. */
static void note_found(struct idd_vmcoreinfo_found *f, uint64_t pa,
		       size_t descsz, idd_vmcoreinfo_read_fn read, void *arg)
{
	char *text = malloc(descsz + 1);

	if (!text)
		return;
	if (!read(arg, pa + 24, text, descsz)) {
		free(text);
		return;
	}
	text[descsz] = '\0';
	if (!f->text) {
		f->text = text;
		f->size = descsz;
		f->pa = pa;
		return;
	}
	if (descsz != f->size || memcmp(text, f->text, descsz))
		f->twice = true;
	free(text);
}

/* A chunk's pages one at a time: one that cannot be read is no note's. */
static void read_pages(uint8_t *buf, uint64_t pa, size_t len,
		       idd_vmcoreinfo_read_fn read, void *arg)
{
	size_t n;

	for (size_t at = 0; at < len; at += n) {
		n = SCAN_PAGE - (pa + at) % SCAN_PAGE;
		if (n > len - at)
			n = len - at;
		if (!read(arg, pa + at, buf + at, n))
			memset(buf + at, 0, n);
	}
}

void idd_vmcoreinfo_scan(struct idd_vmcoreinfo_found *f, uint64_t start,
			 uint64_t end, idd_vmcoreinfo_read_fn read, void *arg,
			 bool big)
{
	uint8_t *buf = f->twice ? NULL : malloc(SCAN_CHUNK);
	uint64_t len = end - start;

	for (uint64_t at = 0; buf && at < len && !f->twice; at += SCAN_CHUNK) {
		size_t got = len - at < SCAN_CHUNK ? (size_t)(len - at)
						   : SCAN_CHUNK, descsz;

		if (!read(arg, start + at, buf, got))
			read_pages(buf, start + at, got, read, arg);
		for (size_t o = (SCAN_PAGE - (start + at) % SCAN_PAGE) %
				SCAN_PAGE;
		     o < got; o += SCAN_PAGE)
			if (note_at(buf + o, got - o, &descsz, big))
				note_found(f, start + at + o, descsz, read,
					   arg);
	}
	free(buf);
}

void idd_vmcoreinfo_scan_end(struct idd_vmcoreinfo_found *f)
{
	if (f->twice) {
		free(f->text);
		f->text = NULL;
	}
}

bool idd_vmcoreinfo_from_memory(struct idd_backend *b, const char *what,
				const struct idd_arch_ops *arch, uint64_t end,
				idd_vmcoreinfo_read_fn read, void *arg,
				struct idd_vmcoreinfo_found *f)
{
	if (!arch || !arch->vmcoreinfo_in_memory)
		return false;
	idd_vmcoreinfo_scan(f, 0, end, read, arg, arch->big_endian);
	idd_vmcoreinfo_scan_end(f);
	if (f->text)
		return true;
	idd_target_declined(b->target, "%s, and %s in the kernel's memory",
			    what, f->twice ? "two different VMCOREINFO notes"
					   : "no VMCOREINFO note");
	return false;
}
