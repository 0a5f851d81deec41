// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A loaded module's names from its debug file: where a kernel's kallsyms
 * keep a module's functions only (CONFIG_KALLSYMS_ALL off: Debian's arm64
 * 5.10 and 6.1), its data (ext4's operations tables) is named only by the
 * symbol table of the module's ELF file. The file is looked for as the
 * distributions install it, checked against the build-id the dump's
 * struct module notes give, and only its symbol table is read (never its
 * DWARF): each symbol's value is an offset in its section, placed at the
 * address the dump's sect_attrs give that section.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "types/types.h"

#define MAX_DEBUG_SYMS (1u << 20)
#define MAX_WALK_ENTRIES 200000
#define MAX_WALK_DEPTH 8

/* A symbol as its file has it: an offset in a section (cached so). */
struct rsym {
	uint32_t sec;  /* in secnames */
	uint32_t name; /* offset in names */
	uint64_t off, size;
};

/* ... and placed at its section's run-time address. */
struct dsym {
	uint64_t addr, size;
	size_t name; /* offset in names */
};

#define SECNAME 64

struct idd_module_debug {
	char *path;
	bool cached; /* read from the cache, not the file */
	struct rsym *rs;
	size_t nrs, rs_cap;
	char (*secnames)[SECNAME];
	size_t nsec;
	char *names;
	size_t names_len, names_cap;
	struct dsym *syms;
	size_t n;
};

void idd_module_debug_free(struct idd_module_debug *d)
{
	if (!d)
		return;
	free(d->path);
	free(d->rs);
	free(d->secnames);
	free(d->syms);
	free(d->names);
	free(d);
}

const char *idd_module_debug_path(const struct idd_module_debug *d)
{
	return d->path;
}

bool idd_module_debug_cached(const struct idd_module_debug *d)
{
	return d->cached;
}

/* Module names treat '-' and '_' alike (the kernel's own rule). */
static bool same_module(const char *file, size_t len, const char *mod)
{
	size_t i = 0;

	for (; i < len && mod[i]; i++) {
		char a = file[i] == '-' ? '_' : file[i];
		char b = mod[i] == '-' ? '_' : mod[i];

		if (a != b)
			return false;
	}
	return i == len && !mod[i];
}

static bool is_module_file(const char *name, const char *mod)
{
	size_t len = strlen(name);

	if (len > 9 && !strcmp(name + len - 9, ".ko.debug"))
		return same_module(name, len - 9, mod);
	if (len > 3 && !strcmp(name + len - 3, ".ko"))
		return same_module(name, len - 3, mod);
	return false;
}

/*
 * Files named after the module below dir (M.ko, M.ko.debug), depth and
 * entries bounded; found in *paths (n of them, at most cap).
 */
static void walk(const char *dir, int depth, const char *mod, char **paths,
		 size_t *n, size_t cap, size_t *seen)
{
	DIR *d;
	struct dirent *e;

	if (depth > MAX_WALK_DEPTH || !(d = opendir(dir)))
		return;
	while (*n < cap && *seen < MAX_WALK_ENTRIES && (e = readdir(d))) {
		char path[4096];
		struct stat st;

		++*seen;
		if (e->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >=
			    (int)sizeof(path) ||
		    lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			walk(path, depth + 1, mod, paths, n, cap, seen);
		else if (is_module_file(e->d_name, mod) &&
			 (paths[*n] = strdup(path)))
			++*n;
	}
	closedir(d);
}

/* Symbols of a kind that names memory: objects and functions. */
static bool names_memory(const GElf_Sym *s)
{
	unsigned type = GELF_ST_TYPE(s->st_info);

	return (type == STT_OBJECT || type == STT_FUNC ||
		(type == STT_NOTYPE && s->st_size)) &&
	       s->st_name && s->st_shndx != SHN_UNDEF &&
	       s->st_shndx < SHN_LORESERVE;
}

static bool add_name(struct idd_module_debug *d, const char *name,
		     size_t *at)
{
	size_t len = strnlen(name, 512) + 1;

	if (d->names_len + len > d->names_cap) {
		size_t cap = d->names_cap ? 2 * d->names_cap : 1 << 16;
		char *grown;

		while (cap < d->names_len + len)
			cap *= 2;
		if (!(grown = realloc(d->names, cap)))
			return false;
		d->names = grown;
		d->names_cap = cap;
	}
	memcpy(d->names + d->names_len, name, len - 1);
	d->names[d->names_len + len - 1] = '\0';
	*at = d->names_len;
	d->names_len += len;
	return true;
}

/* The index of section name in d->secnames, added if new; -1: no memory. */
static long secname_index(struct idd_module_debug *d, const char *name)
{
	char (*grown)[SECNAME];

	for (size_t i = 0; i < d->nsec; i++)
		if (!strncmp(d->secnames[i], name, SECNAME - 1))
			return (long)i;
	if (!(grown = realloc(d->secnames, (d->nsec + 1) * SECNAME)))
		return -1;
	d->secnames = grown;
	memset(d->secnames[d->nsec], 0, SECNAME); /* kept whole in the cache */
	snprintf(d->secnames[d->nsec], SECNAME, "%s", name);
	return (long)d->nsec++;
}

/* d's symbols from e's symbol table: each an offset in its section. */
static struct inodedump_error *read_symtab(Elf *e, const char *path,
					   struct idd_module_debug *d)
{
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr sh, symsh;
	Elf_Data *data;
	size_t shstrndx, count;

	if (elf_getshdrstrndx(e, &shstrndx))
		return idd_error(INODEDUMP_ERR_VMLINUX, "%s: no section names "
				 "(libelf: %s)", path, elf_errmsg(-1));
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			symscn = scn;
			symsh = sh;
			break;
		}
	if (!symscn)
		return idd_error(INODEDUMP_ERR_VMLINUX,
				 "%s has no symbol table", path);
	if (!symsh.sh_entsize || !(data = elf_getdata(symscn, NULL)))
		return idd_error(INODEDUMP_ERR_VMLINUX, "%s: its symbol table "
				 "cannot be read (libelf: %s; truncated?)",
				 path, elf_errmsg(-1));
	count = data->d_size / symsh.sh_entsize;
	if (count > MAX_DEBUG_SYMS)
		return idd_error(INODEDUMP_ERR_VMLINUX, "%s claims %zu symbols",
				 path, count);
	if (!(d->rs = calloc(count + 1, sizeof(*d->rs))))
		return idd_nomem();
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		GElf_Shdr ssh;
		const char *name, *sec;
		size_t at;
		long si;
		Elf_Scn *in;

		if (!gelf_getsym(data, (int)i, &s) || !names_memory(&s) ||
		    !(in = elf_getscn(e, s.st_shndx)) ||
		    !gelf_getshdr(in, &ssh) || !(ssh.sh_flags & SHF_ALLOC) ||
		    !(sec = elf_strptr(e, shstrndx, ssh.sh_name)) ||
		    !(name = elf_strptr(e, symsh.sh_link, s.st_name)) ||
		    !*name)
			continue;
		if ((si = secname_index(d, sec)) < 0 ||
		    !add_name(d, name, &at))
			return idd_nomem();
		d->rs[d->nrs++] = (struct rsym){ (uint32_t)si, (uint32_t)at,
						 s.st_value, s.st_size };
	}
	return NULL;
}

