# shellcheck shell=bash disable=SC2034  # the library reads these variables
# kdump73: a real kdump capture (recipes/kdump.sh) of the debugvfs73 guest:
# its init, trigger module (7 VFS_WARN_ON_INODE reports, truth lines) and
# panic (may_open()'s VFS_BUG_ON_INODE, oops=panic), on the debugvfs73
# kernel itself (its config has PCI and virtio-blk, so the capture kernel,
# the same image, reaches the virtio disk). Truth: the
# module's lines, and drgn 0.3.0 (sid chroot) on the -d 17 kdump-tools
# dump agreeing with them. README.md, "The kdump sets".
. "$RECIPES/debugvfs73.sh"
. "$RECIPES/kdump.sh"
FX_KEY="set kernel host-tools sid call:kdump_key sums:make-fixtures.sh,debugvfs73.sh,recipes/kdump.sh,recipes/kdump73.sh,kdump/load.sh,kdump/capture.sh,debugvfs73/init.sh,debugvfs73/truth_vs_drgn.py,drgn_truth73.py"
BOOT_KERNEL=bzImage BOOT_MEM=256 BOOT_CPU=max
BOOT_APPEND="console=ttyS0 qemu_fw_cfg.ioport=12@0x510:0:1:4 oops=panic no_timer_check crashkernel=96M"

recipe_prepare() {
	fx_shared prepare_apt73 prepare_dv73_source prepare_sid_chroot
	prepare_debugvfs73_kernel
}
recipe_content() {
	kdump_content "$DV73_DIR/init.sh"
	cp "$KDIR/$DV73_MODULE.ko" "$ROOT/modules/"
	fx_ext4 16M inodedump 00000000-0000-4000-8000-00000000e4e4
}
# recipe_ready, recipe_panicked: debugvfs73's (7 reports; may_open()'s BUG)

# truth.txt: the module's lines; drgn-truth.txt: drgn 0.3.0 on the -d 17
# kdump-tools dump; reports.txt: the report lines of the console
recipe_truth() {
	local roles d17
	fx_truth_serial "=$DV73_TRUTH_LINES"
	d17=$(awk '/^layout=kdump-tools args=-c_-d_17 / { sub(/.*dump=/, ""); sub(/ .*/, ""); print }' "$OUT/dumps.txt")
	[ -n "$d17" ] || die "no -d 17 kdump-tools dump in dumps.txt"
	roles=$(fx_truth_roles "$OUT/truth.txt")
	step "drgn-truth.txt from drgn $(cat "$SID_CHROOT/drgn-version") (sid chroot) reading $d17"
	# shellcheck disable=SC2086
	in_sid "$SID_CHROOT" "$OUT" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_truth73.py \
		/fx/vmlinux "/fx/$d17" $roles > "$OUT/drgn-truth.txt" || die "drgn_truth73.py in the sid chroot"
	step "the kernel's truth lines agree with drgn's"
	$PY "$DV73_DIR/truth_vs_drgn.py" "$OUT/truth.txt" "$OUT/drgn-truth.txt" >&2 || die "truth_vs_drgn.py"
	fx_reports_serial $((DV73_REPORTS_BEFORE_PANIC + 1))
}
kdump_recipe_info() {
	echo "drgn=$(cat "$SID_CHROOT/drgn-version") sid_chroot=$SID_CHROOT"
	echo "kernel_copy_s=$(cat "$KDIR/kernel_copy_s")"
	echo "kernel_build_s=$(cat "$KDIR/kernel_build_s")"
}
