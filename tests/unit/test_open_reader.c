// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The public API over a caller's memory, with no dump: a synthetic symlink
 * inode laid out by this test and served by its read callback, decoded
 * through inodedump_open_reader() with the types of the committed
 * fixture's vmlinux. The layout comes from libdw here, not from the
 * library: offsets of struct inode, super_block and file_system_type are
 * computed by this file's own DWARF walk.
 *
 * Also: a reader's FAULT and FILTERED come back as errors naming the
 * address; a wrong BUILD-ID is refused; opts structs are checked by size
 * (a bigger struct with a non-zero tail is refused, with a zero tail or an
 * older smaller size it works); the sweep walks the synthetic superblock.
 *
 * Usage: test_open_reader VMLINUX VMCORE (the committed fixture's).
 */
#include <dwarf.h>
#include <stddef.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "inodedump.h"

static const char *vmlinux, *vmcore;


static const char *why(const struct inodedump_error *err)
{
	return err ? inodedump_error_message(err) : "no error";
}

/* ------------------------------------------- layout, from libdw directly */

struct member {
	uint64_t offset, size;
};

struct layout {
	uint64_t inode_size, sb_size, fstype_size;
	struct member i_mode, i_opflags, i_ino, i_sb, i_link, i_linklen, i_op,
		i_nlink, i_sb_list;
	struct member s_id, s_type, s_list, s_inodes;
	struct member fs_name;
	uint64_t super_blocks; /* the list head's link-time address */
	char build_id[41];
};

static struct layout L;

static uint64_t type_size(Dwarf_Die *die)
{
	Dwarf_Die type;
	Dwarf_Word size;

	if (!dwarf_attr_integrate(die, DW_AT_type, &(Dwarf_Attribute){ 0 }) ||
	    !dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type,
						    &(Dwarf_Attribute){ 0 }),
			       &type) ||
	    dwarf_aggregate_size(&type, &size) != 0)
		return 0;
	return size;
}

/* A member by name, looking into anonymous structs and unions. */
static bool find_member(Dwarf_Die *s, const char *name, uint64_t base,
			struct member *out)
{
	Dwarf_Die child;

	if (dwarf_child(s, &child) != 0)
		return false;
	do {
		Dwarf_Attribute attr;
		Dwarf_Word off = 0;
		const char *n;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		if (dwarf_attr(&child, DW_AT_data_member_location, &attr))
			dwarf_formudata(&attr, &off);
		n = dwarf_diename(&child);
		if (n && !strcmp(n, name)) {
			out->offset = base + off;
			out->size = type_size(&child);
			return true;
		}
		if (!n) {
			Dwarf_Die type;

			if (dwarf_formref_die(dwarf_attr(&child, DW_AT_type,
							 &attr),
					      &type) &&
			    find_member(&type, name, base + off, out))
				return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static struct member member(Dwarf_Die *s, const char *name)
{
	struct member m = { 0 };

	if (!find_member(s, name, 0, &m)) {
		printf("FAIL layout: no member %s in struct %s\n", name,
		       dwarf_diename(s));
		exit(1);
	}
	return m;
}

/* The first complete definitions of struct inode, super_block, f_s_t. */
static void find_structs(Dwarf *dw, Dwarf_Die out[3])
{
	static const char *const names[3] = { "inode", "super_block",
					      "file_system_type" };
	Dwarf_Off off = 0, next;
	size_t hsize;
	int found = 0;

	while (found < 3 &&
	       dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, die;

		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    dwarf_child(&cu, &die) == 0) {
			do {
				const char *n;
				Dwarf_Attribute a;

				if (dwarf_tag(&die) != DW_TAG_structure_type ||
				    dwarf_hasattr(&die, DW_AT_declaration) ||
				    !dwarf_attr(&die, DW_AT_byte_size, &a) ||
				    !(n = dwarf_diename(&die)))
					continue;
				for (int i = 0; i < 3; i++)
					if (!out[i].addr && !strcmp(n, names[i])) {
						out[i] = die;
						found++;
					}
			} while (dwarf_siblingof(&die, &die) == 0);
		}
		off = next;
	}
	if (found < 3) {
		printf("FAIL layout: struct inode/super_block/"
		       "file_system_type not all in %s\n", vmlinux);
		exit(1);
	}
}

/* super_blocks' address and the GNU build-id, from vmlinux's ELF. */
static void read_elf(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data = elf_getdata(scn, NULL);

		if (!gelf_getshdr(scn, &sh) || !data)
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *n;

				if (gelf_getsym(data, (int)i, &sym) &&
				    (n = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
				    !strcmp(n, "super_blocks"))
					L.super_blocks = sym.st_value;
			}
		} else if (sh.sh_type == SHT_NOTE) {
			GElf_Nhdr nh;
			size_t pos = 0, name, desc;

			while ((pos = gelf_getnote(data, pos, &nh, &name, &desc))) {
				const uint8_t *d = (const uint8_t *)data->d_buf + desc;

				if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz > 20)
					continue;
				for (size_t i = 0; i < nh.n_descsz; i++)
					sprintf(L.build_id + 2 * i, "%02x", d[i]);
			}
		}
	}
}

