// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The supplementary file of a vmlinux compressed by `dwz -m` (Red Hat's
 * debuginfo: /usr/lib/debug/.dwz/NAME), named with its build-id in
 * vmlinux's .gnu_debugaltlink: the DIEs and strings vmlinux shares with the
 * other files dwz was given are there (DW_FORM_GNU_ref_alt,
 * DW_FORM_GNU_strp_alt). Found where gdb and libdw look: the link's path
 * (relative to vmlinux's real directory, as `dwz -r` writes it), then by
 * its build-id in usr/lib/debug/.build-id/; both below the debug root. A
 * file found is taken only with the build-id the link names.
 *
 * Why not libdw's own lookup (dwarf_getalt() on the first alt reference):
 * elfutils 0.188 looks only below / (no debug root), relative to the file
 * libdw was begun on — for a compressed vmlinux that is its inflated copy
 * in the cache (dwarf_inflate.c), which has no link — and a file missing
 * is an attribute that does not resolve, not an error that names it. So
 * the file is found here and given to libdw with dwarf_setalt().
 */
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "target/target.h"
#include "types/dwarf_internal.h"
#include "types/types.h"

#define ALTLINK ".gnu_debugaltlink"

/* .gnu_debugaltlink: the file's name, NUL, its build-id's bytes. */
static struct inodedump_error *read_link(Elf *elf, const char *vmlinux,
					 char **name, char **build_id)
{
	Elf_Scn *scn = idd_elf_section(elf, ALTLINK);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	const unsigned char *p = data ? data->d_buf : NULL;
	size_t len, nid;

	*name = *build_id = NULL;
	if (!scn)
		return NULL; /* not compressed by dwz -m */
	len = p ? strnlen((const char *)p, data->d_size) : 0;
	nid = p && len < data->d_size ? data->d_size - len - 1 : 0;
	if (!len || nid < 8 || nid > 64)
		return idd_error(INODEDUMP_ERR_VMLINUX,
				 "vmlinux %s: its %s section is not a file "
				 "name and a build-id", vmlinux, ALTLINK);
	*name = strndup((const char *)p, len);
	*build_id = malloc(2 * nid + 1);
	if (!*name || !*build_id) {
		free(*name);
		free(*build_id);
		*name = *build_id = NULL;
		return idd_nomem();
	}
	for (size_t i = 0; i < nid; i++)
		snprintf(*build_id + 2 * i, 3, "%02x", p[len + 1 + i]);
	return NULL;
}

/*
 * "../" steps of a relative link taken from dir (a realpath: no symlink
 * in it, so a step up is its parent), for the path said when it is missing.
 */
static char *join_lexically(const char *dir, const char *name)
{
	char *out = malloc(strlen(dir) + strlen(name) + 2), *end;

	if (!out)
		return NULL;
	strcpy(out, dir);
	end = out + strlen(out);
	while (!strncmp(name, "../", 3) || !strncmp(name, "./", 2)) {
		if (name[1] == '.') {
			char *up = strrchr(out, '/');

			end = up && up != out ? up : out + 1;
			*end = '\0';
			name += 3;
		} else {
			name += 2;
		}
	}
	if (end > out && end[-1] != '/')
		*end++ = '/';
	strcpy(end, name);
	return out;
}

/* The link's path: below root if absolute, else beside vmlinux's file. */
static char *link_path(const char *vmlinux, const char *root,
		       const char *name)
{
	_cleanup_free_ char *real = NULL;
	char *slash;

	if (name[0] == '/')
		return idd_strdup_printf("%s%s", root, name);
	real = realpath(vmlinux, NULL);
	if (!real || !(slash = strrchr(real, '/')))
		return NULL;
	*slash = '\0';
	return join_lexically(real[0] ? real : "/", name);
}

/*
 * The file at path if it is the one the link names: true with *alt's fd
 * and elf set. Otherwise what was there, appended to seen.
 */
static bool take_if_it(struct idd_dwarf_alt *alt, const char *path,
		       char *seen, size_t seen_size)
{
	_cleanup_free_ char *id = NULL;
	struct inodedump_error *err;
	size_t used = strlen(seen);
	const char *why;
	int fd = idd_open_input(path, false, &why);
	Elf *elf;

	if (fd < 0) {
		snprintf(seen + used, seen_size - used, "%s%s (%s)",
			 used ? ", " : "", path, why);
		return false;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = elf && elf_kind(elf) == ELF_K_ELF ? idd_elf_build_id(elf, &id)
						 : NULL;
	inodedump_error_free(err);
	if (id && !strcmp(id, alt->build_id)) {
		alt->fd = fd;
		alt->elf = elf;
		alt->path = strdup(path);
		return alt->path != NULL;
	}
	snprintf(seen + used, seen_size - used, "%s%s (%s%s)",
		 used ? ", " : "", path,
		 !elf || elf_kind(elf) != ELF_K_ELF ? "not an ELF file"
		 : id ? "another build: build-id "
		      : "no build-id",
		 id ? id : "");
	if (elf)
		elf_end(elf);
	close(fd);
	return false;
}

void idd_dwarf_alt_close(struct idd_dwarf_alt *alt)
{
	if (!alt)
		return;
	if (alt->dwarf)
		dwarf_end(alt->dwarf);
	if (alt->dw_elf)
		elf_end(alt->dw_elf);
	if (alt->dw_fd >= 0)
		close(alt->dw_fd);
	if (alt->elf)
		elf_end(alt->elf);
	if (alt->fd >= 0)
		close(alt->fd);
	idd_dwarf_id_free(&alt->id);
	free(alt->path);
	free(alt->name);
	free(alt->build_id);
	free(alt);
}

static void alt_closep(struct idd_dwarf_alt **alt)
{
	idd_dwarf_alt_close(*alt);
}

struct inodedump_error *idd_dwarf_alt_find(Elf *elf, const char *vmlinux,
					   const char *root,
					   struct idd_dwarf_alt **out)
{
	_cleanup_(alt_closep) struct idd_dwarf_alt *alt =
		calloc(1, sizeof(*alt));
	_cleanup_free_ char *beside = NULL, *by_id = NULL;
	struct inodedump_error *err;
	char seen[3 * PATH_MAX] = "";

	*out = NULL;
	if (!alt)
		return idd_nomem();
	alt->fd = alt->dw_fd = -1;
	if ((err = read_link(elf, vmlinux, &alt->name, &alt->build_id)))
		return err;
	if (!alt->name)
		return NULL; /* not compressed by dwz -m */
	if (!root)
		root = "";
	beside = link_path(vmlinux, root, alt->name);
	by_id = idd_strdup_printf("%s/usr/lib/debug/.build-id/%.2s/%s.debug",
				  root, alt->build_id, alt->build_id + 2);
	if (!by_id)
		return idd_nomem();
	if ((beside && take_if_it(alt, beside, seen, sizeof(seen))) ||
	    take_if_it(alt, by_id, seen, sizeof(seen))) {
		*out = TAKE_PTR(alt);
		return NULL;
	}
	return idd_error(INODEDUMP_ERR_VMLINUX,
			 "vmlinux %s was compressed by dwz: part of its DWARF "
			 "is in the supplementary file %s that its %s names, "
			 "build-id %s, and no file of that build-id is "
			 "there: %s; install it where the link says (Red "
			 "Hat's debuginfo: /usr/lib/debug/.dwz/) or by its "
			 "build-id",
			 vmlinux, alt->name, ALTLINK, alt->build_id, seen);
}

/* The alt file's DWARF for libdw: its inflated copy (cache_dir) or it. */
struct inodedump_error *idd_dwarf_alt_begin(struct idd_dwarf_alt *alt,
					    const char *cache_dir,
					    char **note)
{
	idd_dwarf_id_of(alt->elf, &alt->id);
	alt->dw_elf = idd_dwarf_inflated(alt->elf, alt->fd, &alt->id,
					 cache_dir, IDD_DWARF_ALT_COPY,
					 &alt->dw_fd, note);
	alt->dwarf = dwarf_begin_elf(alt->dw_elf ? alt->dw_elf : alt->elf,
				     DWARF_C_READ, NULL);
	if (!alt->dwarf)
		return idd_error(INODEDUMP_ERR_VMLINUX,
				 "the dwz supplementary file %s has no DWARF "
				 "libdw reads (%s)", alt->path,
				 dwarf_errmsg(-1));
	return NULL;
}
