// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * types: the DWARF index and the inflated DWARF kept per build-id in the
 * cache (lib/types/dwarf_index.c, dwarf_inflate.c), on the committed
 * vmlinux (its .debug_* sections are SHF_COMPRESSED). Lookups present and
 * absent give the answers libdw gives on its own, on the first run and
 * from the cache; what the cache holds is used only when it is whole and
 * made for this vmlinux, else it is made again and stderr says so once.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "types/dwarf_internal.h"
#include "types/types.h"

static const char *vmlinux;
static char base[64] = "/tmp/idd-test-dwarf-index-XXXXXX";

/* ---- the truth, from libdw alone ---- */

struct truth {
	uint64_t inode_size, i_ino, mnt_namespace_size;
	int64_t dcache_directory_type;
};

static bool top_level(Dwarf *dw, const char *unit, int tag, const char *name,
		      Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		const char *n = NULL;

		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    (!unit || ((n = dwarf_diename(&cu)) && strstr(n, unit))) &&
		    dwarf_child(&cu, out) == 0) {
			do {
				n = dwarf_diename(out);
				if (dwarf_tag(out) == tag && n &&
				    !strcmp(n, name) &&
				    !dwarf_hasattr(out, DW_AT_declaration) &&
				    dwarf_haschildren(out))
					return true;
			} while (dwarf_siblingof(out, out) == 0);
		}
		off = next;
	}
	return false;
}

static bool read_truth(struct truth *t)
{
	int fd = open(vmlinux, O_RDONLY);
	Elf *elf;
	Dwarf *dw;
	Dwarf_Die die, m;
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Sword v;
	bool ok = false;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	if (dw && top_level(dw, NULL, DW_TAG_structure_type, "inode", &die) &&
	    dwarf_aggregate_size(&die, &w) == 0) {
		t->inode_size = w;
		if (dwarf_child(&die, &m) == 0) {
			do {
				const char *n = dwarf_diename(&m);

				if (n && !strcmp(n, "i_ino") &&
				    dwarf_attr(&m, DW_AT_data_member_location,
					       &a) &&
				    dwarf_formudata(&a, &w) == 0)
					t->i_ino = w;
			} while (dwarf_siblingof(&m, &m) == 0);
		}
		if (top_level(dw, NULL, DW_TAG_structure_type, "mnt_namespace",
			      &m) &&
		    dwarf_aggregate_size(&m, &w) == 0)
			t->mnt_namespace_size = w;
		if (top_level(dw, "fs/dcache.c", DW_TAG_enumeration_type,
			      "dentry_flags", &die) &&
		    dwarf_child(&die, &m) == 0) {
			do {
				const char *n = dwarf_diename(&m);

				if (n && !strcmp(n, "DCACHE_DIRECTORY_TYPE") &&
				    dwarf_attr(&m, DW_AT_const_value, &a) &&
				    dwarf_formsdata(&a, &v) == 0) {
					t->dcache_directory_type = v;
					ok = true;
				}
			} while (dwarf_siblingof(&m, &m) == 0);
		}
	}
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
	close(fd);
	return ok && t->inode_size && t->i_ino && t->mnt_namespace_size;
}

/* ---- a session's lookups, with what it wrote on stderr ---- */

static char stderr_text[4096];

static void with_stderr_captured(void (*fn)(void *), void *arg)
{
	char path[128];
	int saved = dup(2), fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/stderr", base);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	fflush(stderr);
	dup2(fd, 2);
	fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, stderr_text, sizeof(stderr_text) - 1, 0);
	stderr_text[n > 0 ? n : 0] = '\0';
	close(fd);
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

struct run {
	const struct truth *t;
	const char *label;
};