static void compute_layout(void)
{
	int fd = open(vmlinux, O_RDONLY);
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	Dwarf_Die s[3] = { 0 };
	Dwarf_Word size;

	if (!dw) {
		printf("FAIL layout: cannot read DWARF of %s\n", vmlinux);
		exit(1);
	}
	find_structs(dw, s);
	dwarf_aggregate_size(&s[0], &size);
	L.inode_size = size;
	dwarf_aggregate_size(&s[1], &size);
	L.sb_size = size;
	dwarf_aggregate_size(&s[2], &size);
	L.fstype_size = size;
	L.i_mode = member(&s[0], "i_mode");
	L.i_opflags = member(&s[0], "i_opflags");
	L.i_ino = member(&s[0], "i_ino");
	L.i_sb = member(&s[0], "i_sb");
	L.i_link = member(&s[0], "i_link");
	L.i_linklen = member(&s[0], "i_linklen");
	L.i_op = member(&s[0], "i_op");
	L.i_nlink = member(&s[0], "i_nlink");
	L.i_sb_list = member(&s[0], "i_sb_list");
	L.s_id = member(&s[1], "s_id");
	L.s_type = member(&s[1], "s_type");
	L.s_list = member(&s[1], "s_list");
	L.s_inodes = member(&s[1], "s_inodes");
	L.fs_name = member(&s[2], "name");
	read_elf(dwarf_getelf(dw));
	dwarf_end(dw);
	close(fd);
	if (!L.super_blocks || !L.build_id[0]) {
		printf("FAIL layout: no super_blocks or build-id in %s\n",
		       vmlinux);
		exit(1);
	}
}

/* -------------------------------------------- memory, served by pages -- */

#define PAGE 4096u
#define MAX_PAGES 16

struct memory {
	struct page {
		uint64_t addr;
		uint8_t bytes[PAGE];
		int answer; /* 0, or INODEDUMP_ERR_FILTERED */
	} pages[MAX_PAGES];
	size_t n;
	size_t reads;
};

/* Page-aligned kernel addresses of the synthetic objects. */
#define INODE_ADDR 0xffff888000100000ull
#define SB_ADDR 0xffff888000200000ull
#define FSTYPE_ADDR 0xffff888000300000ull
#define FSNAME_ADDR (FSTYPE_ADDR + 0x800)
#define LINK_ADDR 0xffff888000400000ull
#define UNMAPPED_ADDR 0xffff888000500000ull
#define FILTERED_ADDR 0xffff888000600000ull
#define MODULE_IOPS 0xffffffffc0001040ull /* no vmlinux symbol there */

static const char link_target[] = "/synthetic/target"; /* strlen 17 */
#define LINKLEN 5