/* The run-time address of the section named name, false: not loaded. */
static bool section_address(const struct idd_module_section *secs,
			    size_t nsecs, const char *name, uint64_t *addr)
{
	for (size_t i = 0; i < nsecs; i++)
		if (!strncmp(secs[i].name, name, SECNAME - 1)) {
			*addr = secs[i].addr;
			return true;
		}
	return false;
}

/* Each symbol placed at its section's address; a section not loaded: none. */
static struct inodedump_error *place(struct idd_module_debug *d,
				     const struct idd_module_section *secs,
				     size_t nsecs)
{
	if (!(d->syms = calloc(d->nrs + 1, sizeof(*d->syms))))
		return idd_nomem();
	for (size_t i = 0; i < d->nrs; i++) {
		uint64_t base;

		if (section_address(secs, nsecs, d->secnames[d->rs[i].sec],
				    &base))
			d->syms[d->n++] = (struct dsym){ base + d->rs[i].off,
							 d->rs[i].size,
							 d->rs[i].name };
	}
	if (!d->n)
		return idd_error(INODEDUMP_ERR_VMLINUX, "%s: no symbol of its "
				 "symbol table is in a section the module "
				 "loaded", d->path);
	return NULL;
}

/*
 * ---- the cache: a module's symbols kept per build-id (module.syms):
 * "IDDMSYM1", counts, its file's path, the section names, the symbols
 * (section, name, offset, size) and the names; checked whole on read ----
 */
#define CACHE_NAME "module.syms"
#define CACHE_MAGIC "IDDMSYM1"

struct cache_head {
	char magic[8];
	uint32_t nrs, nsec, path_len, pad;
	uint64_t names_len;
};

