// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fxfs - guest-side helpers of the fs sets (recipes/fs.sh, fs_init.sh) that
 * busybox cannot do; built static, put in the initramfs as /bin/fxfs (and
 * /bin/cinit, the same program, so that the container's init has a comm of
 * its own).
 *
 *   fxfs stat PID ROLE=PATH...
 *       One line per path, lstat(2) and readlink(2) as the caller sees them
 *       (run it inside a mount namespace with nsenter):
 *         inodedump-stat: ns=INUM pid=PID comm=COMM role=ROLE path=PATH
 *           dev=MAJ:MIN ino=N rawmode=HEX nlink=N size=N blocks=N uid=N
 *           gid=N rdev=MAJ:MIN link=TARGET|-
 *       (one line). ns is the caller's mount namespace inode (readlink
 *       /proc/self/ns/mnt), PID a process in the same namespace (checked)
 *       and COMM its /proc/PID/comm; dev and rdev in decimal. A path that
 *       cannot be stat'ed prints "inodedump-init: FAILED: ..." and the exit
 *       status is 1.
 *
 *   fxfs nfs ROLE=PATH...
 *       One line per path, what a support engineer checks an NFS inode's
 *       rows against: name_to_handle_at(2) (a last symlink not followed) and the
 *       mount it names in /proc/self/mountinfo:
 *         inodedump-nfs: role=ROLE path=PATH mnt_id=N fstype=T
 *           source=SRC handle_type=0xN handle=HEX [fileid=N itype=0OCT
 *           fhlen=N fh=HEX server=HOST export=PATH]
 *       (one line). On an NFS mount the handle is nfs_encode_fh()'s (fs/
 *       nfs/export.c): u32 fileid high and low, u32 i_mode & S_IFMT, then
 *       struct nfs_fh (u16 size, the server's file handle): fileid= itype=
 *       fhlen= fh= decode it, and server= export= split SRC at its last
 *       ':' (the export as the client mounted it). Elsewhere (the export's
 *       own filesystem) the handle is the one nfsd embeds in its file
 *       handles. Then, once per mount named:
 *         inodedump-nfs-mount: mnt_id=N mountpoint=DIR fstype=T source=SRC
 *           opts=MOUNT-OPTIONS superopts=SUPER-OPTIONS
 *
 *   fxfs ipc MARKER
 *       A socketpair (AF_UNIX), a pipe and an eventfd, held open: their
 *       inodes (sockfs, pipefs, anon_inode) stay in use. Prints one stat line
 *       each (fstat; path=-, holder=PID:FD after link=), writes MARKER and
 *       sleeps forever.
 *
 *   fxfs hold MARKER
 *       Writes its pid to MARKER and sleeps forever, keeping the descriptors
 *       and the working directory it was started with (the container's init).
 *
 *   fxfs subvol DIR NAME
 *       BTRFS_IOC_SUBVOL_CREATE: a btrfs subvolume NAME in DIR.
 *
 *   fxfs churn DIR N
 *       Creates DIR/churn-0..N-1 (one byte each) and unlinks them all, so
 *       that the filesystem's inode cache holds free objects.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void fail(const char *what, const char *arg)
{
	printf("inodedump-init: FAILED: fxfs %s %s: %s\n", what, arg, strerror(errno));
	fflush(stdout);
}

/* the inode number of a /proc/.../ns/mnt link ("mnt:[4026531841]") */
static unsigned long ns_of(const char *link)
{
	char buf[64];
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	char *p;

	if (n < 0)
		return 0;
	buf[n] = 0;
	p = strchr(buf, '[');
	return p ? strtoul(p + 1, NULL, 10) : 0;
}

static void comm_of(long pid, char *out, size_t cap)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	snprintf(out, cap, "-");
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(out, (int)cap, f))
		out[strcspn(out, "\n")] = 0;
	fclose(f);
}

static void print_stat(unsigned long ns, long pid, const char *comm, const char *role,
		       const char *path, const struct stat *st, const char *link, const char *tail)
{
	printf("inodedump-stat: ns=%lu pid=%ld comm=%s role=%s path=%s dev=%u:%u ino=%llu "
	       "rawmode=%x nlink=%llu size=%lld blocks=%lld uid=%u gid=%u rdev=%u:%u link=%s%s\n",
	       ns, pid, comm, role, path, major(st->st_dev), minor(st->st_dev),
	       (unsigned long long)st->st_ino, (unsigned)st->st_mode,
	       (unsigned long long)st->st_nlink, (long long)st->st_size,
	       (long long)st->st_blocks, (unsigned)st->st_uid, (unsigned)st->st_gid,
	       major(st->st_rdev), minor(st->st_rdev), link, tail);
}

