// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Symbols: vmlinux's ELF symbol table with the KASLR offset applied.
 * inodedump resolves a handful of addresses per inode, so a linear scan of
 * the table per lookup beats building and sorting an index at startup.
 */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "types/dwarf_internal.h"
#include "types/types.h"

struct sym_entry {
	uint64_t value, size;
	size_t name; /* offset in the string table */
};

struct idd_symbols {
	Elf *elf;
	Elf_Data *data;
	size_t count;
	size_t strndx;
	uint64_t kaslr;
	/*
	 * A single decode names a handful of addresses: linear scans are
	 * cheapest. Past LINEAR_LOOKUPS (a sweep, a report run) a sorted
	 * index pays for itself.
	 */
	size_t lookups;
	/*
	 * Names looked up by idd_symbols_prefetch() in one pass, and whether
	 * each was found: later idd_symbols_address() calls for them scan
	 * nothing (a scan of a distribution vmlinux's table is ~3 M
	 * instructions).
	 */
	struct {
		char name[40];
		bool found;
		bool known; /* from the answers kept: in no scan */
		uint64_t addr;
	} pre[24];
	size_t npre;
	struct sym_entry *index;
	size_t nindex;
	/* The table itself when it is 64-bit and in host order (the usual). */
	const Elf64_Sym *raw;
	/*
	 * Where the table is in the file: a single decode reads it with
	 * pread(2) through a small buffer instead of faulting the whole
	 * mapping in (5 MB for a distribution kernel).
	 */
	int fd;
	uint64_t raw_offset;
	/* The string table as is, when it ends in a NUL (the usual). */
	const char *strtab;
	size_t strtab_size;
	struct idd_kallsyms *ks; /* set: the dump's kallsyms instead */
	struct idd_dwx *answers; /* kept per kernel; NULL: none */
	/*
	 * kallsyms of text symbols only (CONFIG_KALLSYMS_ALL off): 0 not
	 * known yet, 1 no, 2 yes; then the text it names, [0] core, [1] init.
	 */
	int text_only;
	uint64_t text[2][2];
};

struct inodedump_error *idd_symbols_open_kallsyms(struct idd_kallsyms *ks,
						  struct idd_symbols **out)
{
	struct idd_symbols *syms = calloc(1, sizeof(*syms));

	if (!syms) {
		idd_kallsyms_free(ks);
		return idd_nomem();
	}
	syms->fd = -1;
	syms->ks = ks;
	*out = syms;
	return NULL;
}

const struct idd_kallsyms *idd_symbols_kallsyms(const struct idd_symbols *s)
{
	return s->ks;
}

/*
 * A data symbol every kernel has: kallsyms that names neither keeps text
 * symbols only, as the kernel's scripts/kallsyms does without
 * CONFIG_KALLSYMS_ALL.
 */
static const char *const DATA_WITNESSES[] = { "init_task", "super_blocks" };

bool idd_symbols_text_only(struct idd_symbols *syms)
{
	static const char *const bounds[2][2] = { { "_stext", "_etext" },
						  { "_sinittext",
						    "_einittext" } };
	uint64_t a;

	if (!syms->ks)
		return false;
	if (syms->text_only)
		return syms->text_only == 2;
	syms->text_only = 2;
	for (size_t i = 0; i < 2 && syms->text_only == 2; i++)
		if (idd_kallsyms_address(syms->ks, DATA_WITNESSES[i], &a))
			syms->text_only = 1;
	for (size_t r = 0; r < 2 && syms->text_only == 2; r++)
		if (!idd_kallsyms_address(syms->ks, bounds[r][0],
					  &syms->text[r][0]) ||
		    !idd_kallsyms_address(syms->ks, bounds[r][1],
					  &syms->text[r][1]))
			syms->text[r][0] = syms->text[r][1] = 0;
	return syms->text_only == 2;
}

