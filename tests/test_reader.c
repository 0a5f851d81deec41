// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Our dump reader and page-table walk against libkdumpfile's, on a real
 * dump: libkdumpfile is the independent reading of the same file.
 *
 *   test_reader DUMP [VADDR...]
 *
 * - the dump must be taken by our reader (not handed to libkdumpfile);
 * - every VADDR (truth inodes, their superblocks, kernel symbols) and the
 *   pages around it: our walk gives libaddrxlat's physical address and the
 *   same bytes, with no read falling back to libkdumpfile;
 * - physical pages, every 61st up to 4 GiB and those the walks met: the
 *   same bytes, or both readers say the page is not in the dump.
 * Prints "ok N" / "FAIL ..." lines; exits 1 on any failure.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libkdumpfile/kdumpfile.h>

#include "unit/check.h"
#include "decode/session.h"



static bool kd_phys(kdump_ctx_t *kd, uint64_t va, uint64_t *pa)
{
	addrxlat_ctx_t *axctx = NULL;
	addrxlat_sys_t *axsys = NULL;
	addrxlat_fulladdr_t fa = { .addr = va, .as = ADDRXLAT_KVADDR };
	bool ok;

	if (kdump_get_addrxlat(kd, &axctx, &axsys) != KDUMP_OK)
		return false;
	ok = addrxlat_fulladdr_conv(&fa, ADDRXLAT_KPHYSADDR, axctx, axsys) ==
	     ADDRXLAT_OK;
	addrxlat_ctx_decref(axctx);
	addrxlat_sys_decref(axsys);
	*pa = fa.addr;
	return ok;
}

static void compare_page(struct idd_target *t, kdump_ctx_t *kd, uint64_t pfn)
{
	static uint8_t a[4096], b[4096];
	size_t got = sizeof(b);
	bool ours = idd_target_read_phys(t, pfn * 4096, a, sizeof(a));
	kdump_status ks =
		kdump_read(kd, KDUMP_MACHPHYSADDR, pfn * 4096, b, &got);

	if (ks != KDUMP_OK && !ours) {
		passed++; /* both: not in the dump */
		return;
	}
	CHECKF(ours && ks == KDUMP_OK && got == sizeof(b) &&
		      !memcmp(a, b, sizeof(a)),
	      "pfn 0x%" PRIx64 ": ours %s, libkdumpfile %s%s", pfn,
	      ours ? "read" : "failed", ks == KDUMP_OK ? "read" : "failed",
	      ours && ks == KDUMP_OK ? " (bytes differ)" : "");
}

int main(int argc, char **argv)
{
	struct idd_target *t;
	struct inodedump_error *err;
	kdump_ctx_t *kd;
	int fd;
	uint64_t walked[4096];
	size_t nwalked = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: test_reader DUMP [VADDR...]\n");
		return 2;
	}
	err = idd_target_open(argv[1], &t);
	if (err) {
		printf("FAIL open: %s\n", inodedump_error_message(err));
		return 1;
	}
	CHECKF(!strcmp(idd_target_reader(t), "inodedump"),
	      "%s: read by %s, not by our reader", argv[1],
	      idd_target_reader(t));
	kd = kdump_new();
	fd = open(argv[1], O_RDONLY);
	if (!kd || fd < 0 ||
	    kdump_set_number_attr(kd, KDUMP_ATTR_FILE_FD, fd) != KDUMP_OK ||
	    kdump_set_string_attr(kd, KDUMP_ATTR_OSTYPE, "linux") != KDUMP_OK) {
		printf("FAIL libkdumpfile cannot open %s: %s\n", argv[1],
		       kd ? kdump_get_err(kd) : "no context");
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		uint64_t base = strtoull(argv[i], NULL, 16) & ~4095ULL;

		for (int64_t d = -2; d <= 2; d++) {
			uint64_t va = base + (uint64_t)(d * 4096), pa_kd = 0,
				 pa_ours = 0;
			static uint8_t a[4096], b[4096];
			bool kd_ok = kd_phys(kd, va, &pa_kd);
			bool ours_ok = idd_target_walk(t, va, &pa_ours);

			CHECKF(kd_ok == ours_ok && (!kd_ok || pa_kd == pa_ours),
			      "va 0x%" PRIx64 ": libaddrxlat %s 0x%" PRIx64
			      ", our walk %s 0x%" PRIx64,
			      va, kd_ok ? "maps to" : "fails", pa_kd,
			      ours_ok ? "maps to" : "fails", pa_ours);
			if (!kd_ok)
				continue;
			if (nwalked < sizeof(walked) / sizeof(walked[0]))
				walked[nwalked++] = pa_kd / 4096;
			size_t got = sizeof(b);
			unsigned long before = idd_target_fallbacks(t);

			if (kdump_read(kd, KDUMP_KVADDR, va, b, &got) != KDUMP_OK)
				continue; /* filtered out: not what is compared here */
			err = idd_target_read(t, va, a, sizeof(a));
			CHECKF(!err && !memcmp(a, b, sizeof(a)) &&
				      idd_target_fallbacks(t) == before,
			      "va 0x%" PRIx64 ": %s", va,
			      err ? inodedump_error_message(err)
			      : idd_target_fallbacks(t) != before
				      ? "read fell back to libkdumpfile"
				      : "bytes differ from libkdumpfile's");
			inodedump_error_free(err);
		}
	}
	for (size_t i = 0; i < nwalked; i++)
		compare_page(t, kd, walked[i]);
	for (uint64_t pfn = 0; pfn < (4ULL << 30) / 4096; pfn += 61)
		compare_page(t, kd, pfn);
	printf("%s %d checks, %d failed (%s)\n", failed ? "FAIL" : "ok",
	       passed + failed, failed, argv[1]);
	idd_target_close(t);
	return failed ? 1 : 0;
}
