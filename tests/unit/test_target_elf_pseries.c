// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * QEMU's pseries ELF (lib/target/elf.c) on small files written here: a
 * ppc64 core with big-endian headers, no VMCOREINFO note, and the
 * kernel's own note at the start of a 4 KiB page of memory in little-
 * endian order (as QEMU 7.2 writes a little-endian guest): read by our
 * reader, VMCOREINFO from memory, said as what the writer is (not as a
 * problem: nothing is missing). Not ours: no note in memory,
 * two different ones, a big-endian (kernel's) note, one not at a page's
 * start. A little-endian core with its note is read as before, and says
 * nothing.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "target/target.h"

#define MEM (256u << 10)
static const char info_a[] =
	"OSRELEASE=6.1.0-50-powerpc64le\nPAGESIZE=65536\n"
	"SYMBOL(swapper_pg_dir)=c000000000010000\n"
	"SYMBOL(mmu_vmemmap_psize)=c0000000027593c0\nKERNELOFFSET=0\n";
static const char info_b[] =
	"OSRELEASE=6.1.0-49-powerpc64le\nPAGESIZE=65536\n";

static void put(uint8_t *p, uint64_t v, size_t n, bool le)
{
	for (size_t i = 0; i < n; i++)
		p[le ? i : n - 1 - i] = (uint8_t)(v >> (8 * i));
}

/* The kernel's note at mem + at, its header in the order le. */
static void put_note(uint8_t *mem, size_t at, const char *text, bool le)
{
	put(mem + at, 11, 4, le);
	put(mem + at + 4, strlen(text), 4, le);
	put(mem + at + 8, 0, 4, le);
	memcpy(mem + at + 12, "VMCOREINFO\0", 12); /* name, padded */
	memcpy(mem + at + 24, text, strlen(text));
}

/* A ppc64 core: one PT_LOAD of mem at physical 0 (and the ELF's own
 * VMCOREINFO note when note), headers in the order le. */
static char *write_core(const uint8_t *mem, bool le, bool note)
{
	size_t vi = strlen(info_a), note_len = 24 + ((vi + 3) & ~(size_t)3);
	size_t phnum = note ? 2 : 1, off = 64 + 56 * phnum;
	size_t data = note ? off + note_len : off, size = data + MEM;
	uint8_t *f = calloc(1, size), *ph = f + 64;
	char path[] = "/tmp/idd-pseries-XXXXXX";
	int fd = mkstemp(path);

	if (!f || fd < 0)
		abort();
	memcpy(f, ELFMAG, SELFMAG);
	f[EI_CLASS] = ELFCLASS64;
	f[EI_DATA] = le ? ELFDATA2LSB : ELFDATA2MSB;
	f[EI_VERSION] = EV_CURRENT;
	put(f + 16, ET_CORE, 2, le);
	put(f + 18, EM_PPC64, 2, le);
	put(f + 20, EV_CURRENT, 4, le);
	put(f + 32, 64, 8, le);
	put(f + 52, 64, 2, le);
	put(f + 54, 56, 2, le);
	put(f + 56, phnum, 2, le);
	if (note) {
		put(ph, PT_NOTE, 4, le);
		put(ph + 8, off, 8, le);
		put(ph + 32, note_len, 8, le);
		put(ph + 40, note_len, 8, le);
		put(f + off, 11, 4, le);
		put(f + off + 4, vi, 4, le);
		memcpy(f + off + 12, "VMCOREINFO", 11);
		memcpy(f + off + 24, info_a, vi);
		ph += 56;
	}
	put(ph, PT_LOAD, 4, le);
	put(ph + 4, PF_R | PF_W | PF_X, 4, le);
	put(ph + 8, data, 8, le);
	put(ph + 16, 0, 8, le);
	put(ph + 24, 0, 8, le);
	put(ph + 32, MEM, 8, le);
	put(ph + 40, MEM, 8, le);
	memcpy(f + data, mem, MEM);
	if (write(fd, f, size) != (ssize_t)size)
		abort();
	close(fd);
	free(f);
	return strdup(path);
}

/* What --info says of the writer holds want (NULL: nothing said). */
static bool said(struct idd_target *t, const char *want)
{
	const char *w = idd_target_writer(t);

	return want ? w && strstr(w, want) : !w;
}

/* Whether our reader takes it (else libkdumpfile's, or an error). */
static bool ours(const char *path, struct idd_target **out)
{
	struct inodedump_error *err = idd_target_open(path, out);
	bool taken = !err && !strcmp(idd_target_reader(*out), "inodedump");

	if (getenv("IDD_DEBUG"))
		printf("  %s: %s\n", path, err ? inodedump_error_message(err)
					     : idd_target_reader(*out));

	inodedump_error_free(err);
	if (!taken && *out) {
		idd_target_close(*out);
		*out = NULL;
	}
	return taken;
}

static uint8_t *fresh(void)
{
	uint8_t *mem = calloc(1, MEM);

	if (!mem)
		abort();
	for (size_t i = 0; i < MEM; i++)
		mem[i] = (uint8_t)(i * 7 + 1);
	return mem;
}

static void check_case(const char *what, uint8_t *mem, bool le, bool note,
		       bool want_ours, const char *want_said)
{
	char *path = write_core(mem, le, note);
	struct idd_target *t = NULL;
	bool got = ours(path, &t);

	CHECKF(got == want_ours, "%s: %s", what,
	       got ? "read by inodedump" : "not ours");
	if (t) {
		uint8_t buf[16];
		const char *rel = idd_target_vmcoreinfo(t, "OSRELEASE");

		CHECKF(rel && !strcmp(rel, "6.1.0-50-powerpc64le"),
		       "%s: OSRELEASE %s", what, rel ? rel : "(none)");
		CHECKF(idd_target_read_phys(t, 0x1230, buf, 16) &&
			       !memcmp(buf, mem + 0x1230, 16),
		       "%s: physical read", what);
		CHECKF(said(t, want_said), "%s: writer %s", what,
		       idd_target_writer(t) ? idd_target_writer(t) : "(none)");
		CHECKF(!idd_target_problems(t), "%s: %zu problems", what,
		       idd_target_problems(t));
		idd_target_close(t);
	}
	unlink(path);
	free(path);
	free(mem);
}

int main(void)
{
	uint8_t *mem;

	mem = fresh();
	put_note(mem, 0x20000, info_a, true);
	check_case("big-endian headers, the note in memory", mem, false, false,
		   true, "in its memory at physical 0x20000");
	mem = fresh();
	put_note(mem, 0x21000, info_a, true);
	put_note(mem, 0x33000, info_a, true); /* the same again: one */
	check_case("the same note twice", mem, false, false, true,
		   "physical 0x21000");
	mem = fresh();
	put_note(mem, 0x20000, info_a, true);
	put_note(mem, 0x30000, info_b, true);
	check_case("two different notes", mem, false, false, false, NULL);
	mem = fresh();
	check_case("no note anywhere", mem, false, false, false, NULL);
	mem = fresh();
	put_note(mem, 0x20000, info_a, false);
	check_case("a big-endian kernel's note", mem, false, false, false, NULL);
	mem = fresh();
	put_note(mem, 0x20010, info_a, true);
	check_case("a note not at a page's start", mem, false, false, false, NULL);
	mem = fresh();
	put_note(mem, 0x20000, info_b, true); /* in memory, but the ELF's wins */
	check_case("little-endian with its own note", mem, true, true, true, NULL);
	mem = fresh();
	put_note(mem, 0x20000, info_a, true);
	check_case("little-endian without a note, one in memory", mem, true,
		   false, true, "in its memory at physical 0x20000");
	return check_summary("test_target_elf_pseries");
}