/*
 * Whether kallsyms can name addr: anywhere when it has data symbols;
 * else only in the text it keeps (the kernel's own is_ksym_addr()), an
 * address past a function being data it has no name for. Without the
 * bounds of its text, nowhere.
 */
static bool kallsyms_names_it(struct idd_symbols *syms, uint64_t addr)
{
	if (!idd_symbols_text_only(syms))
		return true;
	for (size_t r = 0; r < 2; r++)
		if (syms->text[r][1] && addr >= syms->text[r][0] &&
		    addr <= syms->text[r][1])
			return true;
	return false;
}

/* Symbol i, without gelf_getsym's copy where the table can be read as is. */
static bool get_sym(const struct idd_symbols *syms, size_t i, GElf_Sym *out)
{
	if (syms->raw) {
		*out = syms->raw[i];
		return true;
	}
	return gelf_getsym(syms->data, (int)i, out) != NULL;
}

#define LINEAR_LOOKUPS 8

struct inodedump_error *idd_symbols_open(Elf *elf, int fd,
					 uint64_t kaslr_offset,
					 struct idd_symbols **out)
{
	struct idd_symbols *syms = calloc(1, sizeof(*syms));
	Elf_Scn *scn = NULL;

	if (!syms)
		return idd_nomem();
	syms->elf = elf;
	syms->fd = -1;
	syms->kaslr = kaslr_offset;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB)
			continue;
		syms->data = elf_getdata(scn, NULL);
		syms->strndx = shdr.sh_link;
		if (syms->data && gelf_getclass(elf) == ELFCLASS64 &&
		    syms->data->d_type == ELF_T_SYM &&
		    shdr.sh_entsize == sizeof(Elf64_Sym)) {
			syms->raw = syms->data->d_buf; /* in the host's order */
			/* the file's bytes, read in chunks: if in the host's */
			syms->fd = elf_getident(elf, NULL)[EI_DATA] ==
						   (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
							    ? ELFDATA2LSB
							    : ELFDATA2MSB)
					   ? fd
					   : -1;
			syms->raw_offset = shdr.sh_offset;
		}
		if (syms->data && shdr.sh_entsize)
			syms->count = shdr.sh_size / shdr.sh_entsize;
		{
			Elf_Scn *str = elf_getscn(elf, syms->strndx);
			Elf_Data *sd = str ? elf_getdata(str, NULL) : NULL;

			if (sd && sd->d_buf && sd->d_size &&
			    ((const char *)sd->d_buf)[sd->d_size - 1] == '\0') {
				syms->strtab = sd->d_buf;
				syms->strtab_size = sd->d_size;
			}
		}
		break;
	}
	if (!syms->data || !syms->count) {
		free(syms);
		return idd_error(INODEDUMP_ERR_VMLINUX,
				 "vmlinux has no symbol table (.symtab)");
	}
	*out = syms;
	return NULL;
}

void idd_symbols_answers(struct idd_symbols *syms, struct idd_dwx *answers)
{
	syms->answers = answers;
}

void idd_symbols_set_kaslr(struct idd_symbols *syms, uint64_t kaslr_offset)
{
	syms->kaslr = kaslr_offset;
}

void idd_anchor(struct idd_types *types, struct idd_symbols *syms,
		const char *cu_hint, const char *const *functions)
{
	if (syms->ks)
		return; /* BTF: no units to find */
	for (; *functions; functions++) {
		uint64_t addr;

		/* the next name where this one's unit is not placed (an
		 * __init function outside .debug_aranges, one that moved) */
		if (idd_symbols_address(syms, *functions, &addr)) {
			idd_types_anchor(types, cu_hint, addr - syms->kaslr);
			if (idd_types_anchored(types, cu_hint))
				return;
		}
	}
}

void idd_symbols_close(struct idd_symbols *syms)
{
	if (syms) {
		free(syms->index);
		idd_kallsyms_free(syms->ks);
	}
	free(syms);
}

