// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * log: inodedump_find_reports() over a kernel log built here, record by
 * record: the report formats as the log holds them, the splat that
 * follows each, and every report handed back (never a shortened list).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "log/log.h"



#define MAX_RECORDS 4096

static struct inodedump_record recs[MAX_RECORDS];
static struct inodedump_log log_of = { .recs = recs };

static void log_reset(void)
{
	log_of.n = 0;
}

static void log_line(const char *text)
{
	struct inodedump_record *r = &recs[log_of.n];

	r->seq = log_of.n + 100;
	r->ts_nsec = (log_of.n + 1) * 1000000000ull;
	r->caller_id = 95;
	r->text = text;
	r->text_len = strlen(text);
	log_of.n++;
}

static struct inodedump_report *find(size_t *n)
{
	struct inodedump_report *reps = (void *)1;
	struct inodedump_error *err = inodedump_find_reports(&log_of, &reps, n);

	CHECK(err == NULL);
	inodedump_error_free(err);
	return reps;
}

static void log_without_reports_gives_none(void)
{
	size_t n = 1;
	struct inodedump_report *reps;

	log_reset();
	log_line("Linux version 6.18.0");
	log_line("VFS: Mounted root (ext4 filesystem) readonly on device 254:1.");
	reps = find(&n);
	CHECK(n == 0 && reps == NULL);
}

/* 6.18 as printk stores it when the two lines became two records. */
static void fields_in_the_next_record_make_a_6_18_report(void)
{
	size_t n = 0;
	struct inodedump_report *reps;

	log_reset();
	log_line("VFS_WARN_ON_INODE(strlen(link) != linklen) encountered for "
		 "inode ffff888004a8e6a0");
	log_line("fs tmpfs mode 120777 opflags 0x4c flags 0x0 state 0x0 count 2");
	log_line("------------[ cut here ]------------");
	log_line("WARNING: CPU: 0 PID: 95 at fs/namei.c:5386 "
		 "vfs_get_link+0x8c/0xa0\nModules linked in: victim(O+)");
	log_line("CPU: 0 UID: 0 PID: 95 Comm: insmod Tainted: G O 6.18.0 #1");
	reps = find(&n);
	CHECK(n == 1);
	if (n == 1) {
		CHECK(reps[0].format == INODEDUMP_REPORT_6_18);
		CHECK(reps[0].address == 0xffff888004a8e6a0ull);
		CHECK(reps[0].has_fields);
		CHECK(!strcmp(reps[0].fields.fs_type, "tmpfs"));
		CHECK(reps[0].fields.mode == 0120777);
		CHECK(reps[0].fields.count == 2);
		CHECK(reps[0].seq == 100 && reps[0].caller_id == 95);
		CHECK(reps[0].ts_nsec == 1000000000ull);
		CHECK(!strcmp(reps[0].location, "WARNING: CPU: 0 PID: 95 at "
			      "fs/namei.c:5386 vfs_get_link+0x8c/0xa0"));
		CHECK(!strcmp(reps[0].task, "insmod"));
	}
	free(reps);
}

/* 6.18 as one record whose text holds the newline. */
static void fields_after_an_embedded_newline_make_a_6_18_report(void)
{
	size_t n = 0;
	struct inodedump_report *reps;

	log_reset();
	log_line("VFS_BUG_ON_INODE(1) encountered for inode ffff888004a8e6a0\n"
		 "fs ext4 mode 100644 opflags 0x1 flags 0x0 state 0x8 count 1");
	log_line("kernel BUG at fs/inode.c:1234!");
	reps = find(&n);
	CHECK(n == 1);
	if (n == 1) {
		CHECK(reps[0].format == INODEDUMP_REPORT_6_18);
		CHECK(!strcmp(reps[0].reason, "VFS_BUG_ON_INODE(1)"));
		CHECK(!strcmp(reps[0].fields.fs_type, "ext4"));
		CHECK(reps[0].fields.state == 0x8);
		CHECK(!strcmp(reps[0].location, "kernel BUG at fs/inode.c:1234!"));
		CHECK(reps[0].task[0] == '\0');
	}
	free(reps);
}