/* Present and absent, anywhere and in one unit: each against the truth. */
static void lookups(void *arg)
{
	const struct run *r = arg;
	struct idd_types *types;
	struct inodedump_error *err = idd_types_open(vmlinux, NULL, &types);
	struct idd_struct s;
	struct idd_member m;
	int64_t v = 0;

	CHECKF(!err, "%s: open", r->label);
	if (err) {
		inodedump_error_free(err);
		return;
	}
	for (int twice = 0; twice < 2; twice++) {
		err = idd_types_struct(types, "inode", &s);
		CHECKF(!err && s.size == r->t->inode_size,
		       "%s: struct inode %llu bytes", r->label,
		       (unsigned long long)s.size);
		inodedump_error_free(err);
		idd_types_member(types, &s, "i_ino", &m);
		CHECKF(m.present && m.offset == r->t->i_ino,
		       "%s: i_ino at %llu", r->label,
		       (unsigned long long)m.offset);
		err = idd_types_struct(types, "idd_no_such_struct", &s);
		CHECKF(err != NULL, "%s: an absent struct is absent", r->label);
		inodedump_error_free(err);
		/*
		 * Defined only in units of fs/, far past the few units walked
		 * before vmlinux's BTF is asked whether to walk the rest.
		 */
		err = idd_types_struct(types, "mnt_namespace", &s);
		CHECKF(!err && s.size == r->t->mnt_namespace_size,
		       "%s: struct mnt_namespace anywhere, %llu bytes",
		       r->label, (unsigned long long)s.size);
		inodedump_error_free(err);
		/* (not "inode": a struct found once is found by name) */
		err = idd_types_struct_only_in(types, "dentry",
					       "no/such/unit.c", &s);
		CHECKF(err != NULL, "%s: no unit of that name", r->label);
		inodedump_error_free(err);
		err = idd_types_struct_only_in(types, "idd_no_such_struct",
					       "fs/namespace.c", &s);
		CHECKF(err != NULL, "%s: absent from a unit", r->label);
		inodedump_error_free(err);
		err = idd_types_struct_in(types, "mount", "fs/namespace.c", &s);
		CHECKF(!err && s.size > 0, "%s: struct mount in its unit",
		       r->label);
		inodedump_error_free(err);
		CHECKF(idd_types_enumerator(types, "fs/dcache.c",
					    "dentry_flags",
					    "DCACHE_DIRECTORY_TYPE", &v) &&
			       v == r->t->dcache_directory_type,
		       "%s: DCACHE_DIRECTORY_TYPE = %lld", r->label,
		       (long long)v);
		CHECKF(!idd_types_enumerator(types, "fs/dcache.c",
					     "dentry_flags", "IDD_NO_SUCH", &v),
		       "%s: an absent enumerator", r->label);
		CHECKF(!idd_types_enumerator(types, "no/such/unit.c", NULL,
					     "DCACHE_DIRECTORY_TYPE", &v),
		       "%s: an enumerator of no unit", r->label);
	}
	idd_types_close(types);
}

/* ---- layouts: every member read from the DIEs, then from the index ---- */

#define SHAPES 2048

struct shape {
	char path[160];
	struct idd_member m;
	uint64_t pointee_die, pointee_size; /* a pointer to a struct */
	int64_t enum_sum;		    /* an enum: its values, summed */
	int enum_count;
};

struct layout_run {
	struct shape *shapes;
	size_t n;
	bool record; /* true: fill shapes; false: compare with them */
	int compared, bitfields, pointees, enums;
};

static void sum_enumerator(const char *name, int64_t value, void *arg)
{
	struct shape *sh = arg;

	(void)name;
	sh->enum_sum += value;
	sh->enum_count++;
}

static const char *const layout_structs[] = {
	"inode", "super_block", "dentry", "address_space", "file",
	"task_struct", "page", "kmem_cache", NULL
};

/* The names of a struct's direct members, as libdw alone reads them. */
static size_t member_names(Dwarf *dw, const char *sname, char (*out)[96],
			   size_t max)
{
	Dwarf_Die die, m;
	size_t n = 0;

	if (!top_level(dw, NULL, DW_TAG_structure_type, sname, &die) ||
	    dwarf_child(&die, &m) != 0)
		return 0;
	do {
		const char *name = dwarf_diename(&m);

		if (dwarf_tag(&m) == DW_TAG_member && name && n < max)
			snprintf(out[n++], 96, "%s", name);
	} while (dwarf_siblingof(&m, &m) == 0);
	return n;
}

