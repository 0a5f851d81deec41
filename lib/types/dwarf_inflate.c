// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A vmlinux's DWARF as the cache keeps it: which DWARF it is (build-id and
 * a fingerprint of its .debug_* sections), and its SHF_COMPRESSED sections
 * inflated once into CACHE_DIR/dwarf.elf (a dwz supplementary file's,
 * dwarf_alt.c, into dwz.elf beside it). libdw inflates every compressed
 * .debug_* section at dwarf_begin_elf, on every run, although a decode
 * reads a few hundred DIEs (1.46 G instructions of 1.67 G for the committed
 * fixture); the copy is mapped instead. It holds only the sections dwarf.c's
 * calls make libdw read (KEPT), and a section naming the vmlinux it came
 * from; it is checked on open and made again when it does not match.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "types/dwarf_internal.h"
#include "types/types.h"

#define IDENTITY ".inodedump"
#define IDENTITY_MAGIC "IDDINFL1"

/*
 * What libdw reads for DIEs and their attributes: the DIEs, their
 * abbreviations, strings (by offset, by index), addresses by index, range
 * lists a unit's DIE may name, and .debug_aranges (dwarf.c's anchor).
 * Line tables, locations and call frames are never asked for.
 */
static const char *const KEPT[] = {
	".debug_info",	  ".debug_abbrev",      ".debug_str",
	".debug_line_str", ".debug_str_offsets", ".debug_addr",
	".debug_aranges",  ".debug_types",	".debug_ranges",
	".debug_rnglists",
};

struct identity {
	char magic[8];
	uint64_t fingerprint, inflated_size;
	char build_id[136];
};

uint64_t idd_dwarf_hash(uint64_t seed, const void *data, size_t size)
{
	const unsigned char *p = data;
	uint64_t h = seed ^ (0x9e3779b97f4a7c15ull * (size + 1));

	for (; size >= 8; p += 8, size -= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	for (; size; p++, size--)
		h = (h ^ *p) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return h;
}

static bool kept(const char *name)
{
	for (size_t i = 0; i < sizeof(KEPT) / sizeof(KEPT[0]); i++)
		if (!strcmp(name, KEPT[i]))
			return true;
	return false;
}

static const char *section_name(Elf *elf, size_t shstrndx, Elf_Scn *scn,
				GElf_Shdr *shdr)
{
	if (!gelf_getshdr(scn, shdr))
		return NULL;
	return elf_strptr(elf, shstrndx, shdr->sh_name);
}

/* A section's size once inflated, from its compression header alone. */
static uint64_t inflated_size(Elf_Scn *scn, const GElf_Shdr *shdr)
{
	GElf_Chdr chdr;

	if (!(shdr->sh_flags & SHF_COMPRESSED))
		return shdr->sh_size;
	return gelf_getchdr(scn, &chdr) ? chdr.ch_size : 0;
}

void idd_dwarf_id_of(Elf *elf, struct idd_dwarf_id *out)
{
	struct inodedump_error *err;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t h = 0;

	memset(out, 0, sizeof(*out));
	err = idd_elf_build_id(elf, &out->build_id);
	inodedump_error_free(err);
	if (err || !out->build_id || strlen(out->build_id) >= 136 ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0) {
		free(out->build_id);
		out->build_id = NULL;
		return;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name = section_name(elf, shstrndx, scn, &shdr);
		uint64_t size;

		if (!name || strncmp(name, ".debug_", 7))
			continue;
		size = inflated_size(scn, &shdr);
		h = idd_dwarf_hash(h, name, strlen(name) + 1);
		h = idd_dwarf_hash(h, &size, sizeof(size));
		/* libdw inflates every one it knows, kept or not. */
		if (shdr.sh_flags & SHF_COMPRESSED)
			out->compressed = true;
		if (kept(name))
			out->inflated_size += size;
	}
	out->fingerprint =
		idd_dwarf_hash(h, out->build_id, strlen(out->build_id));
}

void idd_dwarf_id_free(struct idd_dwarf_id *id)
{
	free(id->build_id);
	id->build_id = NULL;
}

static bool same_identity(Elf_Scn *scn, const struct idd_dwarf_id *id)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	struct identity ident;

	if (!data || data->d_size != sizeof(ident) || !data->d_buf)
		return false;
	memcpy(&ident, data->d_buf, sizeof(ident));
	return !memcmp(ident.magic, IDENTITY_MAGIC, sizeof(ident.magic)) &&
	       ident.fingerprint == id->fingerprint &&
	       ident.inflated_size == id->inflated_size &&
	       !ident.build_id[sizeof(ident.build_id) - 1] &&
	       !strcmp(ident.build_id, id->build_id);
}