static void cache_store(const struct idd_module_debug *d, const char *id)
{
	_cleanup_free_ char *dir = idd_cache_dir(id);
	struct cache_head h = { .nrs = (uint32_t)d->nrs,
				.nsec = (uint32_t)d->nsec,
				.path_len = (uint32_t)strlen(d->path) + 1,
				.names_len = d->names_len };
	struct idd_cache_part parts[] = {
		{ &h, sizeof(h) },
		{ d->path, h.path_len },
		{ d->secnames, d->nsec * SECNAME },
		{ d->rs, d->nrs * sizeof(*d->rs) },
		{ d->names, d->names_len },
	};

	memcpy(h.magic, CACHE_MAGIC, 8);
	if (dir)
		idd_cache_store(dir, CACHE_NAME, parts,
				sizeof(parts) / sizeof(parts[0]));
}

/* d from the cache of build-id id; NULL: none, or not trusted. */
static struct idd_module_debug *cache_load(const char *id)
{
	_cleanup_free_ char *dir = idd_cache_dir(id);
	struct idd_cache_file f;
	struct idd_module_debug *d = NULL;
	struct cache_head h;
	const char *p;
	uint64_t need;

	if (!dir || !idd_cache_map(dir, CACHE_NAME, &f))
		return NULL;
	if (f.size < sizeof(h))
		goto out;
	memcpy(&h, f.data, sizeof(h));
	need = sizeof(h) + (uint64_t)h.path_len + (uint64_t)h.nsec * SECNAME +
	       (uint64_t)h.nrs * sizeof(struct rsym) + h.names_len;
	if (memcmp(h.magic, CACHE_MAGIC, 8) || need != f.size ||
	    h.nrs > MAX_DEBUG_SYMS || h.nsec > MAX_DEBUG_SYMS ||
	    !h.path_len || h.path_len > 4096 || !h.names_len ||
	    !(d = calloc(1, sizeof(*d))))
		goto out;
	p = (const char *)f.data + sizeof(h);
	d->nrs = h.nrs;
	d->nsec = h.nsec;
	d->names_len = h.names_len;
	if (!(d->path = malloc(h.path_len)) ||
	    !(d->secnames = malloc(h.nsec * SECNAME + 1)) ||
	    !(d->rs = malloc(h.nrs * sizeof(*d->rs) + 1)) ||
	    !(d->names = malloc(h.names_len)))
		goto bad;
	memcpy(d->path, p, h.path_len);
	p += h.path_len;
	memcpy(d->secnames, p, h.nsec * SECNAME);
	p += h.nsec * SECNAME;
	memcpy(d->rs, p, h.nrs * sizeof(*d->rs));
	p += h.nrs * sizeof(*d->rs);
	memcpy(d->names, p, h.names_len);
	if (d->path[h.path_len - 1] || d->names[h.names_len - 1])
		goto bad;
	for (size_t i = 0; i < d->nsec; i++)
		if (!memchr(d->secnames[i], '\0', SECNAME))
			goto bad;
	for (size_t i = 0; i < d->nrs; i++)
		if (d->rs[i].sec >= d->nsec || d->rs[i].name >= h.names_len)
			goto bad;
	d->cached = true;
	goto out;
bad:
	idd_module_debug_free(d);
	d = NULL;
out:
	idd_cache_unmap(&f);
	return d;
}

/*
 * One candidate: an ELF relocatable file whose build-id is want (NULL:
 * not known, not checked); its symbols placed. *why: why it was not
 * taken.
 */
static struct idd_module_debug *try_file(const char *path, const char *want,
					 char **why)
{
	struct idd_module_debug *d;
	struct inodedump_error *err;
	_cleanup_free_ char *id = NULL;
	GElf_Ehdr eh;
	struct stat st;
	Elf *e;
	int fd;

	*why = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = idd_strdup_printf("%s: %s", path, strerror(errno));
		return NULL;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    eh.e_type != ET_REL) {
		*why = idd_strdup_printf("%s is not a module's ELF file (%s)",
					 path, e && elf_kind(e) == ELF_K_ELF
						       ? "not relocatable"
						       : elf_errmsg(-1));
		goto out;
	}
	if (fstat(fd, &st) || eh.e_shoff > (uint64_t)st.st_size ||
	    (uint64_t)eh.e_shnum * eh.e_shentsize >
		    (uint64_t)st.st_size - eh.e_shoff) {
		*why = idd_strdup_printf("%s is truncated or damaged: its "
					 "section headers (%u at %" PRIu64
					 ") are past its end (%lld bytes)",
					 path, eh.e_shnum,
					 (uint64_t)eh.e_shoff,
					 (long long)st.st_size);
		goto out;
	}
	err = idd_elf_build_id(e, &id);
	if (err) {
		*why = idd_strdup_printf("%s: %s", path,
					 inodedump_error_message(err));
		inodedump_error_free(err);
		goto out;
	}
	if (want && !id) {
		*why = idd_strdup_printf("%s has no build-id note, the module's "
					 "is %s: refused", path, want);
		goto out;
	}
	if (want && strcmp(id, want)) {
		*why = idd_strdup_printf("%s has build-id %s, the module's is "
					 "%s: refused", path, id, want);
		goto out;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path))) {
		free(d);
		goto out;
	}
	err = read_symtab(e, path, d);
	if (err) {
		*why = strdup(inodedump_error_message(err));
		inodedump_error_free(err);
		idd_module_debug_free(d);
		goto out;
	}
	elf_end(e);
	close(fd);
	return d;
