#!/bin/busybox sh
# Guest /init for the inodedump fixtures (busybox ash). Built into the
# initramfs by make-fixtures.sh together with /etc/fixture.conf, which sets
#   FX_SET=stock|patched
#   FX_MODULES="mod1 mod2 ..."      (loaded in order from /modules/<mod>.ko)
#   FX_EXT4=1                        (stock: loop-mount /ext4.img at /mnt/ext4)
#   FX_TRIGGER=1                     (patched: insmod /modules/vfsdbg_trigger.ko)
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

FX_SET=unknown FX_MODULES= FX_EXT4=0 FX_TRIGGER=0
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
