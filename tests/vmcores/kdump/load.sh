#!/bin/busybox sh
# Guest /init of the kdump sets, in front of the set's own init
# (/init.next: debugvfs73/init.sh or ../init.sh). It does what kdump-tools'
# `kdump-config load` does at boot on Debian 12: the capture kernel (the
# same kernel image) and the capture initramfs are loaded into the
# crashkernel= region with kexec-tools' `kexec -p`, on the first kernel's
# command line without crashkernel= plus KDUMP_CMDLINE_APPEND. Then the
# set's init runs as it does in the other sets; its panic (sysrq-c, or
# may_open()'s VFS_BUG_ON_INODE with oops=panic) enters the capture kernel.
# /etc/kdump.conf sets KDUMP_KERNEL, KDUMP_INITRD, KDUMP_CMDLINE_APPEND.
# Console lines (the host parses them):
#   inodedump-kdump: reserved=BYTES ...    the crashkernel= region
#   inodedump-kdump: loaded=1 ...          kexec -p succeeded
#   inodedump-kdump: FAILED: ...
/bin/busybox mkdir -p /bin /sbin /proc /sys /dev
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
. /etc/kdump.conf

echo "inodedump-kdump: reserved=$(cat /sys/kernel/kexec_crash_size) iomem=$(grep -i 'crash kernel' /proc/iomem | tr -d ' ' | head -1)"
# kdump-tools: APPEND = /proc/cmdline without crashkernel=, then
# KDUMP_CMDLINE_APPEND; `kexec -p --command-line=APPEND --initrd=INITRD KERNEL`
APPEND="$(sed -e 's/crashkernel=[^ ]*//g' -e 's/  */ /g' -e 's/ $//' /proc/cmdline) $KDUMP_CMDLINE_APPEND"
echo "inodedump-kdump: kexec -p --command-line=\"$APPEND\" --initrd=$KDUMP_INITRD $KDUMP_KERNEL"
if kexec -p --command-line="$APPEND" --initrd="$KDUMP_INITRD" "$KDUMP_KERNEL"; then
	echo "inodedump-kdump: loaded=$(cat /sys/kernel/kexec_crash_loaded) kexec=$(kexec --version 2>&1 | head -1 | tr ' ' '_')"
else
	echo "inodedump-kdump: FAILED: kexec -p exited $?"
fi
# the rootfs copies are not needed once loaded
rm -f "$KDUMP_KERNEL" "$KDUMP_INITRD"
umount /dev 2>/dev/null; umount /sys; umount /proc
exec /init.next
