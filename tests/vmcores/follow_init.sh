#!/bin/busybox sh
# Guest /init of the follow73 set (busybox ash), on the debugvfs73 kernel:
# the files and victims of debugvfs73/init.sh (the same roles, tmpfs and
# ext4), then `vmcore-inode --live --follow --jsonl` started in the
# background BEFORE anything fires, and while it follows:
#   1. the log overrun: the follower stopped (SIGSTOP), the log flooded with
#      more than its ring holds (fxtool kmsg-fill), the follower continued;
#   2. the trigger module loaded: real upstream VFS_WARN_ON_INODE reports
#      (warnings only: nothing opens bug_badmode, so nothing panics);
#   3. SIGTERM, and the follower's exit status.
# Its stdout goes through followstamp (a kmsg mark after each line: the
# latency) to ttyS2 (follow.jsonl on the host); its stderr, exit status
# and the kernel's own numbers to the console. Then the timings of the
# one-shot ways to decode one reported inode (vmcore-inode --live ADDR,
# and drgn on /proc/kcore when the initramfs has it); then every inode
# swept live, from a dump of this moment, and by drgn (bench/).
#
# Console lines the host parses (all start with "inodedump-"):
#   inodedump-truth: / inodedump-trigger: done reports=N  (the module)
#   inodedump-follow: ready | mark seq=S | flood first=F | rc=R
#   inodedump-follow-err: LINE          (the follower's stderr)
#   inodedump-follow-mark: usec=T seq=N (a report's line reached a reader)
#   inodedump-follow-nokcore: rc=R / inodedump-follow-nokcore-err: LINE
#   inodedump-time: name=... ms=... rc=...
#   inodedump-drgn: LINE               (drgn's view of the same inode)
#   inodedump-bench: dump now          (the host dumps the guest, then
#                                       writes "dumped SIZE" on ttyS1)
#   inodedump-bench: NAME inodes=N / drgn-sweep LINE / -err: NAME: LINE
#                                      (the sweeps' counts and stderr)
#   inodedump-bench: info LINE         (--live --info: who reads kcore)
#   inodedump-init: ready              (all done; the host quits)
/bin/busybox mkdir -p /bin /sbin /proc /sys /dev /tmp /mnt
/bin/busybox --install -s /bin
export PATH=/bin:/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
echo "inodedump-init: set=follow73 kernel=$(uname -r)"

fail() { echo "inodedump-init: FAILED: $*"; }

# ---- the roles, as debugvfs73/init.sh makes them
LONG=/tmp/fx/long-symlink-target-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-end
VICTIM=/tmp/fx/victim-symlink-target-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-end
FILES="regular empty big dir symlink_short symlink_long hardlink fifo chardev"

make_files() {
	d=$1
	mkdir -p "$d" || fail "mkdir $d"
	printf 'hello\n' > "$d/regular"
	: > "$d/empty"
	yes inodedump-big-file-content-0123456789abcdefghijklmnopqrstuvwxyz | head -c 65536 > "$d/big"
	mkdir "$d/dir"
	ln -s short-target "$d/symlink_short"
	ln -s "$LONG" "$d/symlink_long"
	ln "$d/regular" "$d/hardlink"
	mkfifo "$d/fifo"
	mknod "$d/chardev" c 1 3
}

make_files /tmp/fx
exec 3</tmp/fx/regular 4</tmp/fx/empty 5</tmp/fx/big 6<>/tmp/fx/fifo 7</tmp/fx/chardev
(cd /tmp/fx/dir && exec sleep 2147483647) &
ln -s "$VICTIM" /tmp/fx/victim_symlink
ln -s cached-twice-target /tmp/fx/cached_twice
printf 'never opened here\n' > /tmp/fx/bug_badmode

