// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests of the dump_inode() report line parser, in every format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit/check.h"
#include "inodedump.h"



static bool parse(const char *s, struct inodedump_report *r)
{
	memset(r, 0, sizeof(*r));
	return inodedump_parse_report(s, strlen(s), r);
}

static void test_6_15(void)
{
	struct inodedump_report r;

	CHECK(parse("VFS_WARN_ON_INODE(strlen(link) != linklen) encountered "
		    "for inode ffff935e008f6850", &r));
	CHECK(r.format == INODEDUMP_REPORT_6_15);
	CHECK(!strcmp(r.reason, "VFS_WARN_ON_INODE(strlen(link) != linklen)"));
	CHECK(r.address == 0xffff935e008f6850ull);
	CHECK(!r.has_fields);
	CHECK(parse("VFS_BUG_ON_INODE(1) encountered for inode ffff888004a8e6a0\n",
		    &r));
	CHECK(!strcmp(r.reason, "VFS_BUG_ON_INODE(1)"));
}

static void test_6_18(void)
{
	struct inodedump_report r;

	CHECK(parse("VFS_WARN_ON_INODE(x) encountered for inode ffff888004a8e6a0\n"
		    "fs tmpfs mode 120777 opflags 0x4c flags 0x0 state 0x0 "
		    "count 2", &r));
	CHECK(r.format == INODEDUMP_REPORT_6_18);
	CHECK(r.has_fields);
	CHECK(!strcmp(r.fields.fs_type, "tmpfs"));
	CHECK(r.fields.mode == 0120777);
	CHECK(r.fields.opflags == 0x4c);
	CHECK(r.fields.count == 2);
}

static void test_7_0(void)
{
	struct inodedump_report r;

	CHECK(parse("VFS_WARN_ON_INODE(strlen(link) != linklen): "
		    "inode:ffff888004a8e6a0 fs:ext4 mode:100644 opflags:0x4c "
		    "flags:0x1000 state:0x8 count:-1", &r));
	CHECK(r.format == INODEDUMP_REPORT_7_0);
	CHECK(!strcmp(r.reason, "VFS_WARN_ON_INODE(strlen(link) != linklen)"));
	CHECK(r.address == 0xffff888004a8e6a0ull);
	CHECK(r.has_fields && !r.unreadable);
	CHECK(!strcmp(r.fields.fs_type, "ext4"));
	CHECK(r.fields.mode == 0100644 && r.fields.flags == 0x1000);
	CHECK(r.fields.state == 0x8 && r.fields.count == -1);
	CHECK(parse("VFS_BUG_ON_INODE(1): unreadable inode:ffff888004a8e6a0", &r));
	CHECK(r.format == INODEDUMP_REPORT_7_0 && r.unreadable && !r.has_fields);
	CHECK(r.address == 0xffff888004a8e6a0ull);
}

/*
 * When dump_inode() cannot read the superblock it prints the name
 * "<unknown, sb unreadable>", spaces and all (6.18 and 7.0 alike).
 */
static void test_unreadable_sb(void)
{
	struct inodedump_report r;

	CHECK(parse("VFS_WARN_ON_INODE(x): inode:ffff888004a8e6a0 "
		    "fs:<unknown, sb unreadable> mode:100644 opflags:0x0 "
		    "flags:0x0 state:0x0 count:1", &r));
	CHECK(r.format == INODEDUMP_REPORT_7_0 && r.has_fields);
	CHECK(!strcmp(r.fields.fs_type, "<unknown, sb unreadable>"));
	CHECK(r.fields.mode == 0100644 && r.fields.count == 1);
	CHECK(parse("VFS_WARN_ON_INODE(x) encountered for inode ffff888004a8e6a0\n"
		    "fs <unknown, sb unreadable> mode 100644 opflags 0x0 "
		    "flags 0x0 state 0x0 count 1", &r));
	CHECK(r.format == INODEDUMP_REPORT_6_18 && r.has_fields);
	CHECK(!strcmp(r.fields.fs_type, "<unknown, sb unreadable>"));
}

/* 7.0 prints %#x: 0 without a prefix, others with 0x. */
static void test_7_0_zero_and_prefixed_numbers(void)
{
	struct inodedump_report r;

	CHECK(parse("VFS_BUG_ON_INODE(!S_ISLNK(inode->i_mode)): "
		    "inode:0xffff888004a8e6a0 fs:tmpfs mode:120777 opflags:0 "
		    "flags:0 state:0 count:0", &r));
	CHECK(r.format == INODEDUMP_REPORT_7_0);
	CHECK(!strcmp(r.reason, "VFS_BUG_ON_INODE(!S_ISLNK(inode->i_mode))"));
	CHECK(r.address == 0xffff888004a8e6a0ull);
	CHECK(r.fields.opflags == 0 && r.fields.count == 0);
}

