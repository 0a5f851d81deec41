// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fxtool - small guest-side helpers for the inodedump fixture sets that
 * busybox cannot do (built static by make-fixtures.sh, put in the
 * initramfs as /bin/fxtool).
 *
 *   fxtool kmsg-fill N
 *       Write N records to /dev/kmsg (level 7, so the console stays quiet),
 *       one write(2) per record, lengths varying from 1 to 900 bytes, a few
 *       with tabs, a backslash, bytes >= 0x80 and control bytes, and some
 *       empty records. Needs printk.devkmsg=on (else /dev/kmsg writes are
 *       rate limited to 10 per 5 s). Prints a summary line.
 *
 *   fxtool kmsg-dump
 *       The kernel's own view of its log: every record /dev/kmsg still has,
 *       exactly as the kernel formats it ("PRI,SEQ,TS_USEC,FLAGS;TEXT" with
 *       non-printable bytes escaped as \xNN, then " KEY=VALUE" lines),
 *       read with O_NONBLOCK until EAGAIN. A record overwritten while
 *       reading (EPIPE) is noted as "inodedump-kmsg: lost" and reading goes
 *       on. Ends with "inodedump-kmsg-end records=N lost=N".
 *
 *   fxtool kmsg-position HEAD_OFF SIZE_BITS_OFF BACK
 *       Write level-7 records to /dev/kmsg until the data ring's head is
 *       exactly BACK bytes before the end of the data array, so that the
 *       next records the kernel prints land on the wrap point. The head is
 *       read after every record from /proc/kcore: `prb` from /proc/kallsyms,
 *       HEAD_OFF and SIZE_BITS_OFF are offsetof(struct printk_ringbuffer,
 *       text_data_ring.head_lpos / .size_bits) (the host takes them from
 *       vmlinux's DWARF). A record of n text bytes written as "TEXT\n"
 *       takes a block of ALIGN(n + 2 + 8, 8) bytes (printk reserves the
 *       formatted line, newline and NUL included, behind the 8-byte id).
 *
 *   fxtool runas UID GID PROGRAM [ARG...]
 *       setgroups(0), setgid(GID), setuid(UID), check that uid and euid
 *       are UID, then exec PROGRAM. Exits 126 (and says why) if the switch
 *       fails, e.g. ENOSYS on a kernel without CONFIG_MULTIUSER.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Deterministic: record i always has the same text. */
static size_t fill_text(char *buf, size_t cap, unsigned i, unsigned n)
{
	static const char alnum[] =
		"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	size_t len, want;

	if (i % 211 == 7)	/* an empty record: EMPTY_LINE_LPOS, no data block */
		return (size_t)snprintf(buf, cap, "<7>\n");
	len = (size_t)snprintf(buf, cap, "<7>inodedump-fill: %u/%u", i, n);
	if (i % 97 == 3) {	/* bytes /dev/kmsg escapes, and a backslash */
		len += (size_t)snprintf(buf + len, cap - len,
					" tab[\t] bs[\\] ctl[\x01\x1b] utf8[\xc3\xa9\xe2\x82\xac] del[\x7f]");
	}
	/* 1..900 bytes of payload: short, medium and near-maximum records. */
	if (i % 53 == 11)
		want = 900;
	else
		want = 1 + (i * 37u) % 300;
	if (want > cap - len - 2)
		want = cap - len - 2;
	buf[len++] = ' ';
	for (size_t k = 1; k < want; k++)
		buf[len++] = alnum[(i + k) % (sizeof(alnum) - 1)];
	buf[len++] = '\n';
	buf[len] = '\0';
	return len;
}

static int kmsg_fill(unsigned n)
{
	char buf[1024];
	unsigned long bytes = 0;
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		perror("fxtool: open /dev/kmsg");
		return 1;
	}
	for (unsigned i = 0; i < n; i++) {
		size_t len = fill_text(buf, sizeof(buf), i, n);

		if (write_all(fd, buf, len)) {
			fprintf(stderr, "fxtool: write record %u to /dev/kmsg: %s\n",
				i, strerror(errno));
			close(fd);
			return 1;
		}
		bytes += len;
	}
	close(fd);
	printf("inodedump-fill: wrote records=%u bytes=%lu\n", n, bytes);
	return 0;
}

static int kmsg_dump(void)
{
	static char buf[16384];
	unsigned long records = 0, lost = 0;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char tail[96];

	if (fd < 0) {
		perror("fxtool: open /dev/kmsg");
		return 1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE) {	/* overwritten while we read */
				lost++;
				if (write_all(1, "inodedump-kmsg: lost\n", 21))
					return 1;
				continue;
			}
			if (errno == EAGAIN)
				break;
			perror("fxtool: read /dev/kmsg");
			return 1;
		}
		if (n == 0)
			break;
		if (write_all(1, buf, (size_t)n))
			return 1;
		records++;
	}
	close(fd);
	snprintf(tail, sizeof(tail), "inodedump-kmsg-end records=%lu lost=%lu\n",
		 records, lost);
	if (write_all(1, tail, strlen(tail)))
		return 1;
	if (isatty(1))
		tcdrain(1);	/* every byte on the wire before we return */
	return 0;
}

