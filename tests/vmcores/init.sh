#!/bin/busybox sh
# Guest /init for the inodedump fixtures (busybox ash). Built into the
# initramfs by make-fixtures.sh together with /etc/fixture.conf, which sets
#   FX_SET=stock|patched
#   FX_MODULES="mod1 mod2 ..."      (loaded in order from /modules/<mod>.ko)
#   FX_EXT4=1                        (stock: loop-mount /ext4.img at /mnt/ext4)
#   FX_TRIGGER=1                     (patched: insmod /modules/vfsdbg_trigger.ko)
#   FX_CHURN=N                       (old510: create then delete N files on tmpfs
#                                     and, with FX_EXT4, on ext4, so the inode
#                                     caches hold free objects; default 0: none)
# and, for the wrapped and live sets only (unset: nothing changes):
#   FX_FILL=N                        (wrapped, live: before the trigger,
#                                     /bin/fxtool kmsg-fill N wraps the printk ring)
#   FX_POSITION="HEAD_OFF SB_OFF BACK" (wrapped, live: then fxtool kmsg-position puts
#                                     the ring's head BACK bytes before its end,
#                                     so the first report's record wraps it)
#   FX_KMSG_DUMP=1                   (wrapped: after the trigger, the kernel's
#                                     own /dev/kmsg view of its log -> ttyS2)
#   FX_LIVE=1                        (live: after the trigger, run /live/vmcore-inode
#                                     --live, framed output -> ttyS2)
# Console lines the host parses (all start with "inodedump-"):
#   inodedump-stat: path=... ino=... rawmode=... nlink=... size=... uid=... gid=... rdev=MAJ:MIN
#   inodedump-init: ready            -> host takes the live dumps
# then init waits for a line on /dev/ttyS1 (host: "panic") and panics.
/bin/busybox mkdir -p /bin /sbin /proc /sys /dev /tmp /mnt
/bin/busybox --install -s /bin
export PATH=/bin:/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp

FX_SET=unknown FX_MODULES= FX_EXT4=0 FX_TRIGGER=0 FX_CHURN=0 FX_FILL=0 FX_POSITION= FX_KMSG_DUMP=0 FX_LIVE=0
. /etc/fixture.conf
echo "inodedump-init: set=$FX_SET kernel=$(uname -r)"

fail() { echo "inodedump-init: FAILED: $*"; }

for m in $FX_MODULES; do
	insmod "/modules/$m.ko" || fail "insmod $m"
done

# A long (>128 chars: tmpfs keeps it in a page, not inline) target, no spaces.
LONG=/tmp/fx/long-symlink-target-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-end
VICTIM=/tmp/fx/victim-symlink-target-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-end

# make_files DIR: the same kinds of files in DIR (tmpfs or ext4)
make_files() {
	d=$1
	mkdir -p "$d" || fail "mkdir $d"
	printf 'hello\n' > "$d/regular"
	: > "$d/empty"
	# 64 KiB of non-zero bytes
	yes inodedump-big-file-content-0123456789abcdefghijklmnopqrstuvwxyz | head -c 65536 > "$d/big"
	mkdir "$d/dir"
	ln -s short-target "$d/symlink_short"
	ln -s "$LONG" "$d/symlink_long"
	ln "$d/regular" "$d/hardlink"
	mkfifo "$d/fifo"
	mknod "$d/chardev" c 1 3
}

print_stat() {
	for f in "$@"; do
		[ -e "$f" ] || [ -L "$f" ] || { fail "missing $f"; continue; }
		stat -c "inodedump-stat: path=%n ino=%i rawmode=%f nlink=%h size=%s uid=%u gid=%g rdev=%t:%T" "$f"
	done
}

FILES="regular empty big dir symlink_short symlink_long hardlink fifo chardev"

make_files /tmp/fx
# Pin: the shell keeps fds open, a sleeper keeps the dir as its cwd.
exec 3</tmp/fx/regular 4</tmp/fx/empty 5</tmp/fx/big 6<>/tmp/fx/fifo 7</tmp/fx/chardev
# An unlinked file kept open on fd 9: nlink 0, an unhashed dentry, shown
# as "/tmp/fx/unlinked (deleted)" in /proc/PID/fd (tests/test_unlinked.py).
echo gone >/tmp/fx/unlinked && exec 9</tmp/fx/unlinked && rm /tmp/fx/unlinked
(cd /tmp/fx/dir && exec sleep 2147483647) &
for f in $FILES; do print_stat "/tmp/fx/$f"; done

if [ "$FX_EXT4" = 1 ]; then
	mkdir -p /mnt/ext4
	mount -t ext4 -o loop /ext4.img /mnt/ext4 || fail "mount ext4"
	make_files /mnt/ext4/fx
	sync
	exec 13</mnt/ext4/fx/regular 14</mnt/ext4/fx/empty 15</mnt/ext4/fx/big 16<>/mnt/ext4/fx/fifo 17</mnt/ext4/fx/chardev
	(cd /mnt/ext4/fx/dir && exec sleep 2147483647) &
	for f in $FILES; do print_stat "/mnt/ext4/fx/$f"; done