static int cmd_stat(int argc, char **argv)
{
	char comm[64], link[4096], proc[64];
	unsigned long ns = ns_of("/proc/self/ns/mnt");
	long pid;
	int i, rc = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: fxfs stat PID ROLE=PATH...\n");
		return 2;
	}
	pid = strtol(argv[2], NULL, 10);
	snprintf(proc, sizeof(proc), "/proc/%ld/ns/mnt", pid);
	if (ns == 0 || ns_of(proc) != ns) {
		errno = EINVAL;
		fail("stat: not in the mount namespace of pid", argv[2]);
		return 1;
	}
	comm_of(pid, comm, sizeof(comm));
	for (i = 3; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		struct stat st;

		if (!eq) {
			errno = EINVAL;
			fail("stat: not ROLE=PATH:", argv[i]);
			rc = 1;
			continue;
		}
		*eq = 0;
		if (lstat(eq + 1, &st) < 0) {
			fail("stat", eq + 1);
			rc = 1;
			continue;
		}
		snprintf(link, sizeof(link), "-");
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(eq + 1, link, sizeof(link) - 1);

			if (n < 0) {
				fail("readlink", eq + 1);
				rc = 1;
				continue;
			}
			link[n] = 0;
		}
		print_stat(ns, pid, comm, argv[i], eq + 1, &st, link, "");
	}
	fflush(stdout);
	return rc;
}

/* the mountinfo line of mount MNT_ID: its mountpoint, options, type,
 * source and super options (each at most cap bytes) */
struct mountline {
	char mountpoint[512], opts[512], fstype[64], source[512], superopts[1024];
};

static int mountinfo_of(int mnt_id, struct mountline *m)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");
		int id;

		line[strcspn(line, "\n")] = 0;
		if (!sep || sscanf(line, "%d", &id) != 1 || id != mnt_id)
			continue;
		*sep = 0;
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] */
		if (sscanf(line, "%*d %*d %*s %*s %511s %511s", m->mountpoint, m->opts) != 2 ||
		    sscanf(sep + 3, "%63s %511s %1023s", m->fstype, m->source, m->superopts) != 3)
			break;
		found = 1;
	}
	fclose(f);
	return found;
}