/* Kernel memory through /proc/kcore's program headers. */
static int kcore_read(int fd, uint64_t addr, void *buf, size_t len)
{
	Elf64_Ehdr eh;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return -1;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
		    addr + len > ph.p_vaddr + ph.p_filesz)
			continue;
		return pread(fd, buf, len, (off_t)(ph.p_offset + addr - ph.p_vaddr)) ==
		       (ssize_t)len ? 0 : -1;
	}
	return -1;
}

static uint64_t kallsyms_lookup(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], sym[256], type;
	unsigned long long addr;
	uint64_t found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name)) {
			found = addr;
			break;
		}
	fclose(f);
	return found;
}

static int kmsg_position(uint64_t head_off, uint64_t size_bits_off, uint64_t back)
{
	uint64_t prb_sym = kallsyms_lookup("prb"), prb = 0, head = 0, size, target;
	uint32_t size_bits = 0;
	int kcore = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	int kmsg = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	unsigned records = 0;
	char buf[600];

	if (!prb_sym || kcore < 0 || kmsg < 0 ||
	    kcore_read(kcore, prb_sym, &prb, sizeof(prb)) ||
	    kcore_read(kcore, prb + size_bits_off, &size_bits, sizeof(size_bits)) ||
	    size_bits < 10 || size_bits > 30) {
		fprintf(stderr, "fxtool: cannot read the printk ring (prb %#llx -> %#llx, size_bits %u): %s\n",
			(unsigned long long)prb_sym, (unsigned long long)prb,
			size_bits, strerror(errno));
		return 1;
	}
	size = UINT64_C(1) << size_bits;
	target = size - back;
	for (;;) {
		uint64_t off, dist, b;
		size_t n;

		if (kcore_read(kcore, prb + head_off, &head, sizeof(head))) {
			perror("fxtool: read head_lpos");
			return 1;
		}
		off = head & (size - 1);
		if (off == target)
			break;
		if (records > 100000) {
			fprintf(stderr, "fxtool: head at %#llx, target %#llx: giving up\n",
				(unsigned long long)off, (unsigned long long)target);
			return 1;
		}
		dist = (target - off) & (size - 1);
		/* a block of b bytes, leaving 0 or >= 16 (the smallest block) */
		b = dist < 512 ? dist : 512;
		if (dist - b && dist - b < 16)
			b = dist - 16 < 16 ? 16 : dist - 16;
		n = (size_t)(b - 10);
		memcpy(buf, "<7>", 3);
		memset(buf + 3, 'p', n);
		memcpy(buf + 3, "inodedump-position:", n < 19 ? n : 19);
		buf[3 + n] = '\n';
		if (write_all(kmsg, buf, 3 + n + 1)) {
			perror("fxtool: write /dev/kmsg");
			return 1;
		}
		records++;
	}
	close(kmsg);
	close(kcore);
	printf("inodedump-position: head_lpos=%#llx ring=%llu back=%llu records=%u\n",
	       (unsigned long long)head, (unsigned long long)size,
	       (unsigned long long)back, records);
	return 0;
}

static int runas(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 5) {
		fprintf(stderr, "usage: fxtool runas UID GID PROGRAM [ARG...]\n");
		return 2;
	}
	uid = (uid_t)strtoul(argv[2], NULL, 10);
	gid = (gid_t)strtoul(argv[3], NULL, 10);
	if (setgroups(0, NULL) && errno != ENOSYS) {
		fprintf(stderr, "fxtool: setgroups: %s\n", strerror(errno));
		return 126;
	}
	if (setgid(gid) || setuid(uid)) {
		fprintf(stderr, "fxtool: cannot switch to uid %u gid %u: %s\n",
			(unsigned)uid, (unsigned)gid, strerror(errno));
		return 126;
	}
	if (getuid() != uid || geteuid() != uid || getegid() != gid) {
		fprintf(stderr, "fxtool: still uid %u euid %u egid %u\n",
			(unsigned)getuid(), (unsigned)geteuid(),
			(unsigned)getegid());
		return 126;
	}
	execv(argv[4], argv + 4);
	fprintf(stderr, "fxtool: exec %s: %s\n", argv[4], strerror(errno));
	return 127;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "kmsg-fill"))
		return kmsg_fill((unsigned)strtoul(argv[2], NULL, 10));
	if (argc == 2 && !strcmp(argv[1], "kmsg-dump"))
		return kmsg_dump();
	if (argc == 5 && !strcmp(argv[1], "kmsg-position"))
		return kmsg_position(strtoull(argv[2], NULL, 0),
				     strtoull(argv[3], NULL, 0),
				     strtoull(argv[4], NULL, 0));
	if (argc >= 2 && !strcmp(argv[1], "runas"))
		return runas(argc, argv);
	fprintf(stderr, "usage: fxtool kmsg-fill N | kmsg-dump | "
		"kmsg-position HEAD_OFF SIZE_BITS_OFF BACK | runas UID GID PROGRAM [ARG...]\n");
	return 2;
}