/* The bytes at [addr, addr + len), on a page of their own made on demand. */
static uint8_t *at(struct memory *m, uint64_t addr, size_t len)
{
	uint64_t page = addr & ~(uint64_t)(PAGE - 1);
	struct page *p = NULL;

	if (addr + len > page + PAGE) {
		printf("FAIL memory: 0x%" PRIx64 "+%zu crosses a page\n", addr,
		       len);
		exit(1);
	}
	for (size_t i = 0; i < m->n && !p; i++)
		if (m->pages[i].addr == page)
			p = &m->pages[i];
	if (!p && m->n < MAX_PAGES) {
		p = &m->pages[m->n++];
		p->addr = page;
	}
	if (!p) {
		printf("FAIL memory: more than %d pages\n", MAX_PAGES);
		exit(1);
	}
	return p->bytes + (addr - page);
}

static void put(struct memory *m, uint64_t base, struct member f, uint64_t v)
{
	uint8_t *p = at(m, base + f.offset, f.size);

	memcpy(p, &v, f.size < 8 ? f.size : 8); /* little-endian x86-64 */
}

/* The reader: whole reads within one page each, the rest fails. */
static int read_memory(void *buf, uint64_t address, size_t count,
		       bool physical, void *arg)
{
	struct memory *m = arg;

	m->reads++;
	if (physical)
		return INODEDUMP_ERR_FAULT;
	while (count) {
		size_t i, chunk = PAGE - (address & (PAGE - 1));

		if (chunk > count)
			chunk = count;
		for (i = 0; i < m->n; i++)
			if (m->pages[i].addr == (address & ~(uint64_t)(PAGE - 1)))
				break;
		if (i == m->n)
			return INODEDUMP_ERR_FAULT;
		if (m->pages[i].answer)
			return m->pages[i].answer;
		memcpy(buf, m->pages[i].bytes + (address & (PAGE - 1)), chunk);
		buf = (uint8_t *)buf + chunk;
		address += chunk;
		count -= chunk;
	}
	return 0;
}

static bool module_symbol(uint64_t address, char *name, size_t name_size,
			  char *module, size_t module_size, uint64_t *offset,
			  void *arg)
{
	(void)arg;
	if (address < MODULE_IOPS || address >= MODULE_IOPS + 0x100)
		return false;
	snprintf(name, name_size, "synth_symlink_iops");
	snprintf(module, module_size, "synthfs");
	*offset = address - MODULE_IOPS;
	return true;
}

/*
 * A symlink on a superblock "synth" of "tmpfs", whose cached link length
 * (LINKLEN) is not strlen(i_link), alone on its superblock, which is alone
 * on super_blocks.
 */
static void lay_out(struct memory *m)
{
	uint64_t sb_inodes = SB_ADDR + L.s_inodes.offset;
	uint64_t i_sb_list = INODE_ADDR + L.i_sb_list.offset;
	uint64_t s_list = SB_ADDR + L.s_list.offset;

	memset(m, 0, sizeof(*m));
	at(m, INODE_ADDR, L.inode_size);
	put(m, INODE_ADDR, L.i_mode, 0120777);
	put(m, INODE_ADDR, L.i_opflags, 0x40); /* IOP_CACHED_LINK */
	put(m, INODE_ADDR, L.i_ino, 4242);
	put(m, INODE_ADDR, L.i_nlink, 1);
	put(m, INODE_ADDR, L.i_sb, SB_ADDR);
	put(m, INODE_ADDR, L.i_link, LINK_ADDR);
	put(m, INODE_ADDR, L.i_linklen, LINKLEN);
	put(m, INODE_ADDR, L.i_op, MODULE_IOPS);
	memcpy(at(m, LINK_ADDR, sizeof(link_target)), link_target,
	       sizeof(link_target));

	at(m, SB_ADDR, L.sb_size);
	memcpy(at(m, SB_ADDR + L.s_id.offset, 6), "synth", 6);
	put(m, SB_ADDR, L.s_type, FSTYPE_ADDR);
	at(m, FSTYPE_ADDR, L.fstype_size);
	put(m, FSTYPE_ADDR, L.fs_name, FSNAME_ADDR);
	memcpy(at(m, FSNAME_ADDR, 6), "tmpfs", 6);

	/* super_blocks -> s_list -> back; s_inodes -> i_sb_list -> back. */
	put(m, L.super_blocks, (struct member){ 0, 8 }, s_list);
	put(m, L.super_blocks, (struct member){ 8, 8 }, s_list);
	put(m, s_list, (struct member){ 0, 8 }, L.super_blocks);
	put(m, s_list, (struct member){ 8, 8 }, L.super_blocks);
	put(m, sb_inodes, (struct member){ 0, 8 }, i_sb_list);
	put(m, sb_inodes, (struct member){ 8, 8 }, i_sb_list);
	put(m, i_sb_list, (struct member){ 0, 8 }, sb_inodes);
	put(m, i_sb_list, (struct member){ 8, 8 }, sb_inodes);

	at(m, FILTERED_ADDR, 1);
	for (size_t i = 0; i < m->n; i++)
		if (m->pages[i].addr == FILTERED_ADDR)
			m->pages[i].answer = INODEDUMP_ERR_FILTERED;
}

