// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A fork server for tests/test_mutate.py: vmcore-inode's own main()
 * (tools/vmcore-inode.c, compiled in as vmcore_inode_main) runs in a child
 * forked per request from this process, which was started, linked and
 * had its sanitizer runtime set up once. Measured on the ASan/UBSan
 * build, a run that does nothing (--version) costs 80 ms as an exec and
 * 55 ms as a fork of this server, of which LeakSanitizer's scan at exit
 * is 40 ms (libubsan's 6 MB of .bss among the globals it scans: touched
 * once here, so that no child faults those pages in again).
 * Each child is a whole run: its arguments, its own stdout and stderr
 * (files), exit() at the end so that stdio is flushed and LeakSanitizer
 * checks it; a crash kills only it.
 *
 * Requests on stdin, one a line, fields separated by tabs (no field holds
 * a tab or a newline):
 *     TIMEOUT_S \t STDOUT_FILE \t STDERR_FILE \t ARG \t ARG ...
 * Answers on stdout, one a line: "PID exit N", "PID signal N" or
 * "PID timeout" (killed with SIGKILL after TIMEOUT_S seconds). EOF on
 * stdin ends the server.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int vmcore_inode_main(int argc, char **argv);

#define MAX_ARGS 64

static _Noreturn void child(const char *out, const char *err, int argc,
			    char **argv)
{
	int in = open("/dev/null", O_RDONLY);
	int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 ||
	    dup2(e, 2) < 0)
		_exit(125);
	close(in);
	close(o);
	close(e);
	/* stdout was the pipe to the test: its buffer is empty (flushed). */
	exit(vmcore_inode_main(argc, argv));
}

/*
 * Read every page of every loaded object's writable segments once, here:
 * a page of .bss never touched is mapped to the zero page by the read,
 * and each child inherits the mapping. Else every child faults them in
 * anew when LeakSanitizer scans the globals at its exit (libubsan has
 * 6 MB of .bss: 18 of the 73 ms of a --version run).
 */
__attribute__((no_sanitize("address", "undefined")))
static int touch_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
	long page = sysconf(_SC_PAGESIZE);

	(void)size, (void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start, end;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		start = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(page - 1);
		end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		for (uintptr_t a = start; a < end; a += (uintptr_t)page)
			(void)*(volatile const char *)a;
	}
	return 0;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Wait for pid at most timeout seconds: its status, or -1 when killed. */
static int reap(pid_t pid, double timeout, int *status)
{
	double end = now() + timeout;
	const struct timespec tick = { 0, 2 * 1000 * 1000 };

	for (;;) {
		pid_t got = waitpid(pid, status, WNOHANG);

		if (got == pid)
			return 0;
		if (got < 0 && errno != EINTR)
			return -2;
		if (now() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, status, 0);
			return -1;
		}
		nanosleep(&tick, NULL);
	}
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	signal(SIGPIPE, SIG_IGN);
	dl_iterate_phdr(touch_segments, NULL);
	while ((n = getline(&line, &cap, stdin)) > 0) {
		char *field[MAX_ARGS + 4], *save = NULL, *f;
		int nf = 0, status = 0, r;
		pid_t pid;

		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		for (f = strtok_r(line, "\t", &save); f && nf < MAX_ARGS + 3;
		     f = strtok_r(NULL, "\t", &save))
			field[nf++] = f;
		if (nf < 3) {
			fprintf(stderr, "mutate_server: bad request\n");
			return 2;
		}
		/* argv: "vmcore-inode" in place of the STDERR_FILE field. */
		field[nf] = NULL;
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("mutate_server: fork");
			return 1;
		}
		if (pid == 0) {
			char *err = field[2];

			field[2] = (char *)"vmcore-inode";
			child(field[1], err, nf - 2, field + 2);
		}
		r = reap(pid, strtod(field[0], NULL), &status);
		if (r == -1)
			printf("%d timeout\n", (int)pid);
		else if (r < 0)
			printf("%d lost\n", (int)pid);
		else if (WIFSIGNALED(status))
			printf("%d signal %d\n", (int)pid, WTERMSIG(status));
		else
			printf("%d exit %d\n", (int)pid, WEXITSTATUS(status));
		fflush(stdout);
	}
	free(line);
	return 0;
}
