#!/bin/sh
# The end-to-end sets' guest script (recipes/e2e61.sh), installed in the
# booted Debian 12 image as /usr/local/sbin/inodedump-e2e and run by
# inodedump-e2e.service. Nobody logs in: QEMU has no input (a file for the
# console, no monitor, no QMP, no network), so everything after the boot is
# this script and the system's own units.
#
# First boot (no /var/lib/inodedump-e2e/panicked): kdump-tools.service has
# run `kdump-config load` (it built the kdump initrd, this boot, the
# first). Once /sys/kernel/kexec_crash_loaded says 1, make files on tmpfs
# (/dev/shm) and ext4 (the root), print a truth line for each:
#   inodedump-e2e-truth: path=P fs=tmpfs|ext4 addr=0x... ino= mode= nlink= size= uid= gid= dev=M:m
# ino..gid from stat(1) (userspace's view), addr (and a second ino, mode
# and dev) printed by the kernel itself: a kprobe event on
# vfs_getattr_nosec() reading path->dentry->d_inode while stat(1) runs
# (struct offsets of Debian's 6.1: E2E_OFF_* below, checked here: the
# kernel's ino, mode and dev of that address must equal stat's). Then
# sysrq-c: kdump-tools' capture kernel saves /var/crash/STAMP/ and reboots.
#
# Later boots: ordered after inodedump-triage.service (started at boot by
# its own WantedBy=multi-user.target when /var/crash is not empty): print
# what the unit and /var/crash hold, then power the machine off, which
# ends QEMU. The host reads the disk image offline.
set -u
STATE=/var/lib/inodedump-e2e
say() { echo "inodedump-e2e: $*"; }
# struct path.dentry, dentry.d_inode, inode.i_mode, inode.i_sb, inode.i_ino,
# super_block.s_dev on x86-64 6.1 (CONFIG_SECURITY=y)
E2E_OFF_DENTRY=${E2E_OFF_DENTRY:-8} E2E_OFF_D_INODE=${E2E_OFF_D_INODE:-48}
E2E_OFF_I_MODE=0 E2E_OFF_I_SB=40 E2E_OFF_I_INO=64 E2E_OFF_S_DEV=16

later_boot() {
	say "boot $(cat /proc/sys/kernel/random/boot_id) $(uname -r): after inodedump-triage.service"
	systemctl show -p ActiveState -p Result -p ExecMainStatus -p NRestarts \
		inodedump-triage.service | sed 's/^/inodedump-e2e: triage-unit /'
	ls -lR /var/crash | sed 's/^/inodedump-e2e: ls /'
	say "poweroff"
	sync
	systemctl poweroff
}