static char vmcoreinfo[256];
/* Opening costs vmlinux's compressed DWARF (0.5 s): tests share one. */
static struct memory *shared_memory;
static struct inodedump *shared;

static struct inodedump *open_synthetic(struct memory *m)
{
	INODEDUMP_OPTS(inodedump_reader_opts, opts);
	struct inodedump *id = NULL;
	struct inodedump_error *err;

	opts.read = read_memory;
	opts.arg = m;
	opts.vmcoreinfo = vmcoreinfo;
	opts.vmlinux = vmlinux;
	opts.symbol = module_symbol;
	err = inodedump_open_reader(&opts, &id);
	CHECKF(!err, "%s", why(err));
	inodedump_error_free(err);
	return id;
}

static char *json_of(const struct inodedump_inode *ino)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	inodedump_inode_print_json(ino, f);
	fclose(f);
	return text;
}

static char *text_of(const struct inodedump_inode *ino)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	inodedump_inode_print_text(ino, f);
	fclose(f);
	return text;
}

#define CHECK_NUMBER(ino, key, want)                                           \
	do {                                                                   \
		int64_t v_ = -1;                                               \
		bool ok_ = inodedump_inode_number(ino, key, &v_);              \
		CHECKF(ok_ && v_ == (int64_t)(want), "%s = %" PRId64 " (%s), "  \
		      "want %" PRId64, key, v_, ok_ ? "read" : "absent",       \
		      (int64_t)(want));                                        \
	} while (0)

#define CHECK_HAS(text, needle)                                                \
	CHECKF(text && strstr(text, needle), "no %s in:\n%s", needle,          \
	      text ? text : "(nothing)")

/* ------------------------------------------------------------- tests -- */

