// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * followstamp: the follow73 guest's clock for `vmcore-inode --follow`
 * (tests/vmcores/follow_init.sh, tests/test_follow.py, bench/).
 *
 *   followstamp tee OUT
 *       Copy stdin to OUT line by line; after each line written, write
 *       "inodedump-follow-out seq=N\n" (N: the line's "seq", the report's
 *       kmsg sequence number) to /dev/kmsg at level 7 (the newline ends
 *       the record: without it the kernel keeps it open for a
 *       continuation, and a reader sees it only when the next comes). The kernel stamps
 *       both records with one clock: a report's record and the moment
 *       its decoded line reached a reader, their difference the latency.
 *
 *   followstamp time NAME PROGRAM [ARG...]
 *       Run PROGRAM, its output to /dev/null, and print
 *       "inodedump-time: name=NAME ms=T rc=R" (CLOCK_MONOTONIC, fork to
 *       exit).
 *
 * Static, libc only (busybox guest).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int tee(const char *path)
{
	int out = open(path, O_WRONLY | O_CLOEXEC);
	int kmsg = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	char *line = NULL;
	size_t cap = 0, lines = 0, marks = 0;
	ssize_t n;

	if (out < 0 || kmsg < 0) {
		perror("followstamp: open");
		return 1;
	}
	while ((n = getline(&line, &cap, stdin)) > 0) {
		const char *s = strstr(line, "\"seq\": ");
		char mark[96];
		ssize_t done = 0;

		while (done < n) {
			ssize_t w = write(out, line + done, (size_t)(n - done));

			if (w <= 0) {
				perror("followstamp: write");
				return 1;
			}
			done += w;
		}
		snprintf(mark, sizeof(mark), "<7>inodedump-follow-out seq=%llu\n",
			 s ? strtoull(s + 7, NULL, 10) : 0ull);
		lines++;
		if (write(kmsg, mark, strlen(mark)) < 0)
			perror("followstamp: write /dev/kmsg");
		else
			marks++;
	}
	printf("inodedump-followstamp: lines=%zu marks=%zu\n", lines, marks);
	free(line);
	return 0;
}

static int timed(const char *name, char **argv)
{
	struct timespec a, b;
	int status = 0;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("inodedump-time: name=%s ms=%.3f rc=%d\n", name,
	       (double)(b.tv_sec - a.tv_sec) * 1e3 +
		       (double)(b.tv_nsec - a.tv_nsec) / 1e6,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "tee"))
		return tee(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "time"))
		return timed(argv[2], argv + 3);
	fprintf(stderr, "usage: followstamp tee OUT | time NAME PROGRAM [ARG...]\n");
	return 2;
}