static bool usable(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return sym->st_shndx != SHN_UNDEF && sym->st_shndx != SHN_ABS &&
	       (type == STT_FUNC || type == STT_OBJECT || type == STT_NOTYPE);
}

/* A symbol's name, from the string table in place where we can. */
static const char *sym_name(struct idd_symbols *syms, size_t off)
{
	if (syms->strtab)
		return off < syms->strtab_size ? syms->strtab + off : NULL;
	return elf_strptr(syms->elf, syms->strndx, off);
}

static bool nameable(struct idd_symbols *syms, const GElf_Sym *sym)
{
	const char *name = sym_name(syms, sym->st_name);

	return name && *name && name[0] != '$';
}

static int cmp_entry(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/* Sized before unsized at one address: the sized one names it. */
	return (x->size == 0) - (y->size == 0);
}

/*
 * The order of cmp_entry(), by a stable radix sort: sized entries first,
 * then four passes over 16 bits of the value. qsort's comparisons cost
 * more than the rest of a sweep's symbol work.
 */
static void sort_entries(struct sym_entry *e, size_t n)
{
	struct sym_entry *tmp = malloc(n * sizeof(*tmp));
	size_t *count = calloc(65537, sizeof(*count));
	size_t k = 0;

	if (!tmp || !count) {
		free(tmp);
		free(count);
		qsort(e, n, sizeof(*e), cmp_entry);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (e[i].size)
			tmp[k++] = e[i];
	for (size_t i = 0; i < n; i++)
		if (!e[i].size)
			tmp[k++] = e[i];
	memcpy(e, tmp, n * sizeof(*e));
	for (unsigned shift = 0; shift < 64; shift += 16) {
		memset(count, 0, 65537 * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[((e[i].value >> shift) & 0xffff) + 1]++;
		for (size_t d = 1; d <= 65536; d++)
			count[d] += count[d - 1];
		for (size_t i = 0; i < n; i++)
			tmp[count[(e[i].value >> shift) & 0xffff]++] = e[i];
		memcpy(e, tmp, n * sizeof(*e));
	}
	free(tmp);
	free(count);
}

/*
 * Only data objects are indexed: what gets named is operations tables
 * (const structs), and leaving out the functions makes the index a third
 * of the size to sort.
 */
static void build_index(struct idd_symbols *syms)
{
	syms->index = malloc(syms->count * sizeof(*syms->index));
	if (!syms->index)
		return;
	for (size_t i = 1; i < syms->count; i++) {
		GElf_Sym sym;

		if (!get_sym(syms, i, &sym) || !usable(&sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
		    !nameable(syms, &sym))
			continue;
		syms->index[syms->nindex++] = (struct sym_entry){
			sym.st_value, sym.st_size, sym.st_name
		};
	}
	sort_entries(syms->index, syms->nindex);
}

/*
 * *out: name or name+0x.. for link, NULL when the symbol is no owner of
 * it; malloc'd.
 */
static struct inodedump_error *format_name(struct idd_symbols *syms,
					   size_t name_off, uint64_t value,
					   uint64_t size, uint64_t link,
					   char **out)
{
	const char *name = sym_name(syms, name_off);

	*out = NULL;
	/* An unsized symbol far below the address is no owner of it. */
	if (!name || (!size && link - value >= 0x10000))
		return NULL;
	if (link == value)
		*out = strdup(name);
	else
		*out = idd_strdup_printf("%s+0x%llx", name,
					 (unsigned long long)(link - value));
	return *out ? NULL : idd_nomem();
}

/* The greatest symbol at or below link that is unsized or contains it. */
static struct inodedump_error *indexed_name(struct idd_symbols *syms,
					    uint64_t link, char **out)
{
	size_t lo = 0, hi = syms->nindex;

	*out = NULL;
	while (lo < hi) { /* first entry with value > link */
		size_t mid = lo + (hi - lo) / 2;

		if (syms->index[mid].value <= link)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, steps = 0; i > 0 && steps < 256; i--, steps++) {
		const struct sym_entry *e = &syms->index[i - 1];
		size_t first = i - 1;

		if (e->size && link - e->value >= e->size)
			continue;
		/* Among aliases at this address the sized sort first. */
		while (first > 0 && syms->index[first - 1].value == e->value)
			first--;
		e = &syms->index[first];
		if (e->size && link - e->value >= e->size)
			e = &syms->index[i - 1];
		return format_name(syms, e->name, e->value, e->size, link, out);
	}
	return NULL;
}

void idd_symbols_expect_many(struct idd_symbols *syms)
{
	if (!syms->index && !syms->ks)
		build_index(syms);
}

/* The linear scan's answer for link (name or name+0x..), malloc'd. */
static struct inodedump_error *scanned_name(struct idd_symbols *syms,
					    uint64_t link, char **name)
{
	GElf_Sym best = { 0 };
	const char *best_name = NULL;

	for (size_t i = 1; i < syms->count; i++) {
		GElf_Sym sym;
		const char *n;

		if (!get_sym(syms, i, &sym) || !usable(&sym) ||
		    sym.st_value > link)
			continue;
		if (best_name && sym.st_value < best.st_value)
			continue;
		/* A sized symbol must contain the address. */
		if (sym.st_size && link - sym.st_value >= sym.st_size)
			continue;
		n = elf_strptr(syms->elf, syms->strndx, sym.st_name);
		if (!n || !*n || n[0] == '$')
			continue;
		/* Prefer a sized symbol over an alias marker at the same address. */
		if (best_name && sym.st_value == best.st_value && best.st_size &&
		    !sym.st_size)
			continue;
		best = sym;
		best_name = n;
	}
	if (!best_name)
		return NULL;
	/* An unsized symbol far below the address is no owner of it. */
	if (!best.st_size && link - best.st_value >= 0x10000)
		return NULL;
	if (link == best.st_value)
		*name = strdup(best_name);
	else
		*name = idd_strdup_printf("%s+0x%llx", best_name,
					  (unsigned long long)(link -
							       best.st_value));
	return *name ? NULL : idd_nomem();
}

struct inodedump_error *idd_symbols_name(struct idd_symbols *syms,
					 uint64_t addr, char **name)
{
	uint64_t link = addr - syms->kaslr;
	struct idd_dwx_answer a;
	struct inodedump_error *err;

	*name = NULL;
	if (syms->ks)
		return kallsyms_names_it(syms, addr)
			       ? idd_kallsyms_name(syms->ks, addr, name)
			       : NULL;
	if (++syms->lookups > LINEAR_LOOKUPS && !syms->index)
		build_index(syms);
	if (syms->index)
		return indexed_name(syms, link, name);
	/* The scan's answers only: the index (a sweep's) names fewer. */
	if (syms->answers &&
	    idd_dwx_recall_answer(syms->answers, IDD_DWX_SYM_NAME, link, "",
				  &a)) {
		if (a.found && a.aux_name && !(*name = strdup(a.aux_name)))
			return idd_nomem();
		return NULL;
	}
	err = scanned_name(syms, link, name);
	if (!err && syms->answers)
		idd_dwx_remember_answer(
			syms->answers, IDD_DWX_SYM_NAME, link, "",
			&(struct idd_dwx_answer){ .found = *name != NULL,
						  .aux_name = *name });
	return err;
}

/* A name's first four bytes, hashed to 16 bits (for a bitmap filter). */
static unsigned prefix16(const char *s)
{
	uint32_t k = 0;

	for (int i = 0; i < 4 && s[i]; i++)
		k |= (uint32_t)(unsigned char)s[i] << (8 * i);
	return (unsigned)((k * 2654435761u) >> 16);
}

void idd_symbols_prefetch(struct idd_symbols *syms, const char *const *names,
			  size_t n)
{
	/* 4 bytes, not 1: on 6.x half the symbols begin "__pfx_" */
	uint8_t first[65536 / 8] = { 0 };
	bool byte0[256] = { false };
	size_t start = syms->npre, left = 0;
	int64_t link;

	if (syms->ks)
		return; /* kallsyms: looked up by its own index */
	for (size_t k = 0; k < n && syms->npre < sizeof(syms->pre) /
					sizeof(syms->pre[0]); k++) {
		bool dup = false;

		if (strlen(names[k]) >= sizeof(syms->pre[0].name))
			continue;
		for (size_t j = 0; j < syms->npre; j++)
			dup |= !strcmp(syms->pre[j].name, names[k]);
		if (dup)
			continue;
		strcpy(syms->pre[syms->npre].name, names[k]);
		syms->pre[syms->npre].found = false;
		syms->pre[syms->npre].known = false;
		if (syms->answers &&
		    idd_dwx_recall(syms->answers, IDD_DWX_SYM_ADDR, 0,
				   names[k], &syms->pre[syms->npre].found,
				   &link)) {
			/* Known: looked for in no scan. */
			syms->pre[syms->npre].known = true;
			if (syms->pre[syms->npre].found)
				syms->pre[syms->npre].addr =
					(uint64_t)link + syms->kaslr;
			syms->npre++;
			continue;
		}
		first[prefix16(names[k]) / 8] |= 1u << (prefix16(names[k]) % 8);
		byte0[(unsigned char)names[k][0]] = true;
		syms->npre++;
		left++;
	}
	for (size_t i = 1; i < syms->count && left; i++) {
		GElf_Sym sym;
		const char *nm;
		size_t want = syms->npre;

		if (syms->raw && syms->strtab) {
			/* by the name in place first: decoding the symbol is dear */
			const char *raw;

			if (syms->raw[i].st_name >= syms->strtab_size)
				continue;
			raw = syms->strtab + syms->raw[i].st_name;
			if (!byte0[(unsigned char)raw[0]])
				continue;
			unsigned h = prefix16(raw);

			if (!(first[h / 8] >> (h % 8) & 1))
				continue;
			for (want = start; want < syms->npre; want++)
				if (!syms->pre[want].found &&
				    !syms->pre[want].known &&
				    !strcmp(raw, syms->pre[want].name))
					break;
			if (want == syms->npre)
				continue;
		}
		if (!get_sym(syms, i, &sym) || !usable(&sym))
			continue;
		nm = sym_name(syms, sym.st_name);
		for (size_t j = start; nm && j < syms->npre; j++)
			if (!syms->pre[j].found && !syms->pre[j].known &&
			    !strcmp(nm, syms->pre[j].name)) {
				syms->pre[j].found = true;
				syms->pre[j].addr = sym.st_value + syms->kaslr;
				left--;
			}
	}
	for (size_t j = start; syms->answers && j < syms->npre; j++)
		if (!syms->pre[j].known)
			idd_dwx_remember(syms->answers, IDD_DWX_SYM_ADDR, 0,
					 syms->pre[j].name, syms->pre[j].found,
					 syms->pre[j].found
						 ? (int64_t)(syms->pre[j].addr -
							     syms->kaslr)
						 : 0);
}

static bool scanned_address(struct idd_symbols *syms, const char *name,
			    int64_t *link);

bool idd_symbols_address(struct idd_symbols *syms, const char *name,
			 uint64_t *addr)
{
	int64_t link;
	bool found;

	if (syms->ks)
		return idd_kallsyms_address(syms->ks, name, addr);
	for (size_t j = 0; j < syms->npre; j++)
		if (!strcmp(syms->pre[j].name, name)) {
			if (syms->pre[j].found)
				*addr = syms->pre[j].addr;
			return syms->pre[j].found;
		}
	if (syms->answers &&
	    idd_dwx_recall(syms->answers, IDD_DWX_SYM_ADDR, 0, name, &found,
			   &link)) {
		if (found)
			*addr = (uint64_t)link + syms->kaslr;
		return found;
	}
	found = scanned_address(syms, name, &link);
	if (syms->answers)
		idd_dwx_remember(syms->answers, IDD_DWX_SYM_ADDR, 0, name,
				 found, found ? link : 0);
	if (found)
		*addr = (uint64_t)link + syms->kaslr;
	return found;
}

static bool scanned_address(struct idd_symbols *syms, const char *name,
			    int64_t *link)
{
	for (size_t i = 1; i < syms->count; i++) {
		GElf_Sym sym;
		const char *n;

		/* The first byte of the name before anything else. */
		if (syms->raw && syms->strtab &&
		    (syms->raw[i].st_name >= syms->strtab_size ||
		     syms->strtab[syms->raw[i].st_name] != name[0]))
			continue;
		if (!get_sym(syms, i, &sym) || !usable(&sym))
			continue;
		n = sym_name(syms, sym.st_name);
		if (n && !strcmp(n, name)) {
			*link = (int64_t)sym.st_value;
			return true;
		}
	}
	return false;
}

Elf_Scn *idd_elf_section(Elf *elf, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *n;

		if (gelf_getshdr(scn, &shdr) &&
		    (n = elf_strptr(elf, shstrndx, shdr.sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

struct inodedump_error *idd_elf_build_id(Elf *elf, char **hex)
{
	Elf_Scn *scn = NULL;

	*hex = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		GElf_Nhdr nhdr;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nhdr, &name_off,
					   &desc_off)) > 0) {
			const char *nname = (const char *)data->d_buf + name_off;
			const uint8_t *desc =
				(const uint8_t *)data->d_buf + desc_off;

			if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 ||
			    memcmp(nname, "GNU", 4) != 0)
				continue;
			*hex = malloc(2 * nhdr.n_descsz + 1);
			if (!*hex)
				return idd_nomem();
			for (size_t i = 0; i < nhdr.n_descsz; i++)
				sprintf(*hex + 2 * i, "%02x", desc[i]);
			(*hex)[2 * nhdr.n_descsz] = '\0';
			return NULL;
		}
	}
	return NULL;
}

unsigned idd_elf_machine(Elf *elf, bool *is64)
{
	GElf_Ehdr ehdr;

	*is64 = false;
	if (!gelf_getehdr(elf, &ehdr))
		return 0;
	*is64 = ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	return ehdr.e_machine;
}

/* On error no name is handed back: out[] all NULL. */
static struct inodedump_error *drop_names_on_error(struct inodedump_error *err,
						   char **out, size_t n)
{
	for (size_t k = 0; err && k < n; k++) {
		free(out[k]);
		out[k] = NULL;
	}
	return err;
}

/*
 * Every one of the n data addresses named from the answers kept (true), or
 * none (false: out untouched). *err: no memory.
 */
static bool recalled_names(struct idd_symbols *syms, const uint64_t *addrs,
			   size_t n, char **out,
			   struct inodedump_error **err)
{
	struct idd_dwx_answer a;

	*err = NULL;
	if (!syms->answers)
		return false;
	for (size_t k = 0; k < n; k++)
		if (!idd_dwx_recall_answer(syms->answers, IDD_DWX_SYM_DATA,
					   addrs[k] - syms->kaslr, "", &a))
			return false;
	for (size_t k = 0; k < n && !*err; k++) {
		idd_dwx_recall_answer(syms->answers, IDD_DWX_SYM_DATA,
				      addrs[k] - syms->kaslr, "", &a);
		if (a.found && a.aux_name && !(out[k] = strdup(a.aux_name)))
			*err = idd_nomem();
	}
	return true;
}

/*
 * Name several data addresses in one pass over the symbol table (or
 * through the index once built): a decode names its four operations
 * tables together.
 */
struct inodedump_error *idd_symbols_names(struct idd_symbols *syms,
					  const uint64_t *addrs, size_t n,
					  char **out)
{
	struct inodedump_error *err = NULL;

	struct {
		GElf_Sym sym;
		bool found;
	} best[8] = { 0 };

	for (size_t i = 0; i < n; i++)
		out[i] = NULL;
	if (n > 8 || syms->ks || ++syms->lookups > LINEAR_LOOKUPS ||
	    syms->index) {
		for (size_t i = 0; i < n && !err; i++)
			err = idd_symbols_name(syms, addrs[i], &out[i]);
		return drop_names_on_error(err, out, n);
	}
	if (recalled_names(syms, addrs, n, out, &err))
		return drop_names_on_error(err, out, n);
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t k = 0; k < n; k++) {
		uint64_t link = addrs[k] - syms->kaslr;

		lo = link < lo ? link : lo;
		hi = link > hi ? link : hi;
	}
	/* An unsized symbol up to 64 KiB below is still a candidate. */
	const uint64_t lo_far = lo > 0x10000 ? lo - 0x10000 : 0;
	enum { CHUNK = 4096 }; /* symbols per read: 96 KiB */
	Elf64_Sym *chunk = syms->raw && syms->fd >= 0
				   ? malloc(CHUNK * sizeof(*chunk))
				   : NULL;
	const size_t count = syms->count;

	for (size_t base = 1, have; base < count; base += have) {
		const Elf64_Sym *r = syms->raw ? syms->raw + base : NULL;

		have = count - base < CHUNK ? count - base : CHUNK;
		if (chunk) {
			ssize_t got = pread(syms->fd, chunk, have * sizeof(*chunk),
					    (off_t)(syms->raw_offset +
						    base * sizeof(*chunk)));

			if (got == (ssize_t)(have * sizeof(*chunk))) {
				r = chunk;
			} else {
				free(chunk); /* read it in place, then */
				chunk = NULL;
			}
		}
		for (size_t j = 0; j < have; j++) {
			GElf_Sym sym;

			/*
			 * Operations tables are data objects (see build_index);
			 * most symbols are functions, so look at the value and
			 * type in place before copying anything. (One loop for
			 * the table in place: this is the hot path.)
			 */
			if (r) {
				for (; j < have; j++)
					if (r[j].st_value + r[j].st_size >= lo_far &&
					    r[j].st_value <= hi &&
					    ELF64_ST_TYPE(r[j].st_info) == STT_OBJECT)
						break;
				if (j == have)
					break;
				sym = r[j];
			} else if (!get_sym(syms, base + j, &sym)) {
				continue;
			}
			if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT || !usable(&sym))
				continue;
			for (size_t k = 0; k < n; k++) {
				uint64_t link = addrs[k] - syms->kaslr;

				if (sym.st_value > link ||
				    (best[k].found && sym.st_value < best[k].sym.st_value) ||
				    (sym.st_size && link - sym.st_value >= sym.st_size) ||
				    (best[k].found && sym.st_value == best[k].sym.st_value &&
				     best[k].sym.st_size && !sym.st_size) ||
				    !nameable(syms, &sym))
					continue;
				best[k].sym = sym;
				best[k].found = true;
			}
		}
	}
	free(chunk);
	for (size_t k = 0; k < n && !err; k++)
		if (best[k].found)
			err = format_name(syms, best[k].sym.st_name,
					  best[k].sym.st_value,
					  best[k].sym.st_size,
					  addrs[k] - syms->kaslr, &out[k]);
	for (size_t k = 0; k < n && !err && syms->answers; k++)
		idd_dwx_remember_answer(
			syms->answers, IDD_DWX_SYM_DATA, addrs[k] - syms->kaslr,
			"", &(struct idd_dwx_answer){ .found = out[k] != NULL,
						      .aux_name = out[k] });
	return drop_names_on_error(err, out, n);
}