/* A second report's WARNING belongs to it, not to the first. */
static void each_report_keeps_its_own_splat(void)
{
	size_t n = 0;
	struct inodedump_report *reps;

	log_reset();
	log_line("VFS_WARN_ON_INODE(a) encountered for inode ffff888000000100");
	log_line("VFS_WARN_ON_INODE(b): inode:ffff888000000200 fs:xfs "
		 "mode:40755 opflags:0x0 flags:0x0 state:0x0 count:3");
	log_line("WARNING: CPU: 1 PID: 7 at fs/inode.c:10 f+0x0/0x1");
	log_line("CPU: 1 UID: 0 PID: 7 Comm: kworker/1:0 Not tainted");
	log_line("VFS_WARN_ON_INODE(c): unreadable inode:ffff888000000300");
	reps = find(&n);
	CHECK(n == 3);
	if (n == 3) {
		CHECK(reps[0].format == INODEDUMP_REPORT_6_15);
		CHECK(reps[0].location[0] == '\0' && reps[0].task[0] == '\0');
		CHECK(reps[1].format == INODEDUMP_REPORT_7_0);
		CHECK(reps[1].address == 0xffff888000000200ull);
		CHECK(!strcmp(reps[1].fields.fs_type, "xfs"));
		CHECK(!strcmp(reps[1].task, "kworker/1:0"));
		CHECK(reps[2].unreadable && !reps[2].has_fields);
		CHECK(reps[2].address == 0xffff888000000300ull);
	}
	free(reps);
}

/* Thousands of reports: every one comes back, in log order. */
static void every_report_of_a_long_log_is_returned(void)
{
	static char lines[MAX_RECORDS][96];
	size_t n = 0;
	struct inodedump_report *reps;
	bool in_order = true;

	log_reset();
	for (size_t i = 0; i < MAX_RECORDS; i++) {
		snprintf(lines[i], sizeof(lines[i]),
			 "VFS_WARN_ON_INODE(%zu) encountered for inode %llx", i,
			 0xffff888000000000ull + 0x1000 * i);
		log_line(lines[i]);
	}
	reps = find(&n);
	CHECK(n == MAX_RECORDS);
	for (size_t i = 0; reps && i < n; i++)
		in_order = in_order &&
			   reps[i].address == 0xffff888000000000ull + 0x1000 * i &&
			   reps[i].seq == 100 + i;
	CHECK(in_order);
	free(reps);
}

/*
 * The site of each splat: file, line and function from a WARNING line of
 * either kernel/panic.c format, from "kernel BUG at" plus the RIP line.
 */
static void each_splat_names_its_site(void)
{
	size_t n = 0;
	struct inodedump_report *reps;

	log_reset();
	/* 7.0 and later: file:line first, the task at the end */
	log_line("VFS_WARN_ON_INODE(strlen(link) != linklen): inode:"
		 "ffff888000000100 fs:tmpfs mode:120777 opflags:0x8 flags:0 "
		 "state:0 count:2");
	log_line("------------[ cut here ]------------");
	log_line("WARNING: include/linux/fs.h:951 at set_cached_link+0x8c/0xa0 "
		 "[vfsdbg73_trigger], CPU#1: insmod/61");
	log_line("CPU: 1 UID: 0 PID: 61 Comm: insmod Tainted: G O 7.3.4 #1");
	log_line("RIP: 0010:set_cached_link+0x8c/0xa0 [vfsdbg73_trigger]");
	/* 7.0 and later, no file */
	log_line("VFS_WARN_ON_INODE(x): inode:ffff888000000200 fs:ext4 "
		 "mode:100644 opflags:0 flags:0 state:0 count:1");
	log_line("WARNING: at g+0x1/0x2, CPU#0: kworker/0:1/5");
	/* before 7.0, with and without a file */
	log_line("VFS_WARN_ON_INODE(y) encountered for inode ffff888000000300");
	log_line("WARNING: CPU: 0 PID: 9 at include/linux/fs.h:791 "
		 "cache_link_one_short+0x70/0x1000 [vfsdbg_trigger]");
	log_line("VFS_WARN_ON_INODE(z) encountered for inode ffff888000000400");
	log_line("WARNING: CPU: 0 PID: 9 at h+0x3/0x4");
	/* a BUG: the function comes from the RIP line after the CPU line */
	log_line("VFS_BUG_ON_INODE(!IS_ANON_FILE(inode)): inode:"
		 "ffff888000000500 fs:tmpfs mode:644 opflags:0x4 flags:0 "
		 "state:0 count:2");
	log_line("------------[ cut here ]------------");
	log_line("kernel BUG at fs/namei.c:4266!");
	log_line("Oops: invalid opcode: 0000 [#1] SMP NOPTI");
	log_line("CPU: 0 UID: 0 PID: 96 Comm: cat Tainted: G W O 7.3.4 #1");
	log_line("RIP: 0010:may_open+0x1b3/0x1c0");
	/* a BUG in user mode's RIP form names no function */
	log_line("VFS_BUG_ON_INODE(w): inode:ffff888000000600 fs:tmpfs "
		 "mode:644 opflags:0 flags:0 state:0 count:1");
	log_line("kernel BUG at fs/inode.c:12!");
	log_line("RIP: 0033:0x7f0000001000");
	reps = find(&n);
	CHECK(n == 6);
	if (n == 6) {
		CHECK(!strcmp(reps[0].site_file, "include/linux/fs.h"));
		CHECK(reps[0].site_line == 951);
		CHECK(!strcmp(reps[0].site_function, "set_cached_link"));
		CHECK(!strcmp(reps[0].task, "insmod"));
		CHECK(reps[1].site_file[0] == '\0' && reps[1].site_line == 0);
		CHECK(!strcmp(reps[1].site_function, "g"));
		CHECK(!strcmp(reps[2].site_file, "include/linux/fs.h"));
		CHECK(reps[2].site_line == 791);
		CHECK(!strcmp(reps[2].site_function, "cache_link_one_short"));
		CHECK(reps[3].site_file[0] == '\0');
		CHECK(!strcmp(reps[3].site_function, "h"));
		CHECK(!strcmp(reps[4].location, "kernel BUG at fs/namei.c:4266!"));
		CHECK(!strcmp(reps[4].site_file, "fs/namei.c"));
		CHECK(reps[4].site_line == 4266);
		CHECK(!strcmp(reps[4].site_function, "may_open"));
		CHECK(!strcmp(reps[4].task, "cat"));
		CHECK(!strcmp(reps[5].site_file, "fs/inode.c"));
		CHECK(reps[5].site_function[0] == '\0');
	}
	free(reps);
}

