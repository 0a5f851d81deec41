#!/bin/busybox sh
# Guest /init of the debugvfs73 set (busybox ash): the files of the other
# sets' init (../init.sh) on tmpfs and ext4, the victims the trigger module
# needs, the module, and at the host's word the open that panics.
#
# Console lines the host parses (all start with "inodedump-"):
#   inodedump-stat: path=... ino=... rawmode=... (as ../init.sh)
#   inodedump-truth: ... / inodedump-trigger: done reports=N (the module)
#   inodedump-init: ready            -> host may look (no dump is taken yet)
# then init waits for a line on /dev/ttyS1 (host: "panic"), prints
# "inodedump-init: opening bug_badmode" and opens that file: may_open()'s
# VFS_BUG_ON_INODE oopses, oops=panic panics the guest.
/bin/busybox mkdir -p /bin /sbin /proc /sys /dev /tmp /mnt
/bin/busybox --install -s /bin
export PATH=/bin:/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
echo "inodedump-init: set=debugvfs73 kernel=$(uname -r)"

fail() { echo "inodedump-init: FAILED: $*"; }

# A long (>128 chars: tmpfs keeps it in a page, not inline) target, no spaces.
LONG=/tmp/fx/long-symlink-target-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-end
VICTIM=/tmp/fx/victim-symlink-target-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-end
FILES="regular empty big dir symlink_short symlink_long hardlink fifo chardev"

# make_files DIR: the same kinds of files in DIR (tmpfs or ext4)
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

print_stat() {
	for f in "$@"; do
		[ -e "$f" ] || [ -L "$f" ] || { fail "missing $f"; continue; }
		stat -c "inodedump-stat: path=%n ino=%i rawmode=%f nlink=%h size=%s uid=%u gid=%g rdev=%t:%T" "$f"
	done
}

make_files /tmp/fx
exec 3</tmp/fx/regular 4</tmp/fx/empty 5</tmp/fx/big 6<>/tmp/fx/fifo 7</tmp/fx/chardev
(cd /tmp/fx/dir && exec sleep 2147483647) &
# The victims: a long tmpfs symlink (target not cached), a short one (cached
# by shmem_symlink()), the regular file whose type the module clears.
ln -s "$VICTIM" /tmp/fx/victim_symlink
ln -s cached-twice-target /tmp/fx/cached_twice
printf 'opened only to panic\n' > /tmp/fx/bug_badmode
for f in $FILES victim_symlink cached_twice bug_badmode; do print_stat "/tmp/fx/$f"; done

mkdir -p /mnt/ext4
mount -t ext4 -o loop /ext4.img /mnt/ext4 || fail "mount ext4"
make_files /mnt/ext4/fx
# An ext4 fast symlink (target in i_data, cached by ext4_iget()/ext4_symlink()).
ln -s ext4-fast-target /mnt/ext4/fx/victim_ext4
sync
exec 13</mnt/ext4/fx/regular 14</mnt/ext4/fx/empty 15</mnt/ext4/fx/big 16<>/mnt/ext4/fx/fifo 17</mnt/ext4/fx/chardev
(cd /mnt/ext4/fx/dir && exec sleep 2147483647) &
for f in $FILES victim_ext4; do print_stat "/mnt/ext4/fx/$f"; done

roles=
for f in $FILES victim_symlink cached_twice bug_badmode; do
	roles="$roles${roles:+,}$f:/tmp/fx/$f"
done
for f in $FILES; do
	roles="$roles,ext4_$f:/mnt/ext4/fx/$f"
done
roles="$roles,victim_ext4:/mnt/ext4/fx/victim_ext4"
# Write everything back first: the truth lines print i_state, and an inode
# cleaned between them and the dumps (I_DIRTY_SYNC) would disagree.
sync
insmod /modules/vfsdbg73_trigger.ko "roles=$roles" || fail "insmod vfsdbg73_trigger"

# Wait until the kernel log has had no new record for 2 s (at most 30 s),
# as ../init.sh does.
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

echo "inodedump-init: ready"

stty -F /dev/ttyS1 raw -echo 2>/dev/null
while read -r cmd < /dev/ttyS1; do
	case "$cmd" in
	*panic*)
		echo "inodedump-init: opening bug_badmode"
		# a process of its own: may_open()'s BUG oopses it, oops=panic
		(exec cat /tmp/fx/bug_badmode)
		fail "opening bug_badmode did not panic"
		;;
	esac
done
fail "ttyS1 closed"
exec sleep 2147483647
