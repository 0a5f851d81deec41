# shellcheck shell=bash disable=SC2034  # the library reads these variables
# s390x: Debian 12's s390x 6.1 kernel (bookworm's newest
# linux-image-6.1.0-N-s390x with a -dbg of its version) on
# qemu-system-s390x -M s390-ccw-virtio (TCG): big-endian, 4 KiB pages,
# KASLR, no BTF (CONFIG_DEBUG_INFO_BTF off), CONFIG_KALLSYMS_ALL off,
# CONFIG_CRASH_DUMP off (CRASH_CORE on: /sys/kernel/vmcoreinfo is there).
# The stock sets' guest (init.sh: tmpfs and ext4 files) under
# busybox-static:s390x; QMP dumps (no VMCOREINFO: fx/s390x.sh), then a
# panic. elf-vmcoreinfo.vmcore: the kdump kernel's ELF (elf_addnote.py);
# d17-zlib and d31-zlib from it by bookworm's makedumpfile:s390x under
# qemu-s390x-static. Truth from drgn 0.3.0 in the sid chroot reading
# elf-vmcoreinfo.vmcore, checked against the guest's stat(1) lines; the
# ext4 module's operations named with its -dbg debug file
# (truth-modules.txt); the sweep's per-superblock counts
# (sweep-counts.txt). README.md, "The s390x sets".
FX_KEY="set kernel sid call:s390x_key host-tools debs:qemu-system-misc,qemu-user-static"
FX_KEY="$FX_KEY sums:make-fixtures.sh,fx/foreign.sh,fx/s390x.sh,recipes/s390x.sh,qmp.py,elf_addnote.py"
FX_KEY="$FX_KEY sums:drgn_truth73.py,drgn_truth_modules.py,drgn_sb_counts.py,stat_vs_truth.py"
FX_KEY="$FX_KEY call:s390x_text_key"
S390X_SUITES="bookworm"
S390X_SERIES=6.1
BOOT_FN=fx_boot_s390x BOOT_KERNEL=vmlinuz BOOT_MEM=512 BOOT_CPU=max BOOT_APPEND="console=ttysclp0"
PANIC=last PANIC_FN=fx_panic_s390x
S390X_MAKEDUMPFILE="d17-zlib:-d_17_-c d31-zlib:-d_31_-c"
FX_INFO_SIZES="$FX_INFO_SIZES debug/lib/modules/*/kernel/fs/ext4/ext4.ko"

# init.sh, drgn_truth.py and elf_addnote.py are stamps in other sets' keys: this set hashes
# their text
s390x_text_key() { (cd "$HERE" && sha256sum init.sh drgn_truth.py elf_addnote.py | sed 's/  / text of /'); }
s390x_key() {
	echo "$S390X_BUSYBOX_ID"; echo "$S390X_MDF_ID"
	echo "suites=$S390X_SUITES mem=$BOOT_MEM cpu=$BOOT_CPU mdf=$S390X_MAKEDUMPFILE"
}
s390x_prepare() {
	# shellcheck disable=SC2086
	prepare_apt_s390x $S390X_SUITES; prepare_s390x_busybox
	prepare_s390x_kernel "$S390X_SERIES"
	prepare_s390x_makedumpfile
	prepare_apt73; prepare_sid_chroot
}
recipe_prepare() { fx_shared s390x_prepare; }
recipe_content() { fx_s390x_content "$FX_SET"; }
recipe_run() {
	cp -al "$KDIR/debug" "$OUT/debug" 2>/dev/null || cp -a "$KDIR/debug" "$OUT/debug"
	fx_run
	# shellcheck disable=SC2086
	fx_addnote_dumps s390x_mdf_runner $S390X_MAKEDUMPFILE
}
recipe_truth() {
	fx_truth_drgn "$OUT" elf-vmcoreinfo.vmcore 18 "$SID_CHROOT"
	fx_truth_vs_stat "$OUT"
	s390x_truth_more
}
recipe_info() {
	echo "cpu=$BOOT_CPU mem=$BOOT_MEM qemu=$(dpkg-query -W -f='${Version}' qemu-system-misc)"
	echo "drgn=$(cat "$SID_CHROOT/drgn-version") sid_chroot=$SID_CHROOT"
	echo "makedumpfile_s390x=$S390X_MDF_VERSION"
	[ -z "${S390X_MDF_INFO:-}" ] || echo "$S390X_MDF_INFO"
	s390x_kernel_info
}
