// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libkdumpfile in a child process. libkdumpfile 0.5.1 trusts what a dump
 * says (a page descriptor's size, a program header count, a note's size)
 * and can crash or allocate petabytes on a damaged file; our readers
 * (diskdump.c, elf.c) report the damage they find themselves, but what
 * they do not take (sadump, split or incomplete dumps, snappy pages,
 * /proc/kcore, ...) still needs libkdumpfile. So it runs here in a forked
 * child, which loads it, limits its own address space (RLIMIT_AS), shuts
 * itself in with a seccomp filter (x86-64: no open, no exec, no network),
 * opens the dump and serves facts and reads over two pipes (a kernel may
 * have no UNIX sockets, as the live test's guest has none). A crash or an
 * absurd allocation in it becomes an error ("libkdumpfile failed reading
 * 0x... (signal 11)") and no further request goes to it; a child that
 * does not answer within CHILD_TIMEOUT_MS (or INODEDUMP_KDUMPFILE_TIMEOUT
 * seconds from the environment) is killed.
 *
 * The child is made when libkdumpfile is first needed, after the header
 * checks of our probes: a run our readers serve forks nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

#include "target/backend.h"
#include "target/kdl.h"

/* Beyond what the child had at fork: room for libkdumpfile's tables. */
#define CHILD_AS_HEADROOM (UINT64_C(2) << 30)
#define CHILD_TIMEOUT_MS 120000
#define MSG_MAX (UINT64_C(1) << 30)

enum op { OP_READ_VIRT = 1, OP_READ_PHYS, OP_FACT, OP_SET_ARCH, OP_FORGET };
enum fact {
	FACT_FORMAT,
	FACT_ARCH,
	FACT_PAGE_SIZE,
	FACT_UTS_RELEASE,
	FACT_LITTLE_ENDIAN,
	FACT_VMCOREINFO,
	FACT_MACHINE_PHYSICAL,
	NFACTS
};

struct request {
	uint32_t op, fact;
	uint64_t addr, len;
	char arch[32];
};

/* Then len bytes: the data read, or the message, or the fact's string. */
struct reply {
	int32_t ok;		/* read: all bytes; fact: has an answer */
	int32_t code;		/* read_virt's error */
	int32_t has_address;
	int32_t has_string;
	uint64_t address;	/* the error's */
	uint64_t num;		/* a fact's number */
	uint64_t len;
};

struct sandbox {
	struct idd_backend base;
	pid_t pid;
	int to_child, from_child; /* pipes */
	int dump_level;
	int timeout_ms; /* for one answer of the child */
	/* Why the child is gone, once it is: every later request fails. */
	char *dead;
	/* Facts, kept until close (callers keep the pointers). */
	bool have[NFACTS];
	char *str[NFACTS];
	uint64_t num[NFACTS];
	char **old;
	size_t nold;
};

static struct sandbox *to_sandbox(struct idd_backend *b)
{
	return (struct sandbox *)b;
}

/* ---- the wire ---- */

/*
 * write(2) to a pipe whose reader may be dead: EPIPE, without the SIGPIPE
 * that would end the process (blocked in this thread, and taken back if
 * this write raised it).
 */
static ssize_t write_nosigpipe(int fd, const void *buf, size_t len)
{
	sigset_t pipe_only, old, pending;
	bool was_pending;
	ssize_t n;
	int e;

	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
	n = write(fd, buf, len);
	e = errno;
	if (n < 0 && e == EPIPE && !was_pending) {
		const struct timespec now = { 0, 0 };

		sigtimedwait(&pipe_only, NULL, &now);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return n;
}

/*
 * Send (!in) or receive len bytes. A receive waits at most timeout_ms
 * (< 0: as long as it takes, the child's side); *late (may be NULL) says
 * the time ran out.
 */
static bool transfer(int fd, void *buf, size_t len, bool in, int timeout_ms,
		     bool *late)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n;

		if (in) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			int r = poll(&pfd, 1, timeout_ms);

			if (r < 0 && errno == EINTR)
				continue;
			if (late)
				*late = r == 0;
			if (r <= 0)
				return false;
			n = read(fd, p, len);
		} else {
			n = write_nosigpipe(fd, p, len);
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static bool send_all(int fd, const void *buf, size_t len)
{
	return transfer(fd, (void *)buf, len, false, -1, NULL);
}

static bool recv_late(int fd, void *buf, size_t len, int timeout_ms,
		      bool *late)
{
	return transfer(fd, buf, len, true, timeout_ms, late);
}

static bool recv_all(int fd, void *buf, size_t len, int timeout_ms)
{
	return transfer(fd, buf, len, true, timeout_ms, NULL);
}

/* ---- the child ---- */

#if defined(__x86_64__)
/*
 * What libkdumpfile needs to read a file it was given and to answer over
 * the pipes it was given; anything else fails with EPERM.
 */
static void shut_in(void)
{
#define ALLOW(nr)                                             \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),      \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		ALLOW(SYS_read), ALLOW(SYS_write), ALLOW(SYS_pread64),
		ALLOW(SYS_readv), ALLOW(SYS_writev), ALLOW(SYS_preadv),
		ALLOW(SYS_lseek), ALLOW(SYS_fstat), ALLOW(SYS_newfstatat),
		ALLOW(SYS_recvfrom), ALLOW(SYS_sendto), ALLOW(SYS_poll),
		ALLOW(SYS_mmap), ALLOW(SYS_munmap), ALLOW(SYS_mremap),
		ALLOW(SYS_mprotect), ALLOW(SYS_brk), ALLOW(SYS_madvise),
		ALLOW(SYS_futex), ALLOW(SYS_getpid), ALLOW(SYS_gettid),
		ALLOW(SYS_rt_sigreturn), ALLOW(SYS_rt_sigprocmask),
		ALLOW(SYS_rt_sigaction), ALLOW(SYS_sigaltstack),
		ALLOW(SYS_tgkill), ALLOW(SYS_clock_gettime),
		ALLOW(SYS_sched_yield), ALLOW(SYS_getrlimit),
		ALLOW(SYS_prlimit64), ALLOW(SYS_exit), ALLOW(SYS_exit_group),
		ALLOW(SYS_close),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
#undef ALLOW
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
		syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}
#else
static void shut_in(void)
{
}
#endif

/* What the child has mapped now, in bytes (the first field of statm). */
static uint64_t mapped_now(void)
{
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned long long pages = 0;

	if (f) {
		if (fscanf(f, "%llu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void limit_memory(void)
{
	uint64_t now = mapped_now();
	struct rlimit rl;

	if (!now || getrlimit(RLIMIT_AS, &rl) < 0)
		return;
	if (rl.rlim_max == RLIM_INFINITY ||
	    rl.rlim_max > now + CHILD_AS_HEADROOM)
		rl.rlim_cur = now + CHILD_AS_HEADROOM;
	else
		rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_AS, &rl);
}

static bool reply(int out, struct reply *r, const void *data)
{
	return send_all(out, r, sizeof(*r)) &&
	       (!r->len || send_all(out, data, r->len));
}

static bool reply_string(int out, const char *s, uint64_t num)
{
	struct reply r = { .ok = 1, .num = num };

	r.has_string = s != NULL;
	r.len = s ? strlen(s) : 0;
	return reply(out, &r, s);
}

static bool serve_fact(int out, struct idd_backend *k, uint32_t fact)
{
	const struct idd_backend_ops *ops = k->ops;

	switch (fact) {
	case FACT_FORMAT: return reply_string(out, ops->format(k), 0);
	case FACT_ARCH: return reply_string(out, ops->arch(k), 0);
	case FACT_PAGE_SIZE: return reply_string(out, NULL, ops->page_size(k));
	case FACT_UTS_RELEASE:
		return reply_string(out, ops->uts_release(k), 0);
	case FACT_LITTLE_ENDIAN:
		return reply_string(out, NULL, ops->little_endian(k));
	case FACT_VMCOREINFO: return reply_string(out, ops->vmcoreinfo(k), 0);
	case FACT_MACHINE_PHYSICAL:
		return reply_string(out, NULL, ops->machine_physical(k));
	}
	return false;
}

static bool serve_read(int out, struct idd_backend *k,
		       const struct request *q)
{
	struct reply r = { 0 };
	uint8_t *buf = q->len <= MSG_MAX ? malloc(q->len ? q->len : 1) : NULL;
	struct inodedump_error *err;
	bool sent;

	if (!buf) {
		r.code = INODEDUMP_ERR_NOMEM;
		return reply(out, &r, NULL);
	}
	if (q->op == OP_READ_PHYS) {
		r.ok = k->ops->read_phys(k, q->addr, buf, q->len);
		r.len = r.ok ? q->len : 0;
		sent = reply(out, &r, buf);
		free(buf);
		return sent;
	}
	err = k->ops->read_virt(k, q->addr, buf, q->len);
	if (!err) {
		r.ok = 1;
		r.len = q->len;
		sent = reply(out, &r, buf);
	} else {
		r.code = (int32_t)err->code;
		r.has_address = err->has_address;
		r.address = err->address;
		r.len = strlen(err->message);
		sent = reply(out, &r, err->message);
		inodedump_error_free(err);
	}
	free(buf);
	return sent;
}

/* The child: open the dump with libkdumpfile, then serve until EOF. */
static _Noreturn void child(struct idd_target *t, int in, int out, int fd,
			    const char *path, int dump_level,
			    const char *default_arch)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL,
				     SIGSYS };
	struct idd_backend *k = NULL;
	struct inodedump_error *err;
	struct request q;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* A crash is the child's death, seen by the parent, not a handler's. */
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], SIG_DFL);
	/* Loaded before the filter (dlopen(3) opens files): by the parent. */
	idd_kdl_load_error();
	limit_memory();
	shut_in();
	err = idd_kdumpfile_open_here(t, fd, path, dump_level, default_arch,
				      &k);
	if (err) {
		struct reply r = { .code = (int32_t)err->code };

		r.len = strlen(err->message);
		reply(out, &r, err->message);
		_exit(0);
	}
	if (!idd_target_has_backend(t))
		idd_target_attach(t, k); /* for the messages of its reads */
	if (!reply_string(out, NULL, 0))
		_exit(0);
	while (recv_all(in, &q, sizeof(q), -1)) {
		bool ok = true;

		switch (q.op) {
		case OP_READ_VIRT:
		case OP_READ_PHYS: ok = serve_read(out, k, &q); break;
		case OP_FACT: ok = serve_fact(out, k, q.fact); break;
		case OP_SET_ARCH:
			q.arch[sizeof(q.arch) - 1] = '\0';
			k->ops->set_default_arch(k, q.arch);
			ok = reply_string(out, NULL, 0);
			break;
		case OP_FORGET: {
			struct reply r = { .ok = !k->ops->forget ||
						 k->ops->forget(k) };

			ok = reply(out, &r, NULL);
			break;
		}
		default: ok = false;
		}
		if (!ok)
			break;
	}
	_exit(0);
}

/* ---- the parent ---- */

/*
 * How long the child may take to answer one request: CHILD_TIMEOUT_MS,
 * or INODEDUMP_KDUMPFILE_TIMEOUT seconds (1 to 86400) where set: a dump
 * on a slow disk may need more, and the test of the timeout uses 2.
 * Anything else there is ignored.
 */
static int child_timeout_ms(void)
{
	const char *v = getenv("INODEDUMP_KDUMPFILE_TIMEOUT");
	char *end;
	long n;

	if (!v || *v < '0' || *v > '9')
		return CHILD_TIMEOUT_MS;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < 1 || n > 86400)
		return CHILD_TIMEOUT_MS;
	return (int)(n * 1000);
}

/* The child is gone or stuck (late): say how, kill and reap it, once. */
static void bury(struct sandbox *s, const char *doing, bool late)
{
	int status = 0;
	pid_t got;

	if (s->dead)
		return;
	/* A stuck child gets no more time; a dead one is reaped. */
	if (late)
		kill(s->pid, SIGKILL);
	got = waitpid(s->pid, &status, 0);
	if (late) {
		s->dead = idd_strdup_printf("libkdumpfile did not answer %s "
					    "within %d s", doing,
					    s->timeout_ms / 1000);
	} else if (got > 0 && WIFSIGNALED(status)) {
		s->dead = idd_strdup_printf("libkdumpfile failed %s (signal "
					    "%d, %s)", doing, WTERMSIG(status),
					    strsignal(WTERMSIG(status)));
	} else if (got > 0 && WIFEXITED(status)) {
		s->dead = idd_strdup_printf("libkdumpfile failed %s (it exited "
					    "with status %d)", doing,
					    WEXITSTATUS(status));
	} else {
		s->dead = idd_strdup_printf("libkdumpfile failed %s (its "
					    "process is lost)", doing);
	}
	close(s->to_child);
	close(s->from_child);
	s->to_child = s->from_child = -1;
	s->pid = -1;
}

static struct inodedump_error *gone(struct sandbox *s, uint64_t addr,
				    bool has_addr)
{
	const char *why = s->dead ? s->dead : "libkdumpfile failed";

	if (has_addr)
		return idd_error_at(INODEDUMP_ERR_DUMP, addr, "%s: %s",
				    idd_target_path(s->base.target), why);
	return idd_error(INODEDUMP_ERR_DUMP, "%s: %s",
			 idd_target_path(s->base.target), why);
}

/*
 * One round trip: q out, the reply's header in *r and its payload in
 * *payload (malloc'd, NUL-terminated), or false with the child buried.
 */
static bool ask(struct sandbox *s, const struct request *q, struct reply *r,
		char **payload, const char *doing)
{
	bool late = false;

	*payload = NULL;
	if (s->dead)
		return false;
	if (!send_all(s->to_child, q, sizeof(*q)) ||
	    !recv_late(s->from_child, r, sizeof(*r), s->timeout_ms, &late) ||
	    r->len > MSG_MAX || !(*payload = malloc(r->len + 1)) ||
	    !recv_late(s->from_child, *payload, r->len, s->timeout_ms,
		       &late)) {
		free(*payload);
		*payload = NULL;
		bury(s, doing, late);
		return false;
	}
	(*payload)[r->len] = '\0';
	return true;
}

static struct inodedump_error *sandbox_read_virt(struct idd_backend *b,
						 uint64_t addr, void *buf,
						 size_t len)
{
	struct sandbox *s = to_sandbox(b);
	struct request q = { .op = OP_READ_VIRT, .addr = addr, .len = len };
	struct reply r;
	char doing[64], *p;
	struct inodedump_error *err;

	snprintf(doing, sizeof(doing), "reading 0x%llx",
		 (unsigned long long)addr);
	if (!ask(s, &q, &r, &p, doing))
		return gone(s, addr, true);
	if (r.ok && r.len == len) {
		memcpy(buf, p, len);
		err = NULL;
	} else if (r.code == INODEDUMP_ERR_NOMEM || r.ok) {
		err = idd_nomem();
	} else if (r.has_address) {
		err = idd_error_at((enum inodedump_error_code)r.code,
				   r.address, "%s", p);
	} else {
		err = idd_error((enum inodedump_error_code)r.code, "%s", p);
	}
	free(p);
	return err;
}

static bool sandbox_read_phys(struct idd_backend *b, uint64_t pa, void *buf,
			      size_t len)
{
	struct sandbox *s = to_sandbox(b);
	struct request q = { .op = OP_READ_PHYS, .addr = pa, .len = len };
	struct reply r;
	char doing[64], *p;
	bool ok;

	snprintf(doing, sizeof(doing), "reading physical 0x%llx",
		 (unsigned long long)pa);
	if (!ask(s, &q, &r, &p, doing))
		return false;
	ok = r.ok && r.len == len;
	if (ok)
		memcpy(buf, p, len);
	free(p);
	return ok;
}

/* A fact, asked once (arch again after a default is set). */
static bool fact(struct sandbox *s, enum fact f)
{
	struct request q = { .op = OP_FACT, .fact = f };
	struct reply r;
	char *p, **old;

	if (s->have[f])
		return true;
	if (!ask(s, &q, &r, &p, "answering a question about the dump"))
		return false;
	if (s->str[f]) { /* a caller may still hold the old answer */
		old = realloc(s->old, (s->nold + 1) * sizeof(*old));
		if (!old) {
			free(p);
			return false;
		}
		s->old = old;
		s->old[s->nold++] = s->str[f];
	}
	s->str[f] = r.has_string ? p : NULL;
	if (!r.has_string)
		free(p);
	s->num[f] = r.num;
	s->have[f] = true;
	return true;
}

static const char *fact_str(struct idd_backend *b, enum fact f)
{
	struct sandbox *s = to_sandbox(b);

	return fact(s, f) ? s->str[f] : NULL;
}

static const char *sandbox_format(struct idd_backend *b)
{
	return fact_str(b, FACT_FORMAT);
}

static const char *sandbox_arch(struct idd_backend *b)
{
	return fact_str(b, FACT_ARCH);
}

static const char *sandbox_uts_release(struct idd_backend *b)
{
	return fact_str(b, FACT_UTS_RELEASE);
}

static const char *sandbox_vmcoreinfo(struct idd_backend *b)
{
	return fact_str(b, FACT_VMCOREINFO);
}

static uint64_t sandbox_page_size(struct idd_backend *b)
{
	struct sandbox *s = to_sandbox(b);

	return fact(s, FACT_PAGE_SIZE) ? s->num[FACT_PAGE_SIZE] : 0;
}

static bool sandbox_little_endian(struct idd_backend *b)
{
	struct sandbox *s = to_sandbox(b);

	return !fact(s, FACT_LITTLE_ENDIAN) || s->num[FACT_LITTLE_ENDIAN];
}

static bool sandbox_machine_physical(struct idd_backend *b)
{
	struct sandbox *s = to_sandbox(b);

	return !fact(s, FACT_MACHINE_PHYSICAL) ||
	       s->num[FACT_MACHINE_PHYSICAL];
}

static int sandbox_dump_level(struct idd_backend *b)
{
	return to_sandbox(b)->dump_level;
}

static void sandbox_set_default_arch(struct idd_backend *b, const char *arch)
{
	struct sandbox *s = to_sandbox(b);
	struct request q = { .op = OP_SET_ARCH };
	struct reply r;
	char *p;

	if (strlen(arch) >= sizeof(q.arch))
		return;
	strcpy(q.arch, arch);
	if (ask(s, &q, &r, &p, "setting the architecture"))
		free(p);
	/* What depends on the architecture is asked again. */
	s->have[FACT_ARCH] = s->have[FACT_PAGE_SIZE] = false;
	s->have[FACT_LITTLE_ENDIAN] = false;
}

static bool sandbox_forget(struct idd_backend *b)
{
	struct request q = { .op = OP_FORGET };
	struct reply r;
	char *p;

	if (!ask(to_sandbox(b), &q, &r, &p, "dropping what it read"))
		return false;
	free(p);
	return r.ok;
}

static void sandbox_close(struct idd_backend *b)
{
	struct sandbox *s = to_sandbox(b);
	int status;

	if (s->to_child >= 0) {
		close(s->to_child); /* the child sees EOF and exits */
		close(s->from_child);
	}
	if (s->pid > 0)
		waitpid(s->pid, &status, 0);
	for (int f = 0; f < NFACTS; f++)
		free(s->str[f]);
	for (size_t i = 0; i < s->nold; i++)
		free(s->old[i]);
	free(s->old);
	free(s->dead);
	free(s);
}

static const struct idd_backend_ops sandbox_ops = {
	.reader = "libkdumpfile",
	.translation = "libkdumpfile (libaddrxlat)",
	.read_phys = sandbox_read_phys,
	.read_virt = sandbox_read_virt,
	.format = sandbox_format,
	.arch = sandbox_arch,
	.page_size = sandbox_page_size,
	.uts_release = sandbox_uts_release,
	.dump_level = sandbox_dump_level,
	.little_endian = sandbox_little_endian,
	.vmcoreinfo = sandbox_vmcoreinfo,
	.set_default_arch = sandbox_set_default_arch,
	.machine_physical = sandbox_machine_physical,
	.forget = sandbox_forget,
	.close = sandbox_close,
};

struct inodedump_error *idd_kdumpfile_open(struct idd_target *t, int fd,
					   const char *path, int dump_level,
					   const char *default_arch,
					   struct idd_backend **out)
{
	struct sandbox *s = calloc(1, sizeof(*s));
	struct reply r;
	char *p = NULL;
	bool late = false;
	int down[2], up[2]; /* [0] read end, [1] write end */

	if (!s)
		return idd_nomem();
	s->base.ops = &sandbox_ops;
	s->base.target = t;
	s->dump_level = dump_level;
	s->timeout_ms = child_timeout_ms();
	s->to_child = s->from_child = -1;
	if (pipe2(down, O_CLOEXEC) < 0) {
		free(s);
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: cannot start libkdumpfile: pipe: %s",
				 path, strerror(errno));
	}
	if (pipe2(up, O_CLOEXEC) < 0) {
		int e = errno;

		close(down[0]);
		close(down[1]);
		free(s);
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: cannot start libkdumpfile: pipe: %s",
				 path, strerror(e));
	}
	/*
	 * Loaded here, where libkdumpfile is needed anyway, so that each child
	 * inherits it instead of loading it again (a session may make more
	 * than one: the fuzzers make one per input). Nothing here calls it.
	 */
	idd_kdl_load_error();
	fflush(NULL); /* nothing buffered is written twice */
	s->pid = fork();
	if (s->pid == 0) {
		close(down[1]);
		close(up[0]);
		child(t, down[0], up[1], fd, path, dump_level, default_arch);
	}
	close(down[0]);
	close(up[1]);
	s->to_child = down[1];
	s->from_child = up[0];
	if (s->pid < 0) {
		int e = errno;

		sandbox_close(&s->base);
		return idd_error(INODEDUMP_ERR_DUMP,
				 "%s: cannot start libkdumpfile: fork: %s",
				 path, strerror(e));
	}
	/* The child's first word: opened, or why not. */
	if (!recv_late(s->from_child, &r, sizeof(r), s->timeout_ms, &late) ||
	    r.len > MSG_MAX || !(p = malloc(r.len + 1)) ||
	    !recv_late(s->from_child, p, r.len, s->timeout_ms, &late)) {
		struct inodedump_error *err;

		free(p);
		bury(s, "opening the dump", late);
		err = gone(s, 0, false);
		sandbox_close(&s->base);
		return err;
	}
	p[r.len] = '\0';
	if (!r.ok) {
		struct inodedump_error *err =
			idd_error((enum inodedump_error_code)r.code, "%s", p);

		free(p);
		sandbox_close(&s->base);
		return err;
	}
	free(p);
	*out = &s->base;
	return NULL;
}
