// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests of the VFS tables and mode decoding (no dump needed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/session.h"

static int failed, passed;

#define CHECK_STR(got, want)                                                   \
	do {                                                                   \
		const char *g_ = (got), *w_ = (want);                          \
		if (strcmp(g_, w_)) {                                          \
			printf("FAIL %s:%d: %s = \"%s\", want \"%s\"\n",       \
			       __FILE__, __LINE__, #got, g_, w_);              \
			failed++;                                              \
		} else {                                                       \
			passed++;                                              \
		}                                                              \
	} while (0)

static char *joined(char **names)
{
	static char buf[512];

	buf[0] = '\0';
	for (char **p = names; p && *p; p++) {
		if (p != names)
			strcat(buf, "|");
		strcat(buf, *p);
	}
	free(names);
	return buf;
}

static void test_mode_strings(void)
{
	char s[11];

	idd_mode_string(0100644, s);
	CHECK_STR(s, "-rw-r--r--");
	idd_mode_string(0104755, s);
	CHECK_STR(s, "-rwsr-xr-x");
	idd_mode_string(0102644, s);
	CHECK_STR(s, "-rw-r-Sr--");
	idd_mode_string(041777, s);
	CHECK_STR(s, "drwxrwxrwt");
	idd_mode_string(0120777, s);
	CHECK_STR(s, "lrwxrwxrwx");
	idd_mode_string(0020620, s);
	CHECK_STR(s, "crw--w----");
	idd_mode_string(0170644, s);
	CHECK_STR(s, "?rw-r--r--");
	CHECK_STR(idd_mode_type_name(0140755), "socket");
	CHECK_STR(idd_mode_type_name(0060600), "blockdev");
	CHECK_STR(idd_mode_type_name(0010600), "fifo");
	CHECK_STR(idd_mode_type_name(0000644), "invalid");
	CHECK_STR(idd_mode_type_name(0030644), "invalid");
}

static void test_iop_by_version(void)
{
	struct idd_flag f[64];
	struct idd_vfs_evidence v612 = { .version = IDD_KVER(6, 12, 118) };
	struct idd_vfs_evidence v612_patched = { .version = IDD_KVER(6, 12, 118),
							.has_linklen = true };
	struct idd_vfs_evidence v614 = { .version = IDD_KVER(6, 14, 0) };
	size_t n;

	n = idd_vfs_iop_flags(&v612, f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, 0x5f)),
		  "IOP_FASTPERM|IOP_LOOKUP|IOP_NOFOLLOW|IOP_XATTR|"
		  "IOP_DEFAULT_READLINK|0x40");
	/* The backport of cached links: 6.12 with i_linklen has the flag. */
	n = idd_vfs_iop_flags(&v612_patched, f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, 0x4c)),
		  "IOP_NOFOLLOW|IOP_XATTR|IOP_CACHED_LINK");
	n = idd_vfs_iop_flags(&v614, f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, 0x60)), "IOP_MGTIME|IOP_CACHED_LINK");
}

static void test_state_by_version(void)
{
	struct idd_flag f[64];
	struct idd_vfs_evidence v61 = { .version = IDD_KVER(6, 1, 0) };
	struct idd_vfs_evidence v612 = { .version = IDD_KVER(6, 12, 0) };
	size_t n;

	n = idd_vfs_state_flags(&v61, f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, (1 << 3) | (1 << 5))),
		  "I_NEW|I_FREEING");
	n = idd_vfs_state_flags(&v612, f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, (1 << 0) | (1 << 7))),
		  "I_NEW|I_FREEING");
	CHECK_STR(joined(idd_flag_names(f, n, 0)), "");
}

/*
 * 5.10: bit 9 is I_DIO_WAKEUP (until 6.12); bit 19 I_LRU_ISOLATING only
 * where the kernel has its functions (a stable backport), else a bit
 * without a name; 6.11 has it by version, 6.12 moved it to bit 2.
 */
static void test_state_510(void)
{
	struct idd_flag f[64];
	struct idd_vfs_evidence v510 = { .version = IDD_KVER(5, 10, 255) };
	struct idd_vfs_evidence v510_lru = { .version = IDD_KVER(5, 10, 255),
					     .has_lru_isolating = true };
	struct idd_vfs_evidence v611 = { .version = IDD_KVER(6, 11, 0) };
	struct idd_vfs_evidence v612 = { .version = IDD_KVER(6, 12, 0) };
	size_t n;

	n = idd_vfs_state_flags(&v510, f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, (1 << 9) | (1 << 19))),
		  "I_DIO_WAKEUP|0x80000");
	n = idd_vfs_state_flags(&v510_lru, f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, (1 << 9) | (1 << 19))),
		  "I_DIO_WAKEUP|I_LRU_ISOLATING");
	n = idd_vfs_state_flags(&v611, f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, (1 << 9) | (1 << 19))),
		  "I_DIO_WAKEUP|I_LRU_ISOLATING");
	n = idd_vfs_state_flags(&v612, f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, (1 << 9) | (1 << 2))),
		  "I_LRU_ISOLATING|I_REFERENCED");
}