first_boot() {
	n=0
	while [ "$(cat /sys/kernel/kexec_crash_loaded 2>/dev/null)" != 1 ]; do
		n=$((n + 1))
		if [ "$n" -gt 1800 ]; then
			say "FAILED: kdump not loaded after 1800 s"
			systemctl status kdump-tools.service --no-pager 2>&1 | sed 's/^/inodedump-e2e: /'
			systemctl poweroff
			exit 1
		fi
		sleep 1
	done
	say "kdump loaded: crash_size=$(cat /sys/kernel/kexec_crash_size) $(tr ' ' '|' < /proc/cmdline)"
	kdump-config show 2>&1 | sed 's/^/inodedump-e2e: kdump-config: /'
	ls -l /var/lib/kdump/ 2>&1 | sed 's/^/inodedump-e2e: var-lib-kdump: /'

	T=/sys/kernel/tracing
	[ -d $T/events ] || mount -t tracefs tracefs $T
	in="+$E2E_OFF_D_INODE(+$E2E_OFF_DENTRY(%di))"
	echo "p:inodedump_e2e/getattr vfs_getattr_nosec inode=$in:x64 ino=+$E2E_OFF_I_INO($in):u64 mode=+$E2E_OFF_I_MODE($in):x16 sdev=+$E2E_OFF_S_DEV(+$E2E_OFF_I_SB($in)):u32" \
		>> $T/kprobe_events || say "FAILED: kprobe event"
	echo 1 > $T/events/inodedump_e2e/getattr/enable

	mkdir -p $STATE
	: > $STATE/truth.txt
	for base in /dev/shm/e2e /var/lib/inodedump-e2e/fx; do
		rm -rf $base; mkdir -p $base
		printf 'hello\n' > $base/regular
		: > $base/empty
		head -c 65536 /dev/zero > $base/big
		mkdir $base/dir
		ln -s regular $base/symlink_short
		ln -s "$(printf '/%0141d' 0 | tr 0 l)" $base/symlink_long   # 142 bytes
		ln $base/regular $base/hardlink
		mkfifo $base/fifo
		mknod $base/chardev c 1 3
		chown 1234:2345 $base/empty
		chmod 0600 $base/big
	done
	sync
	for p in /dev/shm/e2e /var/lib/inodedump-e2e/fx; do
		case $p in /dev/shm/*) fs=tmpfs ;; *) fs=ext4 ;; esac
		for f in regular empty big dir symlink_short symlink_long hardlink fifo chardev; do
			echo > $T/trace
			st=$(stat -c '%i %f %h %s %u %g %d' "$p/$f")
			# shellcheck disable=SC2086  # split into its seven fields
			set -- $st
			ino=$1 mode=$((0x$2)) nlink=$3 size=$4 uid=$5 gid=$6 d=$7
			kdev=$(( (((d >> 8) & 0xfff) << 20) | (d & 0xff) | ((d >> 12) & 0xfff00) ))
			ev=$(grep ' inodedump_e2e_getattr\| getattr:' $T/trace | grep " ino=$ino " | grep " sdev=$kdev\$" | tail -1)
			addr=$(echo "$ev" | sed -n 's/.* inode=\(0x[0-9a-f]*\) .*/\1/p')
			kmode=$(echo "$ev" | sed -n 's/.* mode=\(0x[0-9a-f]*\) .*/\1/p')
			if [ -z "$addr" ] || [ $((kmode)) -ne "$mode" ]; then
				say "FAILED: no kernel line for $p/$f (ino=$ino kdev=$kdev mode=$mode kmode=$kmode)"
				grep -v '^#' $T/trace | tail -5 | sed 's/^/inodedump-e2e: trace: /'
				addr=-
			fi
			line=$(printf 'path=%s fs=%s addr=%s ino=%s mode=0%o nlink=%s size=%s uid=%s gid=%s dev=%s:%s' \
				"$p/$f" $fs "$addr" "$ino" "$mode" "$nlink" "$size" "$uid" "$gid" \
				$(( (d >> 8) & 0xfff )) $(( (d & 0xff) | ((d >> 12) & 0xfff00) )))
			echo "$line" >> $STATE/truth.txt
			echo "inodedump-e2e-truth: $line"
		done
	done
	echo 0 > $T/events/inodedump_e2e/getattr/enable
	say "release $(uname -r)"
	# the files stay in memory: tmpfs keeps them, and this process holds
	# the ext4 ones open (the fifo read-write: no open blocks)
	exec 3< /var/lib/inodedump-e2e/fx/regular 4< /var/lib/inodedump-e2e/fx/dir \
		5<> /var/lib/inodedump-e2e/fx/fifo 6< /var/lib/inodedump-e2e/fx/big
	touch $STATE/panicked
	say "panic: echo c > /proc/sysrq-trigger"
	# what this boot logged, on disk before the crash (journald writes
	# lazily: the last lines would be lost), then the page cache
	journalctl --sync
	sync
	echo 1 > /proc/sys/kernel/sysrq
	echo c > /proc/sysrq-trigger
	sleep 600
	say "FAILED: still alive 600 s after sysrq-c"
}

if [ -e $STATE/panicked ]; then later_boot; else first_boot; fi