static void test_decodes_synthetic_symlink_through_reader(void)
{
	struct memory *m = shared_memory;
	struct inodedump *id = shared;
	struct inodedump_inode *ino = NULL;
	struct inodedump_error *err;
	char *json, *text;

	err = inodedump_decode(id, INODE_ADDR, INODEDUMP_DECODE_NO_PATHS, &ino);
	CHECKF(!err, "%s", why(err));
	inodedump_error_free(err);
	if (ino) {
		CHECKF(inodedump_inode_type(ino) == INODEDUMP_INODE_SYMLINK,
		      "type %d", inodedump_inode_type(ino));
		CHECK_NUMBER(ino, "ino", 4242);
		CHECK_NUMBER(ino, "mode", 0120777);
		CHECK_NUMBER(ino, "opflags", 0x40);
		CHECK_NUMBER(ino, "nlink", 1);
		CHECK_NUMBER(ino, "linklen", LINKLEN);
		CHECK_NUMBER(ino, "link_strlen", strlen(link_target));
		CHECKF(inodedump_inode_violations(ino) == 1, "%zu violations",
		      inodedump_inode_violations(ino));
		json = json_of(ino);
		CHECK_HAS(json, "\"type\": \"symlink\"");
		CHECK_HAS(json, "\"s_id\": \"synth\"");
		CHECK_HAS(json, "\"fs_type\": \"tmpfs\"");
		CHECK_HAS(json, "\"link\": \"/synthetic/target\"");
		CHECK_HAS(json, "\"opflags_names\": [\"IOP_CACHED_LINK\"]");
		CHECK_HAS(json, "\"violations\": [{\"check\": "
				"\"cached_link_length\", \"message\": "
				"\"strlen(i_link) = 17 but i_linklen = 5");
		/* Named by the caller's symbol callback (no vmlinux symbol). */
		CHECK_HAS(json, "\"i_op\": \"synth_symlink_iops\"");
		free(json);
		text = text_of(ino);
		CHECK_HAS(text, "synth_symlink_iops [synthfs]");
		free(text);
	}
	inodedump_inode_free(ino);
	CHECKF(m->reads > 0, "the reader was never called");
	CHECKF(!strcmp(inodedump_fact(id, INODEDUMP_FACT_READER), "caller"),
	      "reader %s", inodedump_fact(id, INODEDUMP_FACT_READER));
	CHECKF(!strcmp(inodedump_fact(id, INODEDUMP_FACT_OSRELEASE), "6.12.118"),
	      "osrelease %s", inodedump_fact(id, INODEDUMP_FACT_OSRELEASE));
	CHECKF(!strcmp(inodedump_fact(id, INODEDUMP_FACT_VMLINUX_BUILD_ID),
		      L.build_id),
	      "vmlinux_build_id %s",
	      inodedump_fact(id, INODEDUMP_FACT_VMLINUX_BUILD_ID));
	CHECKF(!strcmp(inodedump_fact(id, INODEDUMP_FACT_VMLINUX_SOURCE),
		      "given by the caller"),
	      "vmlinux_source %s",
	      inodedump_fact(id, INODEDUMP_FACT_VMLINUX_SOURCE));
	CHECKF(!strcmp(inodedump_fact(id, INODEDUMP_FACT_KASLR_OFFSET), "0x0"),
	      "kaslr_offset %s", inodedump_fact(id, INODEDUMP_FACT_KASLR_OFFSET));
	CHECKF(inodedump_fact(id, "no such fact") == NULL, "unknown fact");
}

static void expect_read_error(struct inodedump *id, uint64_t addr,
			      enum inodedump_error_code code)
{
	struct inodedump_inode *ino = NULL;
	struct inodedump_error *err = inodedump_decode(id, addr, 0, &ino);
	uint64_t where = 0;

	CHECKF(err && inodedump_error_code(err) == code, "code %d, want %d",
	      err ? (int)inodedump_error_code(err) : 0, (int)code);
	CHECKF(err && inodedump_error_address(err, &where) && where == addr,
	      "address 0x%" PRIx64 ", want 0x%" PRIx64, where, addr);
	CHECKF(ino == NULL, "an inode despite the error");
	inodedump_error_free(err);
}

static void test_reader_fault_and_filtered_name_the_address(void)
{
	expect_read_error(shared, UNMAPPED_ADDR, INODEDUMP_ERR_FAULT);
	expect_read_error(shared, FILTERED_ADDR, INODEDUMP_ERR_FILTERED);
}

struct sweep_seen {
	size_t inodes, sbs, matched, symlinks, violations;
	char s_id[16], fs_type[16];
	bool inode_is_ours;
};

static void on_inode(const struct inodedump_sweep_sb *sb,
		     const struct inodedump_inode *ino, void *arg)
{
	struct sweep_seen *seen = arg;
	int64_t number = 0;

	(void)sb;
	seen->inodes++;
	seen->inode_is_ours = inodedump_inode_number(ino, "ino", &number) &&
			      number == 4242;
}

static void on_sb(const struct inodedump_sweep_sb *sb, void *arg)
{
	struct sweep_seen *seen = arg;

	seen->sbs++;
	seen->matched = sb->matched;
	seen->symlinks = sb->by_type[INODEDUMP_INODE_SYMLINK];
	seen->violations = sb->violations;
	snprintf(seen->s_id, sizeof(seen->s_id), "%s", sb->s_id);
	snprintf(seen->fs_type, sizeof(seen->fs_type), "%s", sb->fs_type);
}

