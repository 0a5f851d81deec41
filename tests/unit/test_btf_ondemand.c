// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The BTF read on demand (btf.c, "on demand") over the images
 * fuzz/tools/make_btf_ondemand_seeds.py builds: a small BTF sorted as
 * 7.3's is, the struct btf that indexes it and btf_vmlinux, in memory.
 * Found and answered as whole BTF answers; read from its start instead
 * where the BTF is not sorted or the index does not check out (the same
 * answers, and a record that is not one read whole); damage met later sends the
 * lookups to the whole BTF, and a BTF that cannot be read whole is said.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "target/target.h"
#include "types/types.h"

#define IMAGE 0xffffffff82000000ull
#define HEADER 16
/* Where the seed tool puts things, and the ids it gives (anonymous 1-5). */
#define OBJ 0x2000
#define INDEX 0x3000
#define ID_UINT 13 /* unsigned int: i_generation's (u32), not read on opening */

static uint8_t *load(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	FILE *f;
	uint8_t *buf = malloc(1 << 16);

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f || !buf) {
		printf("FAIL cannot read %s\n", path);
		exit(1);
	}
	*len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	return buf;
}

/*
 * The BTF of image img (len bytes with its header) read on demand, or
 * NULL; bytes from..to of the image (to 0: none) are not in memory.
 */
static struct idd_btf *open_hole(const uint8_t *img, size_t len, size_t from,
				 size_t to, struct idd_target **t,
				 struct idd_memory_region *r, const char *cache)
{
	uint32_t h[4];
	size_t n = 1;

	memcpy(h, img, sizeof(h));
	if (!to) {
		r[0] = (struct idd_memory_region){ IMAGE, img + HEADER,
						   len - HEADER };
	} else {
		r[0] = (struct idd_memory_region){ IMAGE, img + HEADER, from };
		r[1] = (struct idd_memory_region){ IMAGE + to, img + HEADER + to,
						   len - HEADER - to };
		n = 2;
	}
	inodedump_error_free(idd_target_open_memory(r, n, NULL, t));
	if (!*t)
		return NULL;
	return idd_btf_open_on_demand(*t, IMAGE + h[0], IMAGE + h[1],
				      IMAGE + h[2], cache);
}

static struct idd_btf *open_img(const uint8_t *img, size_t len,
				struct idd_target **t,
				struct idd_memory_region *r)
{
	return open_hole(img, len, 0, 0, t, r, NULL);
}

static void answers(struct idd_btf *b, const char *what);