static void layout_lookups(void *arg)
{
	struct layout_run *r = arg;
	struct idd_types *types;
	struct inodedump_error *err = idd_types_open(vmlinux, NULL, &types);
	int fd = open(vmlinux, O_RDONLY);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwarf *dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	static char names[512][96];
	size_t k = 0;

	CHECKF(!err && dw, "layouts: open");
	if (err || !dw) {
		inodedump_error_free(err);
		return;
	}
	for (const char *const *sn = layout_structs; *sn; sn++) {
		struct idd_struct s;
		size_t n = member_names(dw, *sn, names, 512);

		err = idd_types_struct(types, *sn, &s);
		CHECKF(!err && n > 0, "layouts: struct %s, %zu members", *sn,
		       n);
		inodedump_error_free(err);
		if (err)
			continue;
		for (size_t i = 0; i < n && k < SHAPES; i++, k++) {
			struct shape now = { 0 }, *was = &r->shapes[k];
			struct idd_struct p;

			snprintf(now.path, sizeof(now.path), "%.40s.%.95s",
				 *sn, names[i]);
			idd_types_member(types, &s, names[i], &now.m);
			if (now.m.kind == IDD_KIND_PTR &&
			    !(err = idd_types_pointee_struct(types, &now.m,
							     &p))) {
				now.pointee_die = p.die;
				now.pointee_size = p.size;
			}
			inodedump_error_free(err);
			err = NULL;
			if (now.m.kind == IDD_KIND_INT)
				idd_types_member_enum(&now.m, sum_enumerator,
						      &now);
			if (r->record) {
				*was = now;
				continue;
			}
			r->compared++;
			r->bitfields += now.m.bit_size != 0;
			r->pointees += now.pointee_die != 0;
			r->enums += now.enum_count > 0;
			CHECKF(!strcmp(was->path, now.path) &&
				       was->m.present == now.m.present &&
				       was->m.offset == now.m.offset &&
				       was->m.size == now.m.size &&
				       was->m.bit_size == now.m.bit_size &&
				       was->m.bit_offset == now.m.bit_offset &&
				       was->m.is_signed == now.m.is_signed &&
				       was->m.kind == now.m.kind &&
				       was->m.type == now.m.type &&
				       was->pointee_die == now.pointee_die &&
				       was->pointee_size == now.pointee_size &&
				       was->enum_sum == now.enum_sum &&
				       was->enum_count == now.enum_count,
			       "layouts: %s the same from the index", now.path);
		}
	}
	r->n = k;
	dwarf_end(dw);
	elf_end(elf);
	close(fd);
	idd_types_close(types);
}

static char *cache_file(const char *name)
{
	static char path[512];
	struct idd_dwarf_id id;
	int fd = open(vmlinux, O_RDONLY);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);

	idd_dwarf_id_of(elf, &id);
	snprintf(path, sizeof(path), "%s/cache/inodedump/kernel/%s/%s", base,
		 id.build_id ? id.build_id : "?", name);
	idd_dwarf_id_free(&id);
	elf_end(elf);
	close(fd);
	return path;
}

static off_t size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

static void flip_byte(const char *path, off_t at)
{
	int fd = open(path, O_RDWR);
	unsigned char c = 0;

	if (pread(fd, &c, 1, at) == 1) {
		c ^= 0x5a;
		CHECK(pwrite(fd, &c, 1, at) == 1);
	}
	close(fd);
}

/* An index valid in every way but made for id, answering inode wrongly. */
static void write_index_for(const struct idd_dwarf_id *id, const char *dir)
{
	char *note;
	struct idd_dwx *x = idd_dwx_open(id, dir, &note);

	free(note);
	CHECK(x != NULL);
	if (!x)
		return;
	idd_dwx_remember(x, IDD_DWX_ANY_STRUCT, 0, "inode", true, 12345);
	idd_dwx_close(x, &note);
	CHECKF(!note, "the planted index is stored");
	free(note);
}

