#!/bin/busybox sh
# shellcheck shell=dash
# Guest /init of the nobtf set: one console line with what the running
# kernel itself says about its BTF, then the debugvfs73 set's init
# (/init.debugvfs73, unchanged: its files, trigger module and truth lines).
#
#   inodedump-nobtf: kallsyms=N stext=N start_btf=N sys_btf=yes|no
# kallsyms: lines of /proc/kallsyms; stext, start_btf: lines naming _stext
# and __start_BTF (the first proves the count works); sys_btf: whether
# /sys/kernel/btf/vmlinux exists (it does on a kernel with BTF).
/bin/busybox mkdir -p /proc /sys
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
n=$(/bin/busybox wc -l < /proc/kallsyms)
stext=$(/bin/busybox grep -c ' _stext$' /proc/kallsyms)
btf=$(/bin/busybox grep -c ' __start_BTF$' /proc/kallsyms)
sys=no
[ -e /sys/kernel/btf/vmlinux ] && sys=yes
echo "inodedump-nobtf: kallsyms=$n stext=$stext start_btf=$btf sys_btf=$sys"
/bin/busybox umount /sys
/bin/busybox umount /proc
exec /init.debugvfs73