mkdir -p /mnt/ext4
mount -t ext4 -o loop /ext4.img /mnt/ext4 || fail "mount ext4"
make_files /mnt/ext4/fx
ln -s ext4-fast-target /mnt/ext4/fx/victim_ext4
sync
exec 13</mnt/ext4/fx/regular 14</mnt/ext4/fx/empty 15</mnt/ext4/fx/big 16<>/mnt/ext4/fx/fifo 17</mnt/ext4/fx/chardev
(cd /mnt/ext4/fx/dir && exec sleep 2147483647) &

roles=
for f in $FILES victim_symlink cached_twice bug_badmode; do
	roles="$roles${roles:+,}$f:/tmp/fx/$f"
done
for f in $FILES; do
	roles="$roles,ext4_$f:/mnt/ext4/fx/$f"
done
roles="$roles,victim_ext4:/mnt/ext4/fx/victim_ext4"
sync

wait_quiet() {   # no new record for 2 s (at most 30 s), as ../init.sh
	wq_last=$(dmesg | tail -n 1) wq_quiet=0 wq_n=0
	while [ "$wq_quiet" -lt 8 ] && [ "$wq_n" -lt 120 ]; do
		sleep 0.25
		wq_cur=$(dmesg | tail -n 1)
		if [ "$wq_cur" = "$wq_last" ]; then
			wq_quiet=$((wq_quiet + 1))
		else
			wq_quiet=0 wq_last=$wq_cur
		fi
		wq_n=$((wq_n + 1))
	done
	[ "$wq_quiet" -ge 8 ] || fail "the kernel log did not go quiet"
}
# seq_of TEXT: the sequence number of the last record holding TEXT
seq_of() { fxtool kmsg-dump | grep -F "$1" | tail -n 1 | cut -d, -f2; }

stty -F /dev/ttyS2 raw -echo 2>/dev/null || fail "stty ttyS2"
. /live/env
VI=/live/vmcore-inode
wait_quiet

# ---- bad input: no usable /proc/kcore (this kernel has no users but
# root, CONFIG_MULTIUSER off: /dev/null mounted over it instead)
mount --bind /dev/null /proc/kcore || fail "bind /dev/null over /proc/kcore"
$VI -k /live/vmlinux --live --follow > /tmp/nokcore.out 2> /tmp/nokcore.err
echo "inodedump-follow-nokcore: rc=$? out=$(wc -c < /tmp/nokcore.out)"
sed 's/^/inodedump-follow-nokcore-err: /' /tmp/nokcore.err
umount /proc/kcore || fail "umount /proc/kcore"

# ---- follow
mkfifo /tmp/follow.fifo
followstamp tee /dev/ttyS2 < /tmp/follow.fifo &
TPID=$!
INODEDUMP_FOLLOW_TIMES=1 $VI -k /live/vmlinux --live --follow --jsonl > /tmp/follow.fifo 2> /tmp/follow.err &
FPID=$!
n=0
while ! grep -q 'following the kernel log' /tmp/follow.err; do
	n=$((n + 1))
	[ "$n" -lt 1200 ] || { fail "the follower never said it was following"; break; }
	kill -0 "$FPID" 2>/dev/null || { fail "the follower exited before it was ready"; break; }
	sleep 0.1
done
echo "inodedump-follow: ready pid=$FPID"

# 1. the overrun: the follower reads the mark, then stops; the flood
# overwrites the ring (2^17 bytes) about three times over.
echo "<6>inodedump-follow: mark before the flood" > /dev/kmsg
sleep 1
echo "inodedump-follow: mark seq=$(seq_of 'inodedump-follow: mark before the flood')"
kill -STOP "$FPID"
fxtool kmsg-fill 2048 > /dev/null || fail "fxtool kmsg-fill"
echo "inodedump-follow: flood first=$(fxtool kmsg-dump | head -n 1 | cut -d, -f2)"
kill -CONT "$FPID"
sleep 1

# 2. the reports, while it follows
insmod /modules/vfsdbg73_trigger.ko "roles=$roles" || fail "insmod vfsdbg73_trigger"
wait_quiet