int main(int argc, char **argv)
{
	struct truth t = { 0 };
	struct run r = { .t = &t };
	char cache[512], *index, *copy;
	struct idd_dwarf_id id;
	off_t size;

	vmlinux = getenv("IDD_TEST_VMLINUX");
	if (argc > 1)
		vmlinux = argv[1];
	if (!vmlinux || !mkdtemp(base)) {
		printf("usage: %s VMLINUX (or IDD_TEST_VMLINUX)\n", argv[0]);
		return 1;
	}
	snprintf(cache, sizeof(cache), "%s/cache", base);
	setenv("XDG_CACHE_HOME", cache, 1);
	unsetenv("INODEDUMP_NO_CACHE");
	CHECKF(read_truth(&t), "libdw alone reads the truth");
	index = strdup(cache_file("dwarf.index"));
	copy = strdup(cache_file("dwarf.elf"));

	r.label = "first run";
	with_stderr_captured(lookups, &r);
	CHECKF(!*stderr_text, "the first run says nothing: %s", stderr_text);
	CHECKF(size_of(index) > 0, "the index is kept: %s", index);
	CHECKF(size_of(copy) > 0, "the inflated DWARF is kept: %s", copy);

	size = size_of(index);
	r.label = "from the cache";
	with_stderr_captured(lookups, &r);
	CHECKF(!*stderr_text, "a run from the cache says nothing: %s",
	       stderr_text);
	CHECKF(size_of(index) == size, "it learned nothing new");

	/* Every member of a few structs: first from the DIEs, then kept. */
	{
		static struct shape shapes[SHAPES];
		struct layout_run lr = { .shapes = shapes, .record = true };

		snprintf(cache, sizeof(cache), "%s/cache-layouts", base);
		setenv("XDG_CACHE_HOME", cache, 1);
		with_stderr_captured(layout_lookups, &lr);
		CHECKF(!*stderr_text, "layouts read: %s", stderr_text);
		lr.record = false;
		with_stderr_captured(layout_lookups, &lr);
		CHECKF(!*stderr_text, "layouts recalled: %s", stderr_text);
		CHECKF(lr.compared > 300 && lr.bitfields > 0 &&
			       lr.pointees > 20 && lr.enums > 0,
		       "layouts: %d members compared (%d bitfields, %d "
		       "pointers to structs, %d enums)",
		       lr.compared, lr.bitfields, lr.pointees, lr.enums);
		snprintf(cache, sizeof(cache), "%s/cache", base);
		setenv("XDG_CACHE_HOME", cache, 1);
	}

	/* Damaged: one byte of its answers changed. */
	flip_byte(index, size - 3);
	r.label = "damaged index";
	with_stderr_captured(lookups, &r);
	CHECKF(strstr(stderr_text, "was not used (its checksum does not "
				   "match): made again") &&
		       lines(stderr_text) == 1,
	       "a damaged index is said once: %s", stderr_text);
	r.label = "after the damage";
	with_stderr_captured(lookups, &r);
	CHECKF(!*stderr_text, "it was made again whole: %s", stderr_text);

	/* Stale: made for another build-id, or other DWARF of this one. */
	memset(&id, 0, sizeof(id));
	id.build_id = "0123456789abcdef0123456789abcdef01234567";
	id.fingerprint = 42;
	snprintf(cache, sizeof(cache), "%s", index);
	*strrchr(cache, '/') = '\0'; /* the build-id's directory */
	write_index_for(&id, cache);
	r.label = "stale index";
	with_stderr_captured(lookups, &r);
	CHECKF(strstr(stderr_text, "made for another build-id"),
	       "a stale index is not used: %s", stderr_text);
	{
		struct idd_dwarf_id real;
		int fd = open(vmlinux, O_RDONLY);
		Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		char *note;
		struct idd_dwx *x;

		idd_dwarf_id_of(elf, &real);
		real.fingerprint ^= 1;
		write_index_for(&real, cache);
		r.label = "other DWARF";
		with_stderr_captured(lookups, &r);
		CHECKF(strstr(stderr_text, "made for other DWARF"),
		       "an index of other DWARF is not used: %s",
		       stderr_text);
		real.fingerprint ^= 1;
		x = idd_dwx_open(&real, cache, &note);
		CHECKF(x && idd_dwx_from_cache(x) && !note,
		       "the index made again is this vmlinux's");
		idd_dwx_close(x, &note);
		free(note);
		idd_dwarf_id_free(&real);
		elf_end(elf);
		close(fd);
	}

	/* The inflated DWARF cut short. */
	CHECK(truncate(copy, size_of(copy) / 2) == 0);
	r.label = "damaged inflated DWARF";
	with_stderr_captured(lookups, &r);
	CHECKF(strstr(stderr_text, "inflated DWARF") &&
		       strstr(stderr_text, "made again") &&
		       lines(stderr_text) == 1,
	       "a damaged copy is said once: %s", stderr_text);
	CHECKF(size_of(copy) > 0, "and made again");

	/* A cache that cannot be written (a file where a directory goes). */
	snprintf(cache, sizeof(cache), "%s/stderr", base);
	setenv("XDG_CACHE_HOME", cache, 1);
	r.label = "unwritable cache";
	with_stderr_captured(lookups, &r);
	CHECKF(strstr(stderr_text, "cannot keep") && lines(stderr_text) == 1,
	       "an unwritable cache is said once: %s", stderr_text);

	/* No cache at all: answers within the session only, nothing said. */
	setenv("INODEDUMP_NO_CACHE", "1", 1);
	r.label = "no cache";
	with_stderr_captured(lookups, &r);
	CHECKF(!*stderr_text, "no cache, nothing said: %s", stderr_text);

	free(index);
	free(copy);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
		if (system(cmd) != 0)
			printf("could not remove %s\n", base);
	}
	return check_summary("dwarf index");
}
