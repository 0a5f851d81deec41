// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vmcore-inode --follow without a guest (tools/follow.c): /dev/kmsg
 * records as the kernel writes them, parsed one by one, then fed through
 * a pipe to follow_run() with a decode that fails on purpose (no kernel
 * here: the guest test, tests/test_follow.py, decodes real ones). What is
 * checked: the record header and its escapes, reports in 7.0's one-line
 * and 6.18's two-record format with their splats, a gap in sequence
 * numbers said as lost records, the end at EOF and at SIGTERM/SIGINT with the
 * output complete and the documented status.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "follow.h"

static char said[8192];

static void on_error(const char *message, void *arg)
{
	(void)arg;
	strncat(said, message, sizeof(said) - strlen(said) - 2);
	strcat(said, "\n");
}

static int decodes;

static struct inodedump_error *fail_decode(void *arg, uint64_t address,
					   struct inodedump_inode **out)
{
	(void)arg;
	(void)address;
	*out = NULL;
	decodes++;
	/* an error made the public way: no such dump (not a usage error) */
	struct inodedump *id = NULL;
	struct inodedump_error *err =
		inodedump_open("/nonexistent/test_follow", NULL, &id);

	inodedump_close(id);
	return err;
}

static void parse_records(void)
{
	struct inodedump_record r;
	char text[64];
	const char *l;

	l = "4,1234,5678901,-,caller=T95;hello\\x0aworld \\x5c end";
	CHECK(follow_parse_record(l, strlen(l), &r, text, sizeof(text)));
	CHECK(r.seq == 1234 && r.ts_nsec == 5678901000ull && r.level == 4 &&
	      r.facility == 0 && !r.continuation && r.caller_id == 95);
	CHECKF(!strcmp(r.text, "hello\nworld \\ end") &&
		       r.text_len == strlen("hello\nworld \\ end"),
	       "%s", r.text);

	l = "14,7,1,c,caller=C1;cont";
	CHECK(follow_parse_record(l, strlen(l), &r, text, sizeof(text)));
	CHECK(r.continuation && r.facility == 1 && r.level == 6 &&
	      r.caller_id == (0x80000000u | 1));

	l = "6,8,2,-;no caller, other; fields";
	CHECK(follow_parse_record(l, strlen(l), &r, text, sizeof(text)));
	CHECK(r.caller_id == INODEDUMP_CALLER_UNKNOWN &&
	      !strcmp(r.text, "no caller, other; fields"));

	l = "6,9,3,-,future=x,caller=T7;x";
	CHECK(follow_parse_record(l, strlen(l), &r, text, sizeof(text)));
	CHECK(r.caller_id == 7);

	/* a bad \x escape is kept as it is */
	l = "6,10,3,-;a\\xZZ\\x4";
	CHECK(follow_parse_record(l, strlen(l), &r, text, sizeof(text)));
	CHECK(!strcmp(r.text, "a\\xZZ\\x4"));

	/* cut to fit, NUL-ended */
	l = "6,11,3,-;0123456789";
	CHECK(follow_parse_record(l, strlen(l), &r, text, 5));
	CHECK(!strcmp(r.text, "0123") && r.text_len == 4);

	static const char *const bad[] = {
		"",
		" SUBSYSTEM=mem",
		"6,1,2;no flags",
		"6,1,2,x;bad flag",
		"6,,2,-;empty seq",
		"a,1,2,-;not a number",
		"6,1,2,-",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECKF(!follow_parse_record(bad[i], strlen(bad[i]), &r, text,
					    sizeof(text)),
		       "taken: '%s'", bad[i]);
}

/* What /dev/kmsg hands out around two reports, then a gap. */
static const char kmsg[] =
	"6,100,1000000,-,caller=T61;before\n"
	" SUBSYSTEM=mem\n"
	" DEVICE=c1:1\n"
	/* 7.0: one line; its splat follows */
	"4,101,1000100,-,caller=T61;VFS_WARN_ON_INODE(strlen(link) != "
	"linklen): inode:ffff888003b1c000 fs:tmpfs mode:120777 opflags:4 "
	"flags:0 state:0 count:2\n"
	"4,102,1000200,-,caller=T61;WARNING: include/linux/fs.h:951 at "
	"set_cached_link+0x8c/0xa0 [vfsdbg73_trigger], CPU#1: insmod/61\n"
	"4,103,1000300,-,caller=T61;Modules linked in: vfsdbg73_trigger(O+)\n"
	"4,104,1000400,-,caller=T61;CPU: 1 UID: 0 PID: 61 Comm: insmod "
	"Tainted: G O 7.3.4 #1 PREEMPT(none)\n"
	"4,105,1000500,-,caller=T61;RIP: 0010:set_cached_link+0x8c/0xa0 "
	"[vfsdbg73_trigger]\n"
	/* seq 106..110 lost */
	"4,111,2000000,-,caller=T7;VFS_WARN_ON_INODE(x) encountered for "
	"inode ffff888000000200\n"
	"4,112,2000001,-,caller=T7;fs ext4 mode 100644 opflags 0xc flags 0x0 "
	"state 0x0 count 1\n"
	"4,113,2000002,-,caller=T7;WARNING: CPU: 0 PID: 7 at fs/inode.c:10 "
	"f+0x0/0x1\n"
	"4,114,2000003,-,caller=T7;CPU: 0 UID: 0 PID: 7 Comm: kworker/0:1 "
	"Not tainted\n"
	/* the text's newline escaped: still a report on its first line */
	"4,115,3000000,-,caller=T9;VFS_WARN_ON_INODE(y): unreadable "
	"inode:fffffffffffffffe\\x0amore\n";

static enum inodedump_format format = INODEDUMP_FORMAT_JSON;

static int run_pipe(const char *input, bool close_writer, FILE *out,
		    pid_t *child)
{
	struct run_out o = { .out = out, .on_error = on_error };
	struct follow_opts fo = { .stop_at_eof = true,
				  .format = format,
				  .decode = fail_decode, .splat_wait_ms = 20,
				  .o = &o };
	int p[2];

	if (pipe(p))
		return -1;
	if (write(p[1], input, strlen(input)) != (ssize_t)strlen(input))
		return -1;
	fo.fd = p[0];
	if (close_writer) {
		close(p[1]);
		int status = follow_run(&fo);

		close(p[0]);
		return status;
	}
	/* SIGTERM: a child follows a log that never ends */
	*child = fork();
	if (*child == 0) {
		close(p[1]);
		_exit(follow_run(&fo));
	}
	close(p[0]);
	return p[1];
}

static void follow_pipe(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int status;

	said[0] = '\0';
	decodes = 0;
	status = run_pipe(kmsg, true, out, NULL);
	fclose(out);
	/* an inode not decoded (3) wins over records lost (4) */
	CHECKF(status == RUN_UNREADABLE, "status %d", status);
	CHECKF(decodes == 3, "%d decodes", decodes);
	CHECKF(strstr(said, "5 kernel log records lost (seq 106 to 110)"),
	       "%s", said);
	CHECKF(strstr(said, "report seq 101: inode 0xffff888003b1c000: "),
	       "%s", said);
	/* three JSON Lines, one a report, in order */
	{
		char *l1 = buf, *l2 = strchr(l1, '\n'), *l3, *end;

		CHECKF(l2, "%s", buf);
		if (!l2)
			goto out;
		*l2++ = '\0';
		l3 = strchr(l2, '\n');
		CHECK(l3);
		if (!l3)
			goto out;
		*l3++ = '\0';
		end = strchr(l3, '\n');
		CHECK(end && end[1] == '\0');
		CHECKF(strstr(l1, "\"reason\": \"VFS_WARN_ON_INODE(strlen(link) "
				  "!= linklen)\"") &&
			       strstr(l1, "\"address\": \"0xffff888003b1c000\"") &&
			       strstr(l1, "\"format\": \"7.0\"") &&
			       strstr(l1, "\"seq\": 101") &&
			       strstr(l1, "\"timestamp_ns\": 1000100000") &&
			       strstr(l1, "\"task\": \"insmod\"") &&
			       strstr(l1, "\"function\": \"set_cached_link\"") &&
			       strstr(l1, "\"line\": 951") &&
			       strstr(l1, "\"mode\": 41471") &&
			       strstr(l1, "\"count\": 2") &&
			       strstr(l1, "\"inode\": {\"address\": "
					  "\"0xffff888003b1c000\", \"error\": "),
		       "%s", l1);
		CHECKF(strstr(l2, "\"format\": \"6.18\"") &&
			       strstr(l2, "\"seq\": 111") &&
			       strstr(l2, "\"fs_type\": \"ext4\"") &&
			       strstr(l2, "\"opflags\": 12") &&
			       strstr(l2, "\"task\": \"kworker/0:1\"") &&
			       strstr(l2, "\"file\": \"fs/inode.c\""),
		       "%s", l2);
		CHECKF(strstr(l3, "\"unreadable_at_report\": true") &&
			       strstr(l3, "\"seq\": 115") &&
			       strstr(l3, "\"location\": null"),
		       "%s", l3);
	}
out:
	free(buf);
}

/* SIGTERM or SIGINT while following: what was read is written, status 3. */
static void follow_signal(int sig)
{
	char path[] = "/tmp/test_follow.XXXXXX";
	int fd = mkstemp(path), writer, status = -1;
	FILE *out = fd >= 0 ? fdopen(fd, "w+") : NULL;
	pid_t child = -1;
	char line[8192];
	size_t n;

	CHECK(out);
	if (!out)
		return;
	unlink(path);
	said[0] = '\0';
	writer = run_pipe("4,5,1,-;VFS_WARN_ON_INODE(z): inode:ffff888000000100 "
			  "fs:tmpfs mode:100644 opflags:0 flags:0 state:0 "
			  "count:1\n",
			  false, out, &child);
	CHECK(writer >= 0 && child > 0);
	if (child <= 0)
		return;
	usleep(300 * 1000); /* it waits for the splat, then writes */
	kill(child, sig);
	CHECK(waitpid(child, &status, 0) == child);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == RUN_UNREADABLE,
	       "status 0x%x", status);
	close(writer);
	rewind(out);
	n = fread(line, 1, sizeof(line) - 1, out);
	line[n] = '\0';
	CHECKF(strstr(line, "\"seq\": 5") && strchr(line, '\n') ==
							line + n - 1,
	       "%s", line);
	fclose(out);
}

/* Text: the report's lines, why its inode was not decoded, a blank line. */
static void follow_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int status;

	format = INODEDUMP_FORMAT_TEXT;
	status = run_pipe(kmsg, true, out, NULL);
	format = INODEDUMP_FORMAT_JSON;
	fclose(out);
	CHECKF(status == RUN_UNREADABLE, "status %d", status);
	CHECKF(strstr(buf, "report  VFS_WARN_ON_INODE(strlen(link) != linklen)\n"
			   "  at [    1.000100] seq 101 by T61 insmod (dump_inode "
			   "format 7.0)\n  WARNING: include/linux/fs.h:951 at "
			   "set_cached_link+0x8c/0xa0 [vfsdbg73_trigger], CPU#1: "
			   "insmod/61\n  not decoded: ") &&
		       strstr(buf, "report  VFS_WARN_ON_INODE(x)\n") &&
		       strstr(buf, "report  VFS_WARN_ON_INODE(y)\n"),
	       "%s", buf);
	free(buf);
}

int main(void)
{
	parse_records();
	follow_pipe();
	follow_text();
	follow_signal(SIGTERM);
	follow_signal(SIGINT);
	return check_summary("follow");
}