static void test_rejects(void)
{
	struct inodedump_report r;

	/* Look-alikes, truncation, garbage. */
	CHECK(!parse("encountered for inode ffff888004a8e6a0", &r));
	CHECK(!parse(" encountered for inode ffff888004a8e6a0", &r));
	CHECK(!parse("X encountered for inode ", &r));
	CHECK(!parse("X encountered for inode zzzz", &r));
	CHECK(!parse("X encountered for inode ffff8880xyz", &r));
	CHECK(!parse("X encountered for inod", &r));
	CHECK(!parse("the inode: was fine", &r));
	CHECK(!parse("X: inode:ffff888004a8e6a0 fs:ext4 mode:100644", &r));
	CHECK(!parse("X: unreadable inode:", &r));
	CHECK(!parse("", &r));
	CHECK(!parse("WARNING: CPU: 0 PID: 95 at fs/namei.c:5386 f+0x0/0x1", &r));
	CHECK(!parse("X: inode:ffff888004a8e6a0 fs: mode:100644 opflags:0x0 "
		     "flags:0x0 state:0x0 count:1", &r));
	CHECK(!parse("X: inode:ffff888004a8e6a0 fs:ext4 mode:100644 "
		     "opflags:0x0 flags:0x0 state:0x0", &r));
	/* A filesystem name longer than the kernel's 63 bytes. */
	CHECK(!parse("X: inode:ffff888004a8e6a0 fs:"
		     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		     " mode:100644 opflags:0x0 flags:0x0 state:0x0 count:1", &r));
	/* A 6.18 second line that is garbled leaves a 6.15 report. */
	CHECK(parse("X encountered for inode ffff888004a8e6a0\nfs tmpfs mode zz",
		    &r));
	CHECK(r.format == INODEDUMP_REPORT_6_15 && !r.has_fields);
	/* Too many hex digits: not a pointer. */
	CHECK(!parse("X encountered for inode ffff888004a8e6a0123", &r));
}

/*
 * The public destructors take NULL, like free(3). inodedump_inode_free()
 * took member addresses of its argument before its NULL check (undefined
 * behaviour, caught by UBSan through the fuzz harness): this build runs
 * under UBSan with halt_on_error.
 */
static void test_free_null(void)
{
	inodedump_inode_free(NULL);
	inodedump_log_free(NULL);
	inodedump_error_free(NULL);
	inodedump_close(NULL);
	passed++;
}

/*
 * A log saved as text (kdump-tools' dmesg.STAMP, RHEL's vmcore-dmesg.txt):
 * each line a record, its time and caller taken off, and its reports found
 * with their splat as in the ring. Lines as the debugvfs73 guest printed
 * them on its console (tests/vmcores/out/debugvfs73/serial.log).
 */
static void test_saved_log(void)
{
	static const char text[] =
		"[    0.000000] Linux version 7.3.4\n"
		"\n"
		"<4>[    0.993368][   T99] VFS_WARN_ON_INODE(strlen(link) != "
		"linklen): inode:ff1545c54185c550 fs:tmpfs mode:120777 "
		"opflags:0x28 flags:0x0 state:0x10 count:2\r\n"
		"[    0.993400] WARNING: include/linux/fs.h:951 at "
		"set_cached_link+0x186/0xf50 [vfsdbg73_trigger], CPU#0: insmod/99\n"
		"[    3.728506] VFS_BUG_ON_INODE(!IS_ANON_FILE(inode)): "
		"inode:ff1545c54185c070 fs:tmpfs mode:644 opflags:0x2d "
		"flags:0x1000 state:0x0 count:2";
	struct inodedump_log *log = NULL;
	struct inodedump_report *reps = NULL;
	const struct inodedump_record *rec;
	size_t n = 0;

	CHECK(!inodedump_log_from_text(text, sizeof(text) - 1, &log));
	if (!log)
		return;
	CHECK(inodedump_log_count(log) == 4); /* the blank line is none */
	rec = inodedump_log_record(log, 0);
	CHECK(rec && rec->ts_nsec == 0 && !strcmp(rec->text, "Linux version 7.3.4"));
	rec = inodedump_log_record(log, 1);
	CHECK(rec && rec->ts_nsec == 993368000ull && rec->level == 4 &&
	      rec->caller_id == 99 && rec->text[rec->text_len - 1] == '2');
	CHECK(!inodedump_find_reports(log, &reps, &n));
	CHECK(n == 2);
	if (n == 2) {
		CHECK(reps[0].address == 0xff1545c54185c550ull);
		CHECK(!strcmp(reps[0].site_function, "set_cached_link"));
		CHECK(reps[0].site_line == 951);
		CHECK(reps[1].address == 0xff1545c54185c070ull);
		CHECK(reps[1].ts_nsec == 3728506000ull);
	}
	free(reps);
	inodedump_log_free(log);
	CHECK(!inodedump_log_from_text("", 0, &log));
	CHECK(log && inodedump_log_count(log) == 0);
	inodedump_log_free(log);
}

int main(void)
{
	test_saved_log();
	test_free_null();
	test_6_15();
	test_6_18();
	test_7_0();
	test_unreadable_sb();
	test_7_0_zero_and_prefixed_numbers();
	test_rejects();
	printf("%d checks passed, %d failed\n", passed, failed);
	return failed || !passed;
}