static struct sweep_seen sweep(struct inodedump *id,
			       const struct inodedump_sweep_opts *opts)
{
	struct sweep_seen seen = { 0 };
	struct inodedump_error *err =
		inodedump_sweep(id, opts, on_inode, on_sb, &seen);

	CHECKF(!err, "%s", why(err));
	inodedump_error_free(err);
	return seen;
}

static void test_sweep_walks_synthetic_superblock(void)
{
	struct inodedump *id = shared;
	struct sweep_seen seen;
	INODEDUMP_OPTS(inodedump_sweep_opts, opts);

	opts.flags = INODEDUMP_DECODE_NO_PATHS;
	seen = sweep(id, &opts);
	CHECKF(seen.sbs == 1 && seen.inodes == 1 && seen.inode_is_ours,
	      "%zu superblocks, %zu inodes", seen.sbs, seen.inodes);
	CHECKF(seen.symlinks == 1 && seen.violations == 1,
	      "by_type[SYMLINK] %zu, violations %zu", seen.symlinks,
	      seen.violations);
	CHECKF(!strcmp(seen.s_id, "synth") && !strcmp(seen.fs_type, "tmpfs"),
	      "s_id %s fs_type %s", seen.s_id, seen.fs_type);

	/* Two threads: the same callbacks with the same arguments. */
	opts.threads = 2;
	{
		struct sweep_seen two = sweep(id, &opts);

		CHECKF(two.sbs == seen.sbs && two.inodes == seen.inodes &&
		       two.matched == seen.matched &&
		       two.symlinks == seen.symlinks &&
		       two.violations == seen.violations &&
		       two.inode_is_ours && !strcmp(two.s_id, seen.s_id) &&
		       !strcmp(two.fs_type, seen.fs_type),
		       "threads 2: %zu superblocks, %zu inodes, s_id %s, "
		       "fs_type %s", two.sbs, two.inodes, two.s_id,
		       two.fs_type);
	}
	opts.threads = 0;

	/* The type filters, by name and by enum. */
	opts.types = "regular,directory";
	seen = sweep(id, &opts);
	CHECKF(seen.inodes == 0 && seen.matched == 0, "%zu inodes matched",
	      seen.matched);
	opts.types = NULL;
	opts.type_mask = 1u << INODEDUMP_INODE_SYMLINK;
	seen = sweep(id, &opts);
	CHECKF(seen.inodes == 1 && seen.symlinks == 1, "%zu symlinks",
	      seen.symlinks);
	opts.type_mask = 1u << INODEDUMP_INODE_REGULAR;
	seen = sweep(id, &opts);
	CHECKF(seen.inodes == 0, "%zu inodes", seen.inodes);
	opts.fs = "ext4";
	opts.type_mask = 0;
	seen = sweep(id, &opts);
	CHECKF(seen.sbs == 0, "%zu superblocks for fs ext4", seen.sbs);
	/* No options: every superblock, every type. */
	seen = sweep(id, NULL);
	CHECKF(seen.inodes == 1, "%zu inodes without options", seen.inodes);
}

/* --------------------------------------------------- opts by their size */

static void expect_usage(struct inodedump_error *err, const char *names)
{
	CHECKF(err && inodedump_error_code(err) == INODEDUMP_ERR_USAGE,
	      "code %d: %s", err ? (int)inodedump_error_code(err) : 0,
	      why(err));
	CHECKF(err && strstr(inodedump_error_message(err), names),
	      "\"%s\" does not name %s", err ? inodedump_error_message(err) : "",
	      names);
	inodedump_error_free(err);
}