# 3. the end
kill -TERM "$FPID"
wait "$FPID"
echo "inodedump-follow: rc=$?"
wait "$TPID"
sed 's/^/inodedump-follow-err: /' /tmp/follow.err
# followstamp's marks (level 7: not on the console), with the kernel's times
fxtool kmsg-dump | sed -n 's/^[0-9]*,[0-9]*,\([0-9]*\),[^;]*;inodedump-follow-out \(seq=[0-9]*\)$/inodedump-follow-mark: usec=\1 \2/p'

# ---- one reported inode decoded the one-shot ways, for the benchmark
ADDR=$(dmesg | sed -n 's/.*inodedump-truth: addr=\([0-9a-f]*\) .* role=victim_symlink .*/\1/p')
[ -n "$ADDR" ] || fail "no victim_symlink truth line"
for i in 1 2 3; do
	followstamp time "vmcore-inode-live-$i" $VI -k /live/vmlinux --live --json "$ADDR"
done
# the session alone (types, symbols, KASLR checked): what --follow opens once
followstamp time "vmcore-inode-live-info" $VI -k /live/vmlinux --live --info
if [ -x /drgn/run ]; then
	/drgn/run "$ADDR" 2>&1 | sed 's/^/inodedump-drgn: /'
	for i in 1 2 3; do
		followstamp time "drgn-kcore-$i" /drgn/run "$ADDR"
	done
fi

# ---- every inode three ways, for the benchmark (bench/kcore_bench.py):
# `--live --sweep` (our /proc/kcore reader); the sweep of a dump of this
# guest taken now (QEMU's kdump-zlib: the host dumps on our word, the VM
# stopped, and hands it in on /dev/vda with its size on ttyS1); drgn's
# s_inodes walk on /proc/kcore. Each one's inode count to the console.
sweep_inodes() { sed -n 's/^{"summary": *{"inodes": *\([0-9]*\),.*/\1/p' "$1"; }
sync
wait_quiet
stty -F /dev/ttyS1 raw -echo 2>/dev/null || fail "stty ttyS1"
echo "inodedump-bench: dump now"
read -r cmd size < /dev/ttyS1
if [ "$cmd" = dumped ] && [ -b /dev/vda ]; then
	head -c "$size" /dev/vda > /tmp/bench.vmcore
	echo "inodedump-bench: dump bytes=$(wc -c < /tmp/bench.vmcore)"
	followstamp time "live-sweep" /bin/sh -c \
		"$VI -k /live/vmlinux --live --sweep --jsonl > /tmp/live-sweep.jsonl 2> /tmp/live-sweep.err"
	echo "inodedump-bench: live-sweep inodes=$(sweep_inodes /tmp/live-sweep.jsonl)"
	sed 's/^/inodedump-bench-err: live-sweep: /' /tmp/live-sweep.err
	followstamp time "dump-sweep" /bin/sh -c \
		"$VI -k /live/vmlinux --sweep --jsonl /tmp/bench.vmcore > /tmp/dump-sweep.jsonl 2> /tmp/dump-sweep.err"
	echo "inodedump-bench: dump-sweep inodes=$(sweep_inodes /tmp/dump-sweep.jsonl)"
	sed 's/^/inodedump-bench-err: dump-sweep: /' /tmp/dump-sweep.err
	rm -f /tmp/bench.vmcore /tmp/dump-sweep.jsonl
	# who read /proc/kcore and translated its addresses
	$VI -k /live/vmlinux --live --info 2>&1 | grep -E '^(format|read by|translated by|problem)' |
		sed 's/^/inodedump-bench: info /'
	if [ -x /drgn/run-sweep ]; then
		followstamp time "drgn-sweep" /bin/sh -c "/drgn/run-sweep > /tmp/drgn-sweep.txt 2>&1"
		sed 's/^/inodedump-bench: drgn-sweep /' /tmp/drgn-sweep.txt
	fi
else
	fail "no dump from the host for the sweep benchmark ($cmd)"
fi

echo "inodedump-init: ready"
exec sleep 2147483647
