// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Our /proc/kcore reader (lib/target/kcore.c) on small ELF cores written
 * here as fs/proc/kcore.c lays them out: a VMCOREINFO note, PT_LOADs at
 * kernel virtual addresses (RAM through the direct map with its physical
 * address, vmalloc without one: p_paddr -1) at file offsets of their own.
 * Reads across pages and segments give the bytes; an address in no
 * program header, a user-space one, and a segment the file ends inside (a
 * short read in the middle of a run) are errors naming the first byte not
 * read; physical reads go through the program headers that have one;
 * forget() drops the pages read, so the next read sees the file as it is
 * now. An s390x core is the same written big-endian (its headers and
 * note in the kernel's order; no address is said to be user space, its
 * kernel's are low). Not taken, with the reason: no VMCOREINFO note, a
 * machine whose kernel we do not read, headers in an order not their
 * machine's (a big-endian x86-64 core, a little-endian s390x one), not
 * ELF. The live guests (the live, arm64-live and follow73 sets) are the
 * proof on real kernels.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "target/target.h"

#define PAGE 4096u
#define RAM_VA 0xffff888000000000ull
#define RAM_PAGES 3u
#define VM_VA 0xffffc90000000000ull
#define VM_PAGES 2u
#define CUT_VA 0xffffffff81000000ull
#define CUT_PAGES 2u /* the file ends after its first */

static const char info[] = "OSRELEASE=6.12.0-kcore-test\nPAGESIZE=4096\n"
			   "SYMBOL(swapper_pg_dir)=ffffffff82a0c000\n"
			   "KERNELOFFSET=0\n";

enum variant { GOOD, NO_NOTE, MACHINE, BIG_ENDIAN_CORE, NOT_ELF, PPC64,
	       S390X, S390X_LITTLE };

/* The order the core being written is in (big: s390x's). */
static bool big;

static void put(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static uint8_t byte_at(uint64_t va)
{
	return (uint8_t)(va * 13 + (va >> 12) + 5);
}

static void put_load(uint8_t *ph, uint64_t va, uint64_t pa, uint64_t off,
		     uint64_t size)
{
	put(ph, PT_LOAD, 4);
	put(ph + 4, PF_R | PF_W | PF_X, 4);
	put(ph + 8, off, 8);
	put(ph + 16, va, 8);
	put(ph + 24, pa, 8);
	put(ph + 32, size, 8);
	put(ph + 40, size, 8);
	put(ph + 48, PAGE, 8);
}

/*
 * The core: note, RAM (physical 0), vmalloc, and the cut segment whose
 * second page is past the end of the file. File offsets far from the
 * virtual order, as kcore's are.
 */
static char *write_core(enum variant v)
{
	size_t vi = strlen(info), note_len = 24 + ((vi + 3) & ~(size_t)3);
	size_t phnum = 4, note_off = 64 + 56 * phnum;
	size_t vm_off = 2 * PAGE, ram_off = vm_off + VM_PAGES * PAGE;
	size_t cut_off = ram_off + RAM_PAGES * PAGE;
	size_t size = cut_off + PAGE; /* the cut segment's first page only */
	uint8_t *f = calloc(1, size), *ph = f + 64;
	char path[] = "/tmp/idd-kcore-XXXXXX";
	int fd = mkstemp(path);

	if (!f || fd < 0)
		abort();
	big = v == BIG_ENDIAN_CORE || v == S390X;
	memcpy(f, ELFMAG, SELFMAG);
	f[EI_CLASS] = ELFCLASS64;
	f[EI_DATA] = big ? ELFDATA2MSB : ELFDATA2LSB;
	f[EI_VERSION] = EV_CURRENT;
	if (v == NOT_ELF)
		f[0] = 0;
	put(f + 16, ET_CORE, 2);
	put(f + 18, v == MACHINE ? EM_SPARCV9 : v == PPC64 ? EM_PPC64
			: v == S390X || v == S390X_LITTLE ? EM_S390
							  : EM_X86_64, 2);
	put(f + 20, EV_CURRENT, 4);
	put(f + 32, 64, 8);
	put(f + 52, 64, 2);
	put(f + 54, 56, 2);
	put(f + 56, phnum, 2);
	put(ph, PT_NOTE, 4);
	put(ph + 8, note_off, 8);
	put(ph + 32, note_len, 8);
	put(f + note_off, 11, 4);
	put(f + note_off + 4, vi, 4);
	memcpy(f + note_off + 12, v == NO_NOTE ? "VMCOREINFX" : "VMCOREINFO",
	       11);
	memcpy(f + note_off + 24, info, vi);
	put_load(ph + 56, VM_VA, UINT64_MAX, vm_off, VM_PAGES * PAGE);
	put_load(ph + 112, RAM_VA, 0, ram_off, RAM_PAGES * PAGE);
	put_load(ph + 168, CUT_VA, 0x1000000, cut_off, CUT_PAGES * PAGE);
	for (size_t i = 0; i < VM_PAGES * PAGE; i++)
		f[vm_off + i] = byte_at(VM_VA + i);
	for (size_t i = 0; i < RAM_PAGES * PAGE; i++)
		f[ram_off + i] = byte_at(RAM_VA + i);
	for (size_t i = 0; i < PAGE; i++)
		f[cut_off + i] = byte_at(CUT_VA + i);
	if (write(fd, f, size) != (ssize_t)size)
		abort();
	close(fd);
	free(f);
	return strdup(path);
}

static bool bytes_ok(const uint8_t *buf, uint64_t va, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != byte_at(va + i))
			return false;
	return true;
}

/* A read that fails: at want_addr, its message holding want. */
static void check_fails(struct idd_target *t, const char *what, uint64_t va,
			size_t len, uint64_t want_addr, const char *want)
{
	uint8_t *buf = malloc(len);
	struct inodedump_error *err = idd_target_read(t, va, buf, len);
	const char *msg = err ? inodedump_error_message(err) : "";

	CHECKF(err && err->has_address && err->address == want_addr &&
		       strstr(msg, want),
	       "%s: %s (address 0x%llx)", what, err ? msg : "no error",
	       err ? (unsigned long long)err->address : 0ull);
	inodedump_error_free(err);
	free(buf);
}

static void check_good(enum variant v, const char *arch)
{
	char *path = write_core(v);
	struct idd_target *t = NULL;
	struct inodedump_error *err = idd_target_open_kcore(path, &t);
	uint8_t buf[3 * PAGE];
	FILE *f;

	CHECKF(!err, "%s: open: %s", arch,
	       err ? inodedump_error_message(err) : "");
	inodedump_error_free(err);
	if (!t) {
		unlink(path);
		free(path);
		return;
	}
	CHECK(!strcmp(idd_target_reader(t), "inodedump"));
	CHECK(strstr(idd_target_translation(t), "kcore"));
	CHECKF(!strcmp(idd_target_arch(t), arch), "%s", idd_target_arch(t));
	CHECK(idd_target_page_size(t) == PAGE || v == PPC64);
	CHECK(idd_target_uts_release(t) &&
	      !strcmp(idd_target_uts_release(t), "6.12.0-kcore-test"));
	/* across pages of RAM, and vmalloc */
	err = idd_target_read(t, RAM_VA + 100, buf, 2 * PAGE + 50);
	CHECK(!err && bytes_ok(buf, RAM_VA + 100, 2 * PAGE + 50));
	inodedump_error_free(err);
	err = idd_target_read(t, VM_VA + PAGE - 8, buf, 16);
	CHECK(!err && bytes_ok(buf, VM_VA + PAGE - 8, 16));
	inodedump_error_free(err);
	/* physical: RAM at 0 through its program header; vmalloc has none */
	CHECK(idd_target_read_phys(t, PAGE + 4, buf, 64) &&
	      bytes_ok(buf, RAM_VA + PAGE + 4, 64));
	CHECK(!idd_target_read_phys(t, RAM_PAGES * PAGE, buf, 8));
	/* holes: past RAM, below it, user space; the cut segment */
	check_fails(t, "past RAM's end", RAM_VA + RAM_PAGES * PAGE - 4, 8,
		    RAM_VA + RAM_PAGES * PAGE, "none of");
	check_fails(t, "between segments", VM_VA + VM_PAGES * PAGE + 64, 8,
		    VM_VA + VM_PAGES * PAGE + 64, "does not map it");
	if (v != S390X) {
		check_fails(t, "user space", 0x400000, 8, 0x400000,
			    "a user-space address");
	} else { /* its kernel's addresses are low: none is a user's */
		err = idd_target_read(t, 0x400000, buf, 8);
		CHECKF(err && strstr(inodedump_error_message(err),
				     "does not map it there") &&
			       !strstr(inodedump_error_message(err), "user"),
		       "s390x, no address said user space: %s",
		       err ? inodedump_error_message(err) : "read");
		inodedump_error_free(err);
	}
	check_fails(t, "a short read in the middle of a run",
		    CUT_VA + PAGE - 16, 64, CUT_VA + PAGE, "short read");
	err = idd_target_read(t, CUT_VA + 8, buf, 64); /* before the cut */
	CHECK(!err && bytes_ok(buf, CUT_VA + 8, 64));
	inodedump_error_free(err);
	/* pages kept until forget(): then the file as it is now */
	f = fopen(path, "r+");
	CHECK(f && fseek(f, 2 * PAGE + VM_PAGES * PAGE, SEEK_SET) == 0 &&
	      fputc(0xab, f) != EOF && fclose(f) == 0);
	err = idd_target_read(t, RAM_VA, buf, 1);
	CHECK(!err && buf[0] == byte_at(RAM_VA));
	inodedump_error_free(err);
	CHECK(idd_target_forget(t));
	err = idd_target_read(t, RAM_VA, buf, 1);
	CHECK(!err && buf[0] == 0xab);
	inodedump_error_free(err);
	idd_target_close(t);
	unlink(path);
	free(path);
}

static void check_declined(enum variant v, const char *want)
{
	char *path = write_core(v);
	struct idd_target *t = NULL;
	struct inodedump_error *err = idd_target_open_kcore(path, &t);
	const char *msg = err ? inodedump_error_message(err) : "";

	CHECKF(err && !t && strstr(msg, "not a kcore our reader takes") &&
		       strstr(msg, want),
	       "want \"%s\": %s", want, err ? msg : "taken");
	inodedump_error_free(err);
	idd_target_close(t);
	unlink(path);
	free(path);
}

int main(void)
{
	check_good(GOOD, "x86_64");
	check_good(PPC64, "ppc64");
	check_declined(NO_NOTE, "no VMCOREINFO note");
	check_declined(MACHINE, "ELF machine 43");
	check_good(S390X, "s390x");
	check_declined(BIG_ENDIAN_CORE, "big-endian headers, but x86_64 "
			"kernels are little-endian");
	check_declined(S390X_LITTLE, "little-endian headers, but s390x "
			"kernels are big-endian");
	check_declined(NOT_ELF, "no ELF header");
	return check_summary("kcore reader");
}