static void test_reader_opts_by_size(void)
{
	struct memory *m = malloc(sizeof(*m));
	struct {
		struct inodedump_reader_opts opts;
		uint64_t future[2]; /* options of a newer inodedump.h */
	} big;
	struct inodedump_reader_opts old;
	struct inodedump *id = NULL;
	struct inodedump_error *err;

	lay_out(m);
	memset(&big, 0, sizeof(big));
	big.opts.sz = sizeof(big);
	big.opts.read = read_memory;
	big.opts.arg = m;
	big.opts.vmlinux = vmlinux;
	big.future[1] = 1;
	expect_usage(inodedump_open_reader(&big.opts, &id),
		     "inodedump_reader_opts");
	CHECKF(id == NULL, "a session despite the error");

	/*
	 * Unknown but zero: nothing asked. (With a wrong BUILD-ID, to prove
	 * ignore_build_id in the same open.)
	 */
	big.future[1] = 0;
	big.opts.vmcoreinfo = "BUILD-ID=0123456789abcdef0123456789abcdef01234567\n";
	big.opts.ignore_build_id = true;
	err = inodedump_open_reader(&big.opts, &id);
	CHECKF(!err && id, "%s", why(err));
	inodedump_error_free(err);
	inodedump_close(id);
	id = NULL;

	/* A caller built before the symbol callback existed. */
	memset(&old, 0, sizeof(old));
	old.sz = offsetof(struct inodedump_reader_opts, symbol);
	old.read = read_memory;
	old.arg = m;
	old.vmlinux = vmlinux;
	old.symbol = module_symbol; /* beyond its sz: not read */
	err = inodedump_open_reader(&old, &id);
	CHECKF(!err && id, "%s", why(err));
	inodedump_error_free(err);
	if (id) {
		struct inodedump_inode *ino = NULL;
		char *json;

		err = inodedump_decode(id, INODE_ADDR,
				       INODEDUMP_DECODE_NO_PATHS, &ino);
		CHECKF(!err, "%s", why(err));
		inodedump_error_free(err);
		json = ino ? json_of(ino) : NULL;
		CHECKF(json && !strstr(json, "synth_symlink_iops"),
		      "the callback past sz was used:\n%s", json ? json : "");
		free(json);
		inodedump_inode_free(ino);
	}
	inodedump_close(id);
	id = NULL;

	old.sz = 0;
	expect_usage(inodedump_open_reader(&old, &id), "inodedump_reader_opts");
	expect_usage(inodedump_open_reader(NULL, &id), "no options");
	old.sz = sizeof(old);
	old.read = NULL;
	expect_usage(inodedump_open_reader(&old, &id), "no read function");
	old.read = read_memory;
	old.vmlinux = NULL;
	expect_usage(inodedump_open_reader(&old, &id), "no vmlinux");
	free(m);
}

static void test_open_opts_by_size(void)
{
	struct {
		struct inodedump_open_opts opts;
		char future[24];
	} big;
	struct inodedump_open_opts old;
	struct inodedump *id = NULL;
	struct inodedump_error *err;

	memset(&big, 0, sizeof(big));
	big.opts.sz = sizeof(big);
	big.opts.vmlinux = vmlinux;
	big.future[23] = 'x';
	expect_usage(inodedump_open(vmcore, &big.opts, &id),
		     "inodedump_open_opts");
	CHECKF(id == NULL, "a session despite the error");
	/* (A zero tail works: test_reader_opts_by_size(), the same check.) */

	/* Before debug_root: a garbage debug_root past sz is not read. */
	memset(&old, 0, sizeof(old));
	old.sz = offsetof(struct inodedump_open_opts, debug_root);
	old.vmlinux = vmlinux;
	old.debug_root = (const char *)1;
	err = inodedump_open(vmcore, &old, &id);
	CHECKF(!err && id, "%s", why(err));
	inodedump_error_free(err);
	if (id)
		CHECKF(!strcmp(inodedump_fact(id, INODEDUMP_FACT_VMLINUX), vmlinux),
		      "vmlinux %s", inodedump_fact(id, INODEDUMP_FACT_VMLINUX));
	inodedump_close(id);
}

