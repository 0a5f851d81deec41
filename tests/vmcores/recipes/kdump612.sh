# shellcheck shell=bash disable=SC2034  # the library reads these variables
# kdump612: a real kdump capture (recipes/kdump.sh) of the stock guest
# (init.sh: files on tmpfs and ext4) on Debian's stock 6.12 kernel, panicked
# with `echo c > /proc/sysrq-trigger`; crashkernel= as kdump-tools sets it
# on Debian 12. The capture kernel is the same vmlinuz with virtio-pci,
# virtio-blk and ext4 as modules in the capture initramfs. Truth: the host's
# drgn 0.0.22 on the -d 17 kdump-tools dump (it cannot read -d 31 dumps),
# checked against the guest's stat(1) lines. README.md, "The kdump sets".
. "$RECIPES/kdump.sh"
FX_KEY="set kernel host-tools call:kdump_key sums:make-fixtures.sh,recipes/kdump.sh,recipes/kdump612.sh,kdump/load.sh,kdump/capture.sh,init.sh,drgn_truth.py,stat_vs_truth.py"
BOOT_KERNEL=vmlinuz BOOT_MEM=512 BOOT_CPU=max
BOOT_APPEND="$STD_APPEND crashkernel=384M-:128M"
STOCK_MODULES="qemu_fw_cfg crc32c_generic ext4 loop virtio_blk"   # virtio_pci is built in

recipe_prepare() {
	prepare_stock_kernel
	# modules.list is in dependency order: the capture loads the part of it
	# virtio_blk and ext4 need (not qemu_fw_cfg nor loop)
	KDUMP_CAPTURE_MODULES=$(kdump612_capture_modules)
}
kdump612_capture_modules() {
	local m out=""
	[ -z "${FX_KEY_ONLY:-}" ] || [ -f "$KDIR/modules.list" ] || { echo "(key)"; return; }
	for m in $(cat "$KDIR/modules.list"); do
		case $m in qemu_fw_cfg | loop) continue ;; esac
		out="$out${out:+ }$m"
	done
	echo "$out"
}
recipe_content() {
	fx_stock_content kdump612
	kdump_content "$HERE/init.sh"
}
recipe_panicked() {
	grep -q 'sysrq: Trigger a crash' "$OUT/serial.log" || die "the panic is not sysrq-c's"
}
recipe_truth() {
	local d17
	d17=$(awk '/^layout=kdump-tools args=-c_-d_17 / { sub(/.*dump=/, ""); sub(/ .*/, ""); print }' "$OUT/dumps.txt")
	[ -n "$d17" ] || die "no -d 17 kdump-tools dump in dumps.txt"
	fx_truth_drgn "$OUT" "$d17" 18
	fx_truth_vs_stat "$OUT"
}