/* Why the copy cannot stand for vmlinux; NULL: it can. */
static const char *check_copy(Elf *copy, Elf *vmlinux, uint64_t file_size,
			      const struct idd_dwarf_id *id)
{
	GElf_Ehdr a, b;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t total = 0;
	bool named = false;

	if (elf_kind(copy) != ELF_K_ELF || !gelf_getehdr(copy, &a) ||
	    !gelf_getehdr(vmlinux, &b) || a.e_machine != b.e_machine ||
	    memcmp(a.e_ident, b.e_ident, EI_NIDENT) ||
	    elf_getshdrstrndx(copy, &shstrndx) != 0)
		return "it is not an ELF file of vmlinux's machine";
	while ((scn = elf_nextscn(copy, scn))) {
		GElf_Shdr shdr;
		const char *name = section_name(copy, shstrndx, scn, &shdr);

		if (!name)
			return "a section has no name";
		if (!strcmp(name, ".shstrtab"))
			continue;
		if (!strcmp(name, IDENTITY)) {
			if (!same_identity(scn, id))
				return "it was made from another vmlinux";
			named = true;
			continue;
		}
		if (!kept(name) || shdr.sh_type == SHT_NOBITS ||
		    (shdr.sh_flags & SHF_COMPRESSED) ||
		    shdr.sh_offset > file_size ||
		    shdr.sh_size > file_size - shdr.sh_offset)
			return "a section is not what was written";
		total += shdr.sh_size;
	}
	if (!named)
		return "it names no vmlinux";
	if (total != id->inflated_size)
		return "its sections' sizes do not add up";
	return NULL;
}

struct writer {
	Elf *src, *out;
	char names[4096];
	size_t names_size;
};

static size_t add_name(struct writer *w, const char *name)
{
	size_t off = w->names_size, n = strlen(name) + 1;

	if (off + n > sizeof(w->names))
		return 0;
	memcpy(w->names + off, name, n);
	w->names_size += n;
	return off;
}

static Elf_Scn *add_section(struct writer *w, const char *name,
			    const GElf_Shdr *like, void *buf, size_t size)
{
	Elf_Scn *scn = elf_newscn(w->out);
	Elf_Data *data = scn ? elf_newdata(scn) : NULL;
	GElf_Shdr shdr = {
		.sh_name = add_name(w, name),
		.sh_type = like ? like->sh_type : SHT_PROGBITS,
		.sh_flags = like ? like->sh_flags & ~(GElf_Xword)SHF_COMPRESSED
				 : 0,
		.sh_addralign = like && like->sh_addralign ? like->sh_addralign
							    : 1,
		.sh_entsize = like ? like->sh_entsize : 0,
	};

	if (!data || !shdr.sh_name)
		return NULL;
	data->d_buf = buf;
	data->d_size = size;
	data->d_type = ELF_T_BYTE;
	data->d_align = shdr.sh_addralign;
	data->d_version = EV_CURRENT;
	return gelf_update_shdr(scn, &shdr) ? scn : NULL;
}

/* The kept sections of src, inflated, then the identity and the names. */
static bool write_copy(struct writer *w, const struct idd_dwarf_id *id,
		       struct identity *ident)
{
	GElf_Ehdr src_eh, eh;
	Elf_Scn *scn = NULL, *names;
	size_t shstrndx;