fi

# churn DIR: FX_CHURN files made in DIR, then all removed (their inodes
# evicted: free objects in the filesystem's inode cache)
churn() {
	mkdir -p "$1" || fail "mkdir $1"
	i=0
	while [ "$i" -lt "$FX_CHURN" ]; do
		echo "$i" > "$1/f$i" || { fail "churn $1/f$i"; break; }
		i=$((i + 1))
	done
	rm -rf "$1" || fail "rm -rf $1"
	echo "inodedump-init: churn $FX_CHURN files in $1"
}
if [ "$FX_CHURN" -gt 0 ]; then
	churn /tmp/churn
	[ "$FX_EXT4" != 1 ] || churn /mnt/ext4/churn
	sync
fi

# Wait until the kernel log has had no new record for 2 s (at most 30 s).
# Boot prints some lines asynchronously: the PS/2 mouse probe's "input:
# ImExPS/2 Generic Explorer Mouse" comes ~0.5 s after /init starts, i.e.
# around the time the host takes the first dump. Landing between two dumps
# (or between the guest's own log view and the dumps) it makes their logs
# differ; landing between kmsg-position and the trigger it moves the wrap.
wait_quiet() {
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

if [ "$FX_FILL" -gt 0 ]; then
	wait_quiet
	# Wrap the printk ring several times before the reports (wrapped, live).
	fxtool kmsg-fill "$FX_FILL" || fail "fxtool kmsg-fill $FX_FILL"
fi
if [ -n "$FX_POSITION" ]; then
	# shellcheck disable=SC2086
	fxtool kmsg-position $FX_POSITION || fail "fxtool kmsg-position $FX_POSITION"
fi

if [ "$FX_TRIGGER" = 1 ]; then
	ln -s "$VICTIM" /tmp/fx/victim_symlink
	print_stat /tmp/fx/victim_symlink
	roles=
	for f in $FILES victim_symlink; do
		roles="$roles${roles:+,}$f:/tmp/fx/$f"
	done
	insmod /modules/vfsdbg_trigger.ko "roles=$roles" || fail "insmod vfsdbg_trigger"
fi

sync
wait_quiet

# The guest's output port: ttyS2, raw, a file on the host (wrapped, live).
out_port() {
	stty -F /dev/ttyS2 raw -echo 2>/dev/null || fail "stty ttyS2"
}

if [ "$FX_KMSG_DUMP" = 1 ]; then
	out_port
	fxtool kmsg-dump > /dev/ttyS2 || fail "fxtool kmsg-dump"
	echo "inodedump-init: kmsg dumped"
fi

# live_run NAME CMD...: CMD's stdout and stderr, exit code and time on ttyS2.
live_run() {
	name=$1; shift
	echo "inodedump-live: run $name"
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" > /tmp/live.out 2> /tmp/live.err
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	{
		echo "inodedump-live-begin name=$name"
		cat /tmp/live.out; echo
		echo "inodedump-live-stderr name=$name"
		cat /tmp/live.err; echo
		echo "inodedump-live-end name=$name rc=$rc seconds=$secs"
	} > /dev/ttyS2
	echo "inodedump-live: $name rc=$rc seconds=$secs"
}

if [ "$FX_LIVE" = 1 ]; then
	out_port
	. /live/env
	VI=/live/vmcore-inode
	ADDRS=$(dmesg | sed -n 's/.*inodedump-truth: addr=\([0-9a-f]*\) .*/\1/p')
	VADDR=$(dmesg | sed -n 's/.*inodedump-truth: addr=\([0-9a-f]*\) .* role=victim_symlink .*/\1/p')
	[ -n "$ADDRS" ] && [ -n "$VADDR" ] || fail "no truth addresses in dmesg"
	echo "inodedump-live: addrs $(echo $ADDRS) victim $VADDR"
	live_run id id
	live_run addrs $VI -k /live/vmlinux --live --json $ADDRS
	for a in $ADDRS; do
		live_run "addr-$a" $VI -k /live/vmlinux --live --json "$a"
	done
	live_run reports $VI -k /live/vmlinux --live --json
	live_run kmsg-before fxtool kmsg-dump
	live_run log $VI -k /live/vmlinux --live --log
	live_run kmsg-after fxtool kmsg-dump
	echo "inodedump-live: done" > /dev/ttyS2
	echo "inodedump-live: done"
fi

echo "inodedump-init: ready"

# Wait for the host's word on the second serial port, then crash.
stty -F /dev/ttyS1 raw -echo 2>/dev/null
while read -r cmd < /dev/ttyS1; do
	case "$cmd" in
	*panic*)
		echo "inodedump-init: panicking"
		echo c > /proc/sysrq-trigger
		;;
	esac
done
fail "ttyS1 closed"
exec sleep 2147483647