static void test_sweep_opts_by_size(void)
{
	struct {
		struct inodedump_sweep_opts opts;
		uint32_t future;
	} big;
	struct inodedump_sweep_opts old;
	struct inodedump *id = shared;
	struct sweep_seen seen;

	memset(&big, 0, sizeof(big));
	big.opts.sz = sizeof(big);
	big.opts.flags = INODEDUMP_DECODE_NO_PATHS;
	big.future = 7;
	expect_usage(inodedump_sweep(id, &big.opts, on_inode, on_sb, &seen),
		     "inodedump_sweep_opts");
	big.future = 0;
	seen = sweep(id, &big.opts);
	CHECKF(seen.inodes == 1, "%zu inodes", seen.inodes);

	/* Before type_mask: a mask past sz is not read. */
	memset(&old, 0, sizeof(old));
	old.sz = offsetof(struct inodedump_sweep_opts, type_mask);
	old.flags = INODEDUMP_DECODE_NO_PATHS;
	old.types = "symlink";
	old.type_mask = 1u << INODEDUMP_INODE_REGULAR;
	seen = sweep(id, &old);
	CHECKF(seen.inodes == 1, "%zu inodes: type_mask past sz was read",
	      seen.inodes);

	old.sz = sizeof(old);
	old.type_mask = 1u << INODEDUMP_INODE_TYPES;
	expect_usage(inodedump_sweep(id, &old, NULL, NULL, NULL), "type_mask");
	old.type_mask = 0;
	old.types = "symlink,door";
	expect_usage(inodedump_sweep(id, &old, NULL, NULL, NULL),
		     "unknown inode type 'door'");
}

static void test_inode_type_names(void)
{
	static const char *const want[INODEDUMP_INODE_TYPES] = {
		"regular", "directory", "symlink", "fifo",
		"chardev", "blockdev", "socket", "invalid",
	};

	for (int t = 0; t < INODEDUMP_INODE_TYPES; t++)
		CHECKF(inodedump_inode_type_name((enum inodedump_inode_type)t) &&
			      !strcmp(inodedump_inode_type_name(
					      (enum inodedump_inode_type)t),
				      want[t]),
		      "type %d is %s", t,
		      inodedump_inode_type_name((enum inodedump_inode_type)t));
	CHECKF(inodedump_inode_type_name(
		      (enum inodedump_inode_type)INODEDUMP_INODE_TYPES) == NULL,
	      "a name past the enum");
	CHECKF(inodedump_inode_type(NULL) == INODEDUMP_INODE_INVALID,
	      "type of no inode");
}

static void test_wrong_build_id_refused(void)
{
	struct memory *m = malloc(sizeof(*m));
	INODEDUMP_OPTS(inodedump_reader_opts, opts);
	struct inodedump *id = NULL;
	struct inodedump_error *err;

	lay_out(m);
	opts.read = read_memory;
	opts.arg = m;
	opts.vmlinux = vmlinux;
	opts.vmcoreinfo = "OSRELEASE=6.12.118\n"
			  "BUILD-ID=0123456789abcdef0123456789abcdef01234567\n";
	err = inodedump_open_reader(&opts, &id);
	CHECKF(err && inodedump_error_code(err) == INODEDUMP_ERR_MISMATCH &&
		      strstr(inodedump_error_message(err), "the caller's memory"),
	      "%s", why(err));
	inodedump_error_free(err);
	CHECKF(id == NULL, "a session despite the mismatch");
	free(m); /* ignore_build_id: in test_reader_opts_by_size() */
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s VMLINUX VMCORE\n", argv[0]);
		return 2;
	}
	vmlinux = argv[1];
	vmcore = argv[2];
	elf_version(EV_CURRENT);
	compute_layout();
	snprintf(vmcoreinfo, sizeof(vmcoreinfo),
		 "OSRELEASE=6.12.118\nBUILD-ID=%s\nPAGESIZE=4096\n", L.build_id);
	shared_memory = malloc(sizeof(*shared_memory));
	lay_out(shared_memory);
	shared = open_synthetic(shared_memory);
	if (!shared) {
		printf("%d passed, %d failed\n", passed, failed);
		return 1;
	}
	test_decodes_synthetic_symlink_through_reader();
	test_reader_fault_and_filtered_name_the_address();
	test_sweep_walks_synthetic_superblock();
	test_wrong_build_id_refused();
	test_reader_opts_by_size();
	test_open_opts_by_size();
	test_sweep_opts_by_size();
	test_inode_type_names();
	inodedump_close(shared);
	free(shared_memory);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