out:
	elf_end(e);
	close(fd);
	return NULL;
}

/* why += "; " + more (both malloc'd; more is taken). */
static void add_why(char **why, char *more)
{
	char *joined;

	if (!more)
		return;
	if (!*why) {
		*why = more;
		return;
	}
	joined = idd_strdup_printf("%s; %s", *why, more);
	free(more);
	if (joined) {
		free(*why);
		*why = joined;
	}
}

struct idd_module_debug *
idd_module_debug_open(const struct idd_module_debug_query *q, char **why)
{
	const char *root = q->debug_root ? q->debug_root : "";
	char *paths[16] = { NULL };
	size_t n = 0, seen = 0;
	struct idd_module_debug *d = NULL;
	char *refused = NULL, *fetch_why = NULL;

	*why = NULL;
	if (q->build_id && (d = cache_load(q->build_id)))
		goto placed;
	if (q->build_id && strlen(q->build_id) > 2)
		paths[n++] = idd_strdup_printf(
			"%s/usr/lib/debug/.build-id/%.2s/%s.debug", root,
			q->build_id, q->build_id + 2);
	if (q->release) {
		_cleanup_free_ char *dbg = idd_strdup_printf(
			"%s/usr/lib/debug/lib/modules/%s", root, q->release);
		_cleanup_free_ char *mods = idd_strdup_printf(
			"%s/lib/modules/%s", root, q->release);

		if (dbg)
			walk(dbg, 0, q->module, paths, &n, 12, &seen);
		if (mods)
			walk(mods, 0, q->module, paths, &n, 15, &seen);
	}
	if (q->fetch && q->build_id && n < 16)
		paths[n++] = q->fetch(q->build_id, q->module, q->fetch_arg,
				      &fetch_why);
	for (size_t i = 0; i < n && !d; i++) {
		char *w = NULL;

		if (!paths[i] || (i == 0 && q->build_id &&
				  access(paths[i], F_OK) != 0))
			continue; /* no .build-id link: not a refusal */
		d = try_file(paths[i], q->build_id, &w);
		add_why(&refused, w);
	}
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	if (d && q->build_id)
		cache_store(d, q->build_id);
placed:
	if (d) {
		struct inodedump_error *err = place(d, q->secs, q->nsecs);

		free(refused);
		free(fetch_why);
		if (!err)
			return d;
		*why = strdup(inodedump_error_message(err));
		inodedump_error_free(err);
		idd_module_debug_free(d);
		return NULL;
	}
	if (refused)
		*why = refused;
	else
		*why = idd_strdup_printf(
			"no debug file of %s (looked for %s/usr/lib/debug/"
			".build-id/..., %s.ko and %s.ko.debug under "
			"%s/usr/lib/debug/lib/modules/%s and %s/lib/modules/%s)",
			q->module, root, q->module, q->module, root,
			q->release ? q->release : "?", root,
			q->release ? q->release : "?");
	add_why(why, fetch_why);
	return NULL;
}

bool idd_module_debug_name(const struct idd_module_debug *d, uint64_t addr,
			   const char **name, uint64_t *offset)
{
	const struct dsym *best = NULL;

	for (size_t i = 0; i < d->n; i++) {
		const struct dsym *s = &d->syms[i];

		if (s->addr > addr || addr - s->addr >= (s->size ? s->size : 1))
			continue;
		if (!best || s->addr > best->addr ||
		    (s->addr == best->addr && s->size > best->size))
			best = s;
	}
	if (!best)
		return false;
	*name = d->names + best->name;
	*offset = addr - best->addr;
	return true;
}
