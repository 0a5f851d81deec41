# shellcheck shell=bash disable=SC2034  # the library reads these variables
# debugvfs73: Debian's linux-source-7.3 built from tinyconfig +
# debugvfs73/kernel.config: upstream's own CONFIG_DEBUG_VFS assertions, no
# patches. The trigger module (debugvfs73/trigger/) fires real upstream
# VFS_WARN_ON_INODE reports at several call sites; then the guest opens
# bug_badmode and may_open()'s VFS_BUG_ON_INODE panics it (oops=panic).
# Every dump is taken after the panic, as kdump would see the machine.
# Truth: the module's lines, and drgn 0.3.0 (sid chroot) agreeing with
# them. README.md, "The debugvfs73 set".
FX_KEY="set kernel host-tools sid sums:make-fixtures.sh,qmp.py,elf_fixphdr.py,debugvfs73.sh,debugvfs73/init.sh,debugvfs73/truth_vs_drgn.py,drgn_truth.py,drgn_truth73.py"
BOOT_KERNEL=bzImage BOOT_MEM=256 PANIC=first
BOOT_APPEND="console=ttyS0 qemu_fw_cfg.ioport=12@0x510:0:1:4 oops=panic"
MAKEDUMPFILE="d17-zlib:-d_17_-c d17-lzo:-d_17_-l d31-zlib:-d_31_-c"
FX_INFO_SIZES="*.vmcore *.flat vmlinux"
# The reports the module fires before the panic: victim_symlink 1,
# cached_twice 1, victim_ext4 2, victim_new 1, dump_inode() directly 2.
DV73_REPORTS_BEFORE_PANIC=7
DV73_TRUTH_LINES=23   # 12 tmpfs roles + 10 ext4 roles + victim_new

recipe_prepare() {
	fx_shared prepare_apt73 prepare_dv73_source prepare_sid_chroot
	prepare_debugvfs73_kernel
}
recipe_content() {   # the roles' files are made by debugvfs73/init.sh
	fx_init "$DV73_DIR/init.sh"
	cp "$KDIR/$DV73_MODULE.ko" "$ROOT/modules/"
	fx_ext4 16M inodedump 00000000-0000-4000-8000-00000000e4e4
}
recipe_ready() {
	grep -q "inodedump-trigger: done reports=$DV73_REPORTS_BEFORE_PANIC\$" <(tr -d '\r' < "$OUT/serial.log") ||
		die "the trigger did not print 'done reports=$DV73_REPORTS_BEFORE_PANIC'"
}
recipe_panicked() {
	grep -q 'kernel BUG at fs/namei.c' "$OUT/serial.log" || die "the panic is not may_open()'s BUG"
}

# truth.txt: the module's lines; drgn-truth.txt: drgn 0.3.0 (sid chroot) on
# d17-zlib.vmcore for every role with a path; both must agree.
recipe_truth() {
	local roles
	fx_truth_serial "=$DV73_TRUTH_LINES"
	roles=$(fx_truth_roles "$OUT/truth.txt")
	step "drgn-truth.txt from drgn $(cat "$SID_CHROOT/drgn-version") (sid chroot) reading d17-zlib.vmcore"
	# shellcheck disable=SC2086
	in_sid "$SID_CHROOT" "$OUT" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_truth73.py \
		/fx/vmlinux /fx/d17-zlib.vmcore $roles > "$OUT/drgn-truth.txt" || die "drgn_truth73.py in the sid chroot"
	step "the kernel's truth lines agree with drgn's"
	$PY "$DV73_DIR/truth_vs_drgn.py" "$OUT/truth.txt" "$OUT/drgn-truth.txt" >&2 || die "truth_vs_drgn.py"
	fx_reports_serial $((DV73_REPORTS_BEFORE_PANIC + 1))
}
recipe_info() {
	echo "drgn=$(cat "$SID_CHROOT/drgn-version") sid_chroot=$SID_CHROOT"
	echo "kernel_build_s=$(cat "$KDIR/kernel_build_s")"
}