/* I_CTIME_QUERIED: 6.13+, and only in a separate i_ctime_nsec. */
static void test_ctime_queried_by_version(void)
{
	struct idd_flag f[4];
	struct idd_vfs_evidence v612 = { .version = IDD_KVER(6, 12, 0),
					 .has_ctime_nsec = true };
	struct idd_vfs_evidence v613 = { .version = IDD_KVER(6, 13, 0),
					 .has_ctime_nsec = true };
	struct idd_vfs_evidence v613_timespec = { .version = IDD_KVER(6, 13, 0) };
	size_t n;

	n = idd_vfs_ctime_nsec_flags(&v612, f, 4);
	CHECK_STR(joined(idd_flag_names(f, n, 0x80000000u)), "0x80000000");
	n = idd_vfs_ctime_nsec_flags(&v613_timespec, f, 4);
	CHECK_STR(joined(idd_flag_names(f, n, 0x80000000u)), "0x80000000");
	n = idd_vfs_ctime_nsec_flags(&v613, f, 4);
	CHECK_STR(joined(idd_flag_names(f, n, 0x80000000u | 257427476)),
		  "I_CTIME_QUERIED|0xf580814");
}

/* The 7.x flags, each from the version that introduced it. */
static void test_7x_flags_by_version(void)
{
	struct idd_flag f[64];
	struct idd_vfs_evidence v614 = { .version = IDD_KVER(6, 14, 0) };
	struct idd_vfs_evidence v619 = { .version = IDD_KVER(6, 19, 0) };
	struct idd_vfs_evidence v73 = { .version = IDD_KVER(7, 3, 4) };
	size_t n;

	n = idd_vfs_iop_flags(&v614, f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, 0x1c0)), "IOP_CACHED_LINK|0x180");
	n = idd_vfs_iop_flags(&v619, f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, 0x1c0)),
		  "IOP_CACHED_LINK|IOP_FASTPERM_MAY_EXEC|0x100");
	n = idd_vfs_iop_flags(&v73, f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, 0x1c0)),
		  "IOP_CACHED_LINK|IOP_FASTPERM_MAY_EXEC|IOP_FLCTX");
	n = idd_vfs_inode_flags(&(struct idd_vfs_evidence){
					.version = IDD_KVER(6, 15, 0) },
				f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, (1 << 19) | (1 << 9))),
		  "S_PRIVATE|S_ANON_INODE");
	n = idd_vfs_inode_flags(&v614, f, 64);
	CHECK_STR(joined(idd_flag_names(f, n, (1 << 19) | (1 << 9))),
		  "S_PRIVATE|0x80000");
}

/* idd_file_refs() as text, in base "%llu" or "%llx". */
static const char *refs(uint64_t raw, unsigned width, bool file_ref,
			const char *format)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), format,
		 (unsigned long long)idd_file_refs(raw, width, file_ref));
	return buf;
}

/* file_ref_read(): count minus one; released and dead files have none. */
static void test_file_refs(void)
{
	CHECK_STR(refs(0, 8, true, "%llu"), "1");
	CHECK_STR(refs(2, 8, true, "%llu"), "3");
	/* FILE_REF_RELEASED, FILE_REF_DEAD, FILE_REF_NOREF: none left */
	CHECK_STR(refs(0xC000000000000000ull, 8, true, "%llu"), "0");
	CHECK_STR(refs(0xE000000000000000ull, 8, true, "%llu"), "0");
	CHECK_STR(refs(UINT64_MAX, 8, true, "%llu"), "0");
	/* the saturation zone still reads c + 1 */
	CHECK_STR(refs(0xA000000000000000ull, 8, true, "%llx"),
		  "a000000000000001");
	/* 32-bit file_ref_t: FILE_REF_DEAD is 0xE0000000 */
	CHECK_STR(refs(0xE0000000u, 4, true, "%llu"), "0");
	CHECK_STR(refs(4, 4, true, "%llu"), "5");
	/* f_count before 6.13 is the count itself */
	CHECK_STR(refs(2, 8, false, "%llu"), "2");
}

static void test_release_parsing(void)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%x", idd_parse_release("6.12.118+deb12-amd64"));
	CHECK_STR(buf, "60c76");
	snprintf(buf, sizeof(buf), "%x", idd_parse_release("6.15-rc1"));
	CHECK_STR(buf, "60f00");
	snprintf(buf, sizeof(buf), "%x", idd_parse_release("garbage"));
	CHECK_STR(buf, "0");
}

int main(void)
{
	test_mode_strings();
	test_iop_by_version();
	test_state_by_version();
	test_state_510();
	test_ctime_queried_by_version();
	test_7x_flags_by_version();
	test_file_refs();
	test_release_parsing();
	printf("%d checks passed, %d failed\n", passed, failed);
	return failed || !passed;
}
