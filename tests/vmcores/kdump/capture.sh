#!/bin/busybox sh
# /init of the kdump sets' capture initramfs: what the capture kernel runs
# after the panic (kexec -p loaded it: ./load.sh). It saves /proc/vmcore to
# the virtio disk as the distributions' kdump scripts do, each in its own
# directory under /var/crash with the names those scripts give:
#   Debian 12 kdump-tools (`kdump-config savecore`):
#     STAMP=$(date +%Y%m%d%H%M); makedumpfile $MAKEDUMP_ARGS /proc/vmcore
#     /var/crash/STAMP/dump-incomplete, renamed dump.STAMP; then
#     makedumpfile --dump-dmesg /proc/vmcore /var/crash/STAMP/dmesg.STAMP
#   RHEL kdump (dracut's kdump.sh, a local path):
#     /var/crash/127.0.0.1-$(date +%Y-%m-%d-%T)/: vmcore-dmesg /proc/vmcore
#     > vmcore-dmesg-incomplete.txt, renamed vmcore-dmesg.txt; then
#     $core_collector /proc/vmcore vmcore-incomplete, renamed vmcore
# once for each line of /etc/capture.conf's CAPTURES ("LAYOUT ARGS...",
# the makedumpfile arguments with _ for spaces). Two kdump-tools captures
# cannot share a minute (the stamp is the directory): the next one waits
# for the minute to change.
# Console lines (the host parses them):
#   inodedump-kdump: capture kernel ...
#   inodedump-kdump: wrote layout=L args=A dump=PATH dmesg=PATH dump_s=S dmesg_s=S
#   inodedump-kdump: done captures=N          (then the host quits QEMU)
#   inodedump-kdump: FAILED: ...
/bin/busybox mkdir -p /bin /sbin /proc /sys /dev /tmp /mnt
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
CAPTURE_MODULES='' CAPTURES=''
. /etc/capture.conf

say() { echo "inodedump-kdump: $*"; }
fail() { say "FAILED: $*"; }
# never exit: the capture kernel would panic ("Attempted to kill init")
off() { sync; umount /mnt 2>/dev/null; exec sleep 2147483647; }

say "capture kernel $(uname -r) cmdline=$(tr ' ' '|' < /proc/cmdline)"
[ -e /proc/vmcore ] || { fail "no /proc/vmcore"; off; }
say "vmcore bytes=$(stat -c %s /proc/vmcore)"
for m in $CAPTURE_MODULES; do
	insmod "/modules/$m.ko" || fail "insmod $m"
done
n=0
while [ ! -b /dev/vda ] && [ "$n" -lt 240 ]; do sleep 0.25; n=$((n + 1)); done
[ -b /dev/vda ] || { fail "no /dev/vda"; off; }
mount -t ext4 /dev/vda /mnt || { fail "mount /dev/vda"; off; }
mkdir -p /mnt/var/crash

secs() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(secs)" 'BEGIN { printf "%.1f", b - a }'; }
last_stamp=
n=0
echo "$CAPTURES" | tr ';' '\n' > /tmp/captures
while read -r layout args; do
	[ -n "$layout" ] || continue
	args=$(echo "$args" | tr '_' ' ')
	case $layout in
	kdump-tools)
		while stamp=$(date +%Y%m%d%H%M); [ "$stamp" = "$last_stamp" ]; do sleep 1; done
		last_stamp=$stamp
		dir=/var/crash/$stamp
		mkdir -p "/mnt$dir"
		t0=$(secs)
		# shellcheck disable=SC2086
		makedumpfile $args /proc/vmcore "/mnt$dir/dump-incomplete" || fail "makedumpfile $args"
		mv "/mnt$dir/dump-incomplete" "/mnt$dir/dump.$stamp"
		dump_s=$(since "$t0") t0=$(secs)
		makedumpfile --dump-dmesg /proc/vmcore "/mnt$dir/dmesg.$stamp" || fail "makedumpfile --dump-dmesg"
		dmesg_s=$(since "$t0")
		dump=$dir/dump.$stamp dmesg=$dir/dmesg.$stamp ;;
	rhel)
		while d=$(date +%Y-%m-%d-%T); [ -e "/mnt/var/crash/127.0.0.1-$d" ]; do sleep 1; done
		dir=/var/crash/127.0.0.1-$d
		mkdir -p "/mnt$dir"
		t0=$(secs)
		vmcore-dmesg /proc/vmcore > "/mnt$dir/vmcore-dmesg-incomplete.txt" || fail "vmcore-dmesg"
		mv "/mnt$dir/vmcore-dmesg-incomplete.txt" "/mnt$dir/vmcore-dmesg.txt"
		dmesg_s=$(since "$t0") t0=$(secs)
		# shellcheck disable=SC2086
		makedumpfile $args /proc/vmcore "/mnt$dir/vmcore-incomplete" || fail "makedumpfile $args"
		mv "/mnt$dir/vmcore-incomplete" "/mnt$dir/vmcore"
		dump_s=$(since "$t0")
		dump=$dir/vmcore dmesg=$dir/vmcore-dmesg.txt ;;
	*) fail "unknown layout $layout"; continue ;;
	esac
	sync
	say "wrote layout=$layout args=$(echo "$args" | tr ' ' '_') dump=$dump dmesg=$dmesg dump_s=$dump_s dmesg_s=$dmesg_s"
	n=$((n + 1))
done < /tmp/captures
ls -lR /mnt/var/crash
umount /mnt || fail "umount /mnt"
say "done captures=$n"
exec sleep 2147483647