	w->names_size = 1;
	w->names[0] = '\0';
	if (!gelf_getehdr(w->src, &src_eh) ||
	    elf_getshdrstrndx(w->src, &shstrndx) != 0 ||
	    !gelf_newehdr(w->out, src_eh.e_ident[EI_CLASS]) ||
	    !gelf_getehdr(w->out, &eh))
		return false;
	memcpy(eh.e_ident, src_eh.e_ident, EI_NIDENT);
	eh.e_type = src_eh.e_type;
	eh.e_machine = src_eh.e_machine;
	eh.e_version = EV_CURRENT;
	eh.e_flags = src_eh.e_flags;
	while ((scn = elf_nextscn(w->src, scn))) {
		GElf_Shdr shdr;
		const char *name = section_name(w->src, shstrndx, scn, &shdr);
		Elf_Data *data;

		if (!name || !kept(name) || shdr.sh_type == SHT_NOBITS)
			continue;
		if ((shdr.sh_flags & SHF_COMPRESSED) &&
		    (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, &shdr)))
			return false;
		data = elf_getdata(scn, NULL);
		if (!data || data->d_size != shdr.sh_size ||
		    !add_section(w, name, &shdr, data->d_buf, data->d_size))
			return false;
	}
	memcpy(ident->magic, IDENTITY_MAGIC, sizeof(ident->magic));
	ident->fingerprint = id->fingerprint;
	ident->inflated_size = id->inflated_size;
	snprintf(ident->build_id, sizeof(ident->build_id), "%s", id->build_id);
	if (!add_section(w, IDENTITY, NULL, ident, sizeof(*ident)))
		return false;
	/* The last name is its own: the section's size is known after it. */
	names = add_section(w, ".shstrtab", NULL, w->names, 0);
	if (!names)
		return false;
	{
		GElf_Shdr shdr;
		Elf_Data *data = elf_getdata(names, NULL);

		if (!data || !gelf_getshdr(names, &shdr))
			return false;
		shdr.sh_type = SHT_STRTAB;
		data->d_size = w->names_size;
		if (!gelf_update_shdr(names, &shdr))
			return false;
		eh.e_shstrndx = elf_ndxscn(names);
	}
	return gelf_update_ehdr(w->out, &eh) &&
	       elf_update(w->out, ELF_C_WRITE) >= 0;
}

/* Make the copy under a temporary name, then rename it into place. */
static bool make_copy(int vmlinux_fd, const struct idd_dwarf_id *id,
		      const char *dir, const char *file)
{
	struct writer w = { 0 };
	struct identity ident = { 0 };
	char tmp[4096 + 64];
	int fd = idd_cache_create(dir, file, tmp, sizeof(tmp)), e = 0;
	bool ok;

	if (fd < 0)
		return false;
	w.src = elf_begin(vmlinux_fd, ELF_C_READ_MMAP, NULL);
	w.out = w.src ? elf_begin(fd, ELF_C_WRITE, NULL) : NULL;
	errno = 0;
	ok = w.out && write_copy(&w, id, &ident);
	if (!ok)
		e = errno ? errno : EIO;
	if (w.out)
		elf_end(w.out);
	if (w.src)
		elf_end(w.src);
	if (close(fd) != 0 && ok) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		unlink(tmp);
		errno = e;
		return false;
	}
	return idd_cache_commit(dir, file, tmp);
}

/* The copy in dir, opened and checked; NULL with *why when it is not fit. */
static Elf *open_copy(Elf *vmlinux, const struct idd_dwarf_id *id,
		      const char *path, int *fd_out, const char **why)
{
	struct stat st;
	Elf *copy;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	*why = NULL;
	if (fd < 0) {
		if (errno != ENOENT)
			*why = strerror(errno);
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "it is not a regular file";
		close(fd);
		return NULL;
	}
	copy = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!copy || (*why = check_copy(copy, vmlinux, (uint64_t)st.st_size,
					id))) {
		if (!*why)
			*why = "it is not an ELF file";
		if (copy)
			elf_end(copy);
		close(fd);
		return NULL;
	}
	*fd_out = fd;
	return copy;
}

Elf *idd_dwarf_inflated(Elf *vmlinux, int fd, const struct idd_dwarf_id *id,
			const char *cache_dir, const char *file, int *fd_out,
			char **note)
{
	_cleanup_free_ char *path = NULL;
	const char *why;
	Elf *copy;

	*note = NULL;
	*fd_out = -1;
	if (!id->compressed || !id->build_id || !cache_dir ||
	    !(path = idd_strdup_printf("%s/%s", cache_dir, file)))
		return NULL;
	copy = open_copy(vmlinux, id, path, fd_out, &why);
	if (copy)
		return copy;
	if (why)
		*note = idd_strdup_printf("the inflated DWARF %s was not used "
					  "(%s): made again", path, why);
	if (!make_copy(fd, id, cache_dir, file)) {
		free(*note);
		*note = idd_strdup_printf(
			"cannot keep the inflated DWARF %s (%s): its "
			"compressed sections are inflated on every run",
			path, strerror(errno));
		return NULL;
	}
	copy = open_copy(vmlinux, id, path, fd_out, &why);
	if (!copy) {
		free(*note);
		*note = idd_strdup_printf("the inflated DWARF %s just made "
					  "cannot be used (%s)", path,
					  why ? why : "it is gone");
	}
	return copy;
}
