# shellcheck shell=bash disable=SC2034  # the library reads these variables
# s390x-live: `vmcore-inode --live` (the big-endian /proc/kcore, the
# running kernel's own BTF and kallsyms: no vmlinux in the guest) inside
# the s390x-7 set's guest (Debian's 7.x s390x kernel, tmpfs files only).
# The binary is this tree's vmcore-inode cross-built for s390x (Debian
# 12's gcc-s390x-linux-gnu, a sysroot of bookworm's s390x -dev packages:
# fx/cross.sh, as arm64-live's); it and its libraries go into the
# initramfs. At the ready marker the host dumps the guest
# (elf-nopaging.vmcore; elf-vmcoreinfo.vmcore with the note the guest
# placed), drgn 0.3.0 reads the truth and every superblock's inode count
# from it, and the host sends the truth's addresses on the control port
# (hvc0): the guest runs `--live --info` (our reader of its big-endian
# /proc/kcore, not libkdumpfile), `--live --json ADDR...` and `--live
# --sweep --jsonl`, framed on the console (serial.log; tests/test_arm64_live.py
# s390x-live reads it). The key holds the sources' digests: a change to
# the library rebuilds the set. README.md, "The s390x sets".
. "$RECIPES/s390x-7.sh"
eval "$(declare -f recipe_truth | sed '1s/^recipe_truth/s390x_7_truth/')"
FX_KEY="set kernel sid call:s390x_live_key host-tools debs:qemu-system-misc,gcc-s390x-linux-gnu"
FX_KEY="$FX_KEY sums:make-fixtures.sh,fx/foreign.sh,fx/s390x.sh,fx/cross.sh,recipes/s390x.sh,recipes/s390x-7.sh"
FX_KEY="$FX_KEY sums:recipes/s390x-live.sh,qmp.py,drgn_truth73.py,drgn_sb_counts.py,stat_vs_truth.py"
FX_KEY="$FX_KEY call:s390x_text_key"
PANIC=none

s390x_live_key() {
	echo "$S390X_BUSYBOX_ID"; echo "$S390X_VI_ID"
	echo "suites=$S390X_SUITES kernel-suites=$S390X_73_SUITES mem=$BOOT_MEM cpu=$BOOT_CPU"
}
s390x_live_prepare() {
	# shellcheck disable=SC2086
	prepare_apt_s390x $S390X_SUITES; prepare_s390x_busybox
	fx_cross_sysroot s390x apt_s390x s390x-sysroot
	S390X_SYSROOT=$CROSS_SYSROOT
	fx_cross_vmcore_inode s390x-vi s390x-linux-gnu s390x big
	S390X_VI=$CROSS_VI S390X_VI_ID=$CROSS_VI_ID
	# shellcheck disable=SC2086
	prepare_apt_s390x $S390X_73_SUITES; prepare_s390x_73_kernel "$S390X_73_SERIES"
	prepare_apt73; prepare_sid_chroot
}
recipe_prepare() { fx_shared s390x_live_prepare; }
recipe_content() {
	fx_stock_content "$FX_SET"
	sed -i 's/^FX_EXT4=1$/FX_EXT4=0/' "$ROOT/etc/fixture.conf"
	rm -f "$ROOT/ext4.img"
	step "the s390x vmcore-inode and its libraries into the initramfs"
	fx_cross_live_files "$ROOT" "$S390X_SYSROOT" "$S390X_VI" s390x-linux-gnu /lib/ld64.so.1
	# /init (fx_cross_live_init): where the kernel's VMCOREINFO note is (as
	# fx_vmcoreinfo_init prints it), init.sh in the background, the host's
	# commands on the control port (hvc0)
	# shellcheck disable=SC2016  # the guest's lines, $args the guest's
	fx_cross_live_init "$ROOT" hvc0 \
		'/bin/busybox mkdir -p /sys && /bin/busybox mount -t sysfs sysfs /sys &&
	echo "inodedump-vmcoreinfo: $(/bin/busybox cat /sys/kernel/vmcoreinfo)" > /dev/console &&
	/bin/busybox umount /sys' \
		'info --live --info' 'decode --live --json $args' 'sweep --live --sweep --jsonl'
}
recipe_run() {
	local t
	step "boot QEMU (TCG, ${BOOT_MEM} MiB, $BOOT_CPU)"
	"$BOOT_FN" "$KDIR/$BOOT_KERNEL" "$BOOT_MEM" "$BOOT_APPEND" "$OUT/serial.log" "$BOOT_CPU"
	fx_wait_ready "$OUT/serial.log"
	step "QMP dump elf-nopaging.vmcore"
	t=$(qmp dump "$OUT/elf-nopaging.vmcore") || die "qmp dump elf-nopaging"
	TIMINGS="${TIMINGS}dump_elf_nopaging_s=$t\n"
	fx_addnote_dumps true
	# the truth of the moment dumped, before the live runs: s390x-7's
	# (drgn 0.3.0 on elf-vmcoreinfo.vmcore: the nine tmpfs roles, checked
	# against the guest's stat lines; every superblock's count)
	s390x_7_truth
	fx_cross_live_runs 1200
}
recipe_truth() {
	grep -q 'inodedump-live-end name=decode rc=' "$OUT/serial.log" || die "no framed decode run in serial.log"
}
recipe_info() {
	echo "cpu=$BOOT_CPU mem=$BOOT_MEM qemu=$(dpkg-query -W -f='${Version}' qemu-system-misc)"
	echo "drgn=$(cat "$SID_CHROOT/drgn-version") sid_chroot=$SID_CHROOT"
	echo "s390x_vmcore_inode=$S390X_VI"
	s390x_kernel_info
}