static bool exists(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void unlink_in(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

/*
 * Unsorted BTF with a cache: what a run read from its start is kept and
 * taken by the next; a miss reads the whole, which is kept too.
 */
static void from_start_cached(const uint8_t *img, size_t len)
{
	char dir[] = "/tmp/idd-btf-cache-XXXXXX";
	struct idd_memory_region r[2];
	struct idd_target *t = NULL;
	struct idd_btf *b;
	struct idd_struct s;
	struct inodedump_error *err;

	if (!mkdtemp(dir)) {
		CHECKF(false, "mkdtemp");
		return;
	}
	b = open_hole(img, len, 0, 0, &t, r, dir);
	CHECKF(b && idd_btf_from_start(b) &&
	       !strstr(idd_btf_reading(b), "from the cache"),
	       "cache empty: from its start, nothing from the cache");
	if (b)
		answers(b, "cache empty");
	idd_btf_free(b);
	idd_target_close(t);
	CHECKF(exists(dir, "vmlinux.btf.start"), "what was read is kept");
	b = open_hole(img, len, 0, 0, &t, r, dir);
	CHECKF(b && idd_btf_from_start(b) &&
	       strstr(idd_btf_reading(b), "from the cache"),
	       "next run: what earlier runs read, from the cache (%s)",
	       b ? idd_btf_reading(b) : "");
	if (b) {
		answers(b, "from the cache");
		err = idd_btf_struct(b, "no_such_struct", &s);
		CHECKF(err && !idd_btf_on_demand(b), "a miss reads it whole");
		inodedump_error_free(err);
	}
	idd_btf_free(b);
	idd_target_close(t);
	CHECKF(exists(dir, "vmlinux.btf"), "the whole BTF read is kept");
	unlink_in(dir, "vmlinux.btf.start");
	unlink_in(dir, "vmlinux.btf");
	unlink_in(dir, "vmlinux.btf.index");
	CHECKF(exists(dir, "vmlinux.btf.pages"), "the chunks read are kept");
	unlink_in(dir, "vmlinux.btf.pages");
	unlink_in(dir, "vmlinux.btf.index.pages"); /* from the index tried first */
	CHECKF(rmdir(dir) == 0, "only those files kept in %s", dir);
}

static void member(struct idd_btf *b, const struct idd_struct *s,
		   const char *path, struct idd_member *m)
{
	idd_btf_types_member(b, s, path, m);
}

/* The answers every image of the seed tool's sorted BTF gives. */
static void answers(struct idd_btf *b, const char *what)
{
	struct idd_struct inode, sb;
	struct idd_member m;
	struct inodedump_error *err = idd_btf_struct(b, "inode", &inode);
	int64_t v = 0;

	CHECKF(!err && inode.size == 64, "%s: struct inode", what);
	inodedump_error_free(err);
	member(b, &inode, "i_mode", &m);
	CHECKF(m.present && m.offset == 0 && m.size == 2 &&
	       m.kind == IDD_KIND_INT, "%s: i_mode", what);
	member(b, &inode, "i_nlink", &m); /* in an anonymous union */
	CHECKF(m.present && m.offset == 16 && m.size == 4, "%s: i_nlink", what);
	member(b, &inode, "i_generation", &m);
	CHECKF(m.present && m.offset == 24 && m.size == 4, "%s: i_generation",
	       what);
	member(b, &inode, "i_name", &m);
	CHECKF(m.present && m.offset == 28 && m.size == 32 &&
	       m.kind == IDD_KIND_ARRAY, "%s: i_name", what);
	member(b, &inode, "no_such", &m);
	CHECKF(!m.present, "%s: no such member", what);
	member(b, &inode, "i_sb", &m);
	CHECKF(m.present && m.offset == 8 && m.kind == IDD_KIND_PTR,
	       "%s: i_sb", what);
	err = idd_btf_pointee(b, &m, &sb);
	CHECKF(!err && sb.size == 32, "%s: i_sb points to struct super_block",
	       what);
	inodedump_error_free(err);
	CHECKF(idd_btf_enumerator_in(b, "dentry_flags", "DCACHE_ENTRY_TYPE",
				     &v) && v == 0x380000,
	       "%s: DCACHE_ENTRY_TYPE %lld", what, (long long)v);
}

/*
 * b's answers, read as way() says; then a struct vmlinux has not reads the
 * BTF whole, and the answers stay.
 */
static void answers_then_miss(struct idd_btf *b, const char *what,
			      bool (*way)(const struct idd_btf *))
{
	struct idd_struct s;
	struct inodedump_error *err;

	answers(b, what);
	CHECKF(way(b), "%s: read so still after the lookups", what);
	err = idd_btf_struct(b, "no_such_struct", &s);
	CHECKF(err && !idd_btf_on_demand(b), "%s: a miss reads the BTF whole",
	       what);
	inodedump_error_free(err);
	answers(b, "read whole");
}

/* Read through the kernel's index: on demand, neither of the other ways. */
static bool by_index(const struct idd_btf *b)
{
	return idd_btf_on_demand(b) && !idd_btf_from_start(b) &&
	       !idd_btf_own_offsets(b);
}

/*
 * Image img's BTF read as way() says, with the same answers; a miss then
 * reads it whole, and the answers stay.
 */
static void read_as(const uint8_t *img, size_t len, const char *what,
		    bool (*way)(const struct idd_btf *))
{
	struct idd_memory_region r[2];
	struct idd_target *t = NULL;
	struct idd_btf *b = open_img(img, len, &t, r);

	CHECKF(b && way(b), "%s: read as expected (%s)", what,
	       b ? idd_btf_reading(b) : "not opened");
	if (b)
		answers_then_miss(b, what, way);
	idd_btf_free(b);
	idd_target_close(t);
}

/*
 * Image img's BTF must not be read through the kernel's index, but from
 * its start (nothing of the kernel's memory used).
 */
static void from_start(const uint8_t *img, size_t len, const char *what)
{
	read_as(img, len, what, idd_btf_from_start);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "fuzz/corpus/btf_ondemand";
	struct idd_memory_region r[2];
	struct idd_target *t = NULL;
	struct idd_btf *b;
	struct idd_struct s;
	struct inodedump_error *err;
	size_t len;
	uint8_t *img;
	uint64_t v;

	/* Sorted, with a 24- and a 32-byte header: read on demand. */
	for (int i = 0; i < 2; i++) {
		const char *name = i ? "hdr32.img" : "sorted.img";

		img = load(dir, name, &len);
		read_as(img, len, name, by_index);
		free(img);
	}

	/* Named types out of order: read from the start. */
	img = load(dir, "unsorted.img", &len);
	from_start(img, len, "unsorted");
	from_start_cached(img, len);
	/*
	 * Its last record's kind made one no BTF has: struct inode comes
	 * before it; struct btf is that record, met as its lookup reads that
	 * far, and then libbpf refuses the whole; the error names the BTF.
	 */
	{
		uint32_t h[4], hdr_len, type_off, type_len, info;
		const uint8_t *btf;
		struct idd_member m;

		memcpy(h, img, sizeof(h));
		btf = img + HEADER + h[1];
		memcpy(&hdr_len, btf + 4, 4);
		memcpy(&type_off, btf + 8, 4);
		memcpy(&type_len, btf + 12, 4);
		b = open_img(img, len, &t, r);
		CHECKF(b && idd_btf_from_start(b), "unsorted: from its start");
		if (b) {
			/* offsets of every record (each 12 bytes and more) */
			uint32_t off = 0, last = 0;

			while (off < type_len) {
				const uint8_t *rec = btf + hdr_len + type_off + off;
				uint32_t vlen, kind, size = 12;

				memcpy(&info, rec + 4, 4);
				vlen = info & 0xffff;
				kind = (info >> 24) & 0x1f;
				if (kind == 1)
					size += 4; /* int */
				else if (kind == 3)
					size += 12; /* array */
				else if (kind == 4 || kind == 5)
					size += 12 * vlen;
				else if (kind == 6)
					size += 8 * vlen;
				last = off;
				off += size;
			}
			memcpy(&info, btf + hdr_len + type_off + last + 4, 4);
			info |= 0x1fu << 24;
			memcpy((uint8_t *)btf + hdr_len + type_off + last + 4, &info, 4);
			err = idd_btf_struct(b, "inode", &s);
			CHECKF(!err, "unsorted, last record damaged: struct inode "
			       "before it");
			inodedump_error_free(err);
			if (!err)
				idd_btf_types_member(b, &s, "i_mode", &m);
			CHECKF(!err && m.present, "unsorted, last record "
			       "damaged: i_mode");
			err = idd_btf_struct(b, "btf", &s);
			CHECKF(err && strstr(err->message, "BTF") &&
			       !idd_btf_on_demand(b),
			       "unsorted, last record damaged: met, the whole "
			       "cannot be read, said: %s",
			       err ? err->message : "(none)");
			inodedump_error_free(err);
			idd_btf_free(b);
		}
		idd_target_close(t);
	}
	free(img);

	img = load(dir, "sorted.img", &len);
	/* named_start_id that is not the first named type: not the index. */
	img[HEADER + OBJ + 20]++;
	from_start(img, len, "named_start_id wrong");
	img[HEADER + OBJ + 20]--;
	/*
	 * An index whose entry 2 is wrong is not the index: the records'
	 * offsets are then taken by reading the type records whole, and the
	 * answers are the same; unless struct btf's count disagrees with
	 * them.
	 */
	memcpy(&v, img + HEADER + INDEX + 16, 8);
	v += 4;
	memcpy(img + HEADER + INDEX + 16, &v, 8);
	b = open_img(img, len, &t, r);
	CHECKF(b && idd_btf_on_demand(b) && idd_btf_own_offsets(b),
	       "no index: on demand, offsets of its own");
	if (b) {
		answers(b, "no index");
		CHECKF(idd_btf_own_offsets(b), "no index: still on demand");
		idd_btf_free(b);
	}
	idd_target_close(t);
	img[HEADER + OBJ + 16]++; /* nr_types */
	from_start(img, len, "no index, nr_types wrong");
	img[HEADER + OBJ + 16]--;
	v -= 4;
	memcpy(img + HEADER + INDEX + 16, &v, 8);
	b = open_img(img, len, &t, r);
	CHECKF(b && !idd_btf_own_offsets(b), "index mended: the index used");
	idd_btf_free(b);
	idd_target_close(t);
	/* No btf_vmlinux (NULL). */
	memset(img + HEADER + 0x4000, 0, 8);
	from_start(img, len, "btf_vmlinux NULL");
	free(img);

	/*
	 * unsigned int's entry moved into its record: not met on opening
	 * (the index is checked as it is used), then a lookup reads whole.
	 */
	img = load(dir, "sorted.img", &len);
	memcpy(&v, img + HEADER + INDEX + 8 * ID_UINT, 8);
	v += 12;
	memcpy(img + HEADER + INDEX + 8 * ID_UINT, &v, 8);
	b = open_img(img, len, &t, r);
	CHECKF(b != NULL, "unsigned int's entry damaged: opened on demand");
	if (b) {
		answers(b, "unsigned int's entry damaged");
		CHECKF(!idd_btf_on_demand(b),
		       "unsigned int's entry damaged: the BTF was read whole");
		idd_btf_free(b);
	}
	idd_target_close(t);
	/*
	 * ... and set to its neighbour's, the neighbour to its own: seen
	 * (here on opening: this index is one page, checked whole), never
	 * answered on demand.
	 */
	memcpy(&v, img + HEADER + INDEX + 8 * (ID_UINT - 1), 8);
	memcpy(img + HEADER + INDEX + 8 * ID_UINT, &v, 8);
	memcpy(&v, img + HEADER + INDEX + 8 * (ID_UINT - 2), 8);
	memcpy(img + HEADER + INDEX + 8 * (ID_UINT - 1), &v, 8);
	b = open_img(img, len, &t, r);
	if (b)
		answers(b, "entries set to their neighbours'");
	CHECKF(!b || !idd_btf_on_demand(b) || idd_btf_from_start(b),
	       "entries set to their neighbours': never answered through "
	       "the index");
	idd_btf_free(b);
	idd_target_close(t);
	free(img);

	/*
	 * The name of struct inode's first member (i_mode) not in memory:
	 * opened (opening reads no member of struct inode), but a lookup of
	 * it cannot be answered, nor can the whole BTF be read: the error
	 * says why.
	 */
	img = load(dir, "sorted.img", &len);
	{
		uint32_t type_len;
		const uint8_t *strs, *at;

		memcpy(&type_len, img + HEADER + 12, 4);
		strs = img + HEADER + 24 + type_len;
		at = memmem(strs, len - (size_t)(strs - img), "\0i_mode\0", 8);
		CHECK(at != NULL);
		b = at ? open_hole(img, len, (size_t)(at + 1 - (img + HEADER)),
				   (size_t)(at + 7 - (img + HEADER)), &t, r,
				   NULL)
		       : NULL;
	}
	CHECKF(b != NULL, "i_mode's name missing: opened on demand");
	if (b) {
		struct idd_member m;

		err = idd_btf_struct(b, "inode", &s);
		CHECKF(!err, "i_mode's name missing: struct inode found");
		inodedump_error_free(err);
		if (!err) {
			idd_btf_types_member(b, &s, "i_mode", &m);
			CHECKF(!m.present && !idd_btf_on_demand(b),
			       "i_mode's name missing: absent, read whole tried");
		}
		err = idd_btf_struct(b, "inode", &s);
		CHECKF(err && strstr(err->message, "BTF"),
		       "i_mode's name missing: the BTF cannot be read whole, "
		       "said: %s", err ? err->message : "(none)");
		inodedump_error_free(err);
		idd_btf_free(b);
	}
	idd_target_close(t);
	free(img);
	return check_summary("BTF read on demand");
}