static void hex(const unsigned char *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

static int cmd_nfs(int argc, char **argv)
{
	int ids[64], nids = 0, i, j, rc = 0;

	for (i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		union {
			struct file_handle fh;
			unsigned char bytes[sizeof(struct file_handle) + MAX_HANDLE_SZ];
		} h;
		char handle[2 * MAX_HANDLE_SZ + 1], fh[2 * MAX_HANDLE_SZ + 1], extra[1024];
		struct mountline m;
		int mnt_id;

		if (!eq) {
			errno = EINVAL;
			fail("nfs: not ROLE=PATH:", argv[i]);
			rc = 1;
			continue;
		}
		*eq = 0;
		h.fh.handle_bytes = MAX_HANDLE_SZ;
		if (name_to_handle_at(AT_FDCWD, eq + 1, &h.fh, &mnt_id, 0) < 0) {
			fail("nfs: name_to_handle_at", eq + 1);
			rc = 1;
			continue;
		}
		if (!mountinfo_of(mnt_id, &m)) {
			errno = ENOENT;
			fail("nfs: no mountinfo line for the mount of", eq + 1);
			rc = 1;
			continue;
		}
		hex(h.fh.f_handle, h.fh.handle_bytes, handle);
		extra[0] = 0;
		if (strncmp(m.fstype, "nfs", 3) == 0) {
			uint32_t w[3];
			uint16_t fhlen;
			char *colon = strrchr(m.source, ':');

			if (h.fh.handle_bytes < 14) {
				errno = EPROTO;
				fail("nfs: an NFS handle shorter than its header:", eq + 1);
				rc = 1;
				continue;
			}
			memcpy(w, h.fh.f_handle, sizeof(w));
			memcpy(&fhlen, h.fh.f_handle + 12, sizeof(fhlen));
			if (14u + fhlen > h.fh.handle_bytes) {
				errno = EPROTO;
				fail("nfs: an NFS file handle longer than the handle:", eq + 1);
				rc = 1;
				continue;
			}
			hex(h.fh.f_handle + 14, fhlen, fh);
			if (colon)
				*colon = 0;
			snprintf(extra, sizeof(extra), " fileid=%llu itype=0%o fhlen=%u fh=%s server=%s export=%s",
				 ((unsigned long long)w[0] << 32) | w[1], (unsigned)w[2], (unsigned)fhlen, fh,
				 colon ? m.source : "-", colon ? colon + 1 : "-");
			if (colon)
				*colon = ':';
		}
		printf("inodedump-nfs: role=%s path=%s mnt_id=%d fstype=%s source=%s handle_type=0x%x "
		       "handle=%s%s\n", argv[i], eq + 1, mnt_id, m.fstype, m.source,
		       (unsigned)h.fh.handle_type, handle, extra);
		for (j = 0; j < nids && ids[j] != mnt_id; j++)
			;
		if (j == nids && nids < 64)
			ids[nids++] = mnt_id;
	}
	for (j = 0; j < nids; j++) {
		struct mountline m;

		if (mountinfo_of(ids[j], &m))
			printf("inodedump-nfs-mount: mnt_id=%d mountpoint=%s fstype=%s source=%s opts=%s "
			       "superopts=%s\n", ids[j], m.mountpoint, m.fstype, m.source, m.opts,
			       m.superopts);
	}
	fflush(stdout);
	return rc;
}

static int mark(const char *marker)
{
	FILE *f = fopen(marker, "w");

	if (!f) {
		fail("marker", marker);
		return 1;
	}
	fprintf(f, "%ld\n", (long)getpid());
	return fclose(f) == 0 ? 0 : 1;
}

static void forever(void)
{
	for (;;)
		pause();
}

static int cmd_ipc(const char *marker)
{
	int sv[2], pp[2], efd, i;
	struct { const char *role; int fd; } held[5];
	unsigned long ns = ns_of("/proc/self/ns/mnt");
	char comm[64], tail[64];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || pipe(pp) < 0 ||
	    (efd = eventfd(7, 0)) < 0) {
		fail("ipc", "socketpair/pipe/eventfd");
		return 1;
	}
	/* a few bytes in flight: the pipe and the socket hold data */
	if (write(pp[1], "fx", 2) != 2 || write(sv[0], "fx", 2) != 2) {
		fail("ipc", "write");
		return 1;
	}
	held[0].role = "ipc_sock0", held[0].fd = sv[0];
	held[1].role = "ipc_sock1", held[1].fd = sv[1];
	held[2].role = "ipc_pipe_r", held[2].fd = pp[0];
	held[3].role = "ipc_pipe_w", held[3].fd = pp[1];
	held[4].role = "ipc_eventfd", held[4].fd = efd;
	comm_of(getpid(), comm, sizeof(comm));
	for (i = 0; i < 5; i++) {
		struct stat st;

		if (fstat(held[i].fd, &st) < 0) {
			fail("fstat", held[i].role);
			return 1;
		}
		snprintf(tail, sizeof(tail), " holder=%ld:%d", (long)getpid(), held[i].fd);
		print_stat(ns, (long)getpid(), comm, held[i].role, "-", &st, "-", tail);
	}
	fflush(stdout);
	if (mark(marker))
		return 1;
	forever();
	return 0;
}

static int cmd_subvol(const char *dir, const char *name)
{
	struct btrfs_ioctl_vol_args args;
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	if (fd < 0) {
		fail("subvol: open", dir);
		return 1;
	}
	memset(&args, 0, sizeof(args));
	snprintf(args.name, sizeof(args.name), "%s", name);
	if (ioctl(fd, BTRFS_IOC_SUBVOL_CREATE, &args) < 0) {
		fail("subvol: BTRFS_IOC_SUBVOL_CREATE", name);
		return 1;
	}
	close(fd);
	return 0;
}

static int cmd_churn(const char *dir, long n)
{
	char path[4096];
	long i;

	for (i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/churn-%ld", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || write(fd, "c", 1) != 1 || close(fd) < 0) {
			fail("churn: create", path);
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/churn-%ld", dir, i);
		if (unlink(path) < 0) {
			fail("churn: unlink", path);
			return 1;
		}
	}
	printf("fxfs: churn %s %ld\n", dir, n);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "stat") == 0)
		return cmd_stat(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "nfs") == 0)
		return cmd_nfs(argc, argv);
	if (argc == 3 && strcmp(argv[1], "ipc") == 0)
		return cmd_ipc(argv[2]);
	if (argc == 3 && strcmp(argv[1], "hold") == 0) {
		if (mark(argv[2]))
			return 1;
		forever();
	}
	if (argc == 4 && strcmp(argv[1], "subvol") == 0)
		return cmd_subvol(argv[2], argv[3]);
	if (argc == 4 && strcmp(argv[1], "churn") == 0)
		return cmd_churn(argv[2], strtol(argv[3], NULL, 10));
	fprintf(stderr, "usage: fxfs stat PID ROLE=PATH... | nfs ROLE=PATH... | ipc MARKER | hold MARKER | "
		"subvol DIR NAME | churn DIR N\n");
	return 2;
}