/*
 * arm64's splats (the arm64-64k sets): the same WARNING line; a BUG's
 * function from the "pc : " line after the CPU and pstate lines, not the
 * "lr : " one; a user-mode pc (a bare address) names none.
 */
static void arm64_splat_names_its_site(void)
{
	size_t n = 0;
	struct inodedump_report *reps;

	log_reset();
	log_line("VFS_BUG_ON_INODE(!IS_ANON_FILE(inode)): inode:"
		 "fffffc0003a1e5a8 fs:tmpfs mode:644 opflags:0x4 flags:0 "
		 "state:0 count:2");
	log_line("------------[ cut here ]------------");
	log_line("kernel BUG at fs/namei.c:4266!");
	log_line("Internal error: Oops - BUG: 00000000f2000800 [#1]  SMP");
	log_line("CPU: 1 UID: 0 PID: 96 Comm: cat Tainted: G W O 7.3.4 #1");
	log_line("pstate: 61400005 (nZCv daif +PAN -UAO -TCO +DIT -SSBS BTYPE=--)");
	log_line("pc : may_open+0x2c4/0x2d0");
	log_line("lr : may_open+0x2c4/0x2d0");
	log_line("VFS_BUG_ON_INODE(w): inode:fffffc0003a1e7a8 fs:tmpfs "
		 "mode:644 opflags:0 flags:0 state:0 count:1");
	log_line("kernel BUG at fs/inode.c:12!");
	log_line("pc : 0000ffff9c3e1a2c");
	log_line("lr : do_it+0x1/0x2");
	reps = find(&n);
	CHECK(n == 2);
	if (n == 2) {
		CHECK(!strcmp(reps[0].site_file, "fs/namei.c"));
		CHECK(reps[0].site_line == 4266);
		CHECK(!strcmp(reps[0].site_function, "may_open"));
		CHECK(!strcmp(reps[0].task, "cat"));
		CHECK(!strcmp(reps[1].site_file, "fs/inode.c"));
		CHECK(reps[1].site_function[0] == '\0');
	}
	free(reps);
}

int main(void)
{
	log_without_reports_gives_none();
	arm64_splat_names_its_site();
	fields_in_the_next_record_make_a_6_18_report();
	fields_after_an_embedded_newline_make_a_6_18_report();
	each_report_keeps_its_own_splat();
	every_report_of_a_long_log_is_returned();
	each_splat_names_its_site();
	printf("%d checks passed, %d failed\n", passed, failed);
	return failed || !passed;
}
