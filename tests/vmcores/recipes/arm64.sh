# shellcheck shell=bash disable=SC2034  # the library reads these variables
# arm64: Debian 12's stock arm64 6.12 kernel (bookworm(-security), through
# the private arm64 apt state) with its -dbg vmlinux, on
# qemu-system-aarch64 -M virt -cpu cortex-a57 (TCG): 4 KiB pages, the
# kernel built VA_BITS=52 running with 48 (TCR_EL1_T1SZ=0x10). The stock
# sets' guest (init.sh: tmpfs and ext4 files) under busybox-static:arm64;
# QMP dumps, then a panic. No makedumpfile dump: sid's makedumpfile 1.7.8
# (arm64, under qemu-aarch64-static) refuses this kernel, as Debian 12's
# 1.7.2 does ("PAGE SIZE 0x1000 and VA Bits 52 not supported"); the build
# checks that it still does. Truth from the host's drgn 0.0.22 through
# libkdumpfile (drgn's own arm64 walk fails on these dumps), checked
# against the guest's stat(1) lines. README.md, "The arm64 sets".
FX_KEY="set kernel call:arm64_key host-tools debs:qemu-system-arm,qemu-user-static"
FX_KEY="$FX_KEY sums:make-fixtures.sh,fx/arm64.sh,recipes/arm64.sh,qmp.py,elf_fixphdr.py,init.sh,drgn_truth.py,stat_vs_truth.py"
BOOT_FN=fx_boot_arm64 BOOT_KERNEL=vmlinuz BOOT_MEM=256 BOOT_CPU=cortex-a57
BOOT_APPEND=$ARM64_APPEND PANIC=last
MAKEDUMPFILE=""   # the host's (amd64) makedumpfile: none
ARM64_MAKEDUMPFILE="d17-zlib:-d_17_-c d17-lzo:-d_17_-l d17-zstd:-d_17_-z d31-zlib:-d_31_-c"
ARM64_MDF_EXPECT=refuse ARM64_MDF_REFUSAL="PAGE SIZE 0x1000 and VA Bits 52 not supported"
ARM64_TRUTH_DUMP=elf-nopaging.vmcore
FX_BUSYBOX=

arm64_key() { echo "$ARM64_BUSYBOX_ID"; echo "$ARM64_MDF_ID"; echo "mdf=$ARM64_MDF_EXPECT $ARM64_MAKEDUMPFILE"; }
arm64_prepare() {
	prepare_apt_arm64; prepare_arm64_busybox; prepare_arm64_kernel
	prepare_apt_arm64_sid; prepare_arm64_makedumpfile
}
recipe_prepare() { fx_shared arm64_prepare; FX_BUSYBOX=$ARM64_BUSYBOX; }
recipe_content() { fx_arm64_content "$FX_SET"; }
recipe_run() { fx_run; arm64_mdf_dumps; }
recipe_truth() {
	if [ -n "${ARM64_TRUTH_CHROOT:-}" ]; then
		fx_truth_drgn "$OUT" "$ARM64_TRUTH_DUMP" 18 "$SID_CHROOT"
	else
		DRGN_USE_LIBKDUMPFILE_FOR_ELF=1 fx_truth_drgn "$OUT" "$ARM64_TRUTH_DUMP" 18
	fi
	fx_truth_vs_stat "$OUT"
}
recipe_info() {
	echo "cpu=$BOOT_CPU qemu=$(dpkg-query -W -f='${Version}' qemu-system-arm) drgn=$($PY -c 'import drgn; print(drgn.__version__)')"
	echo "$ARM64_MDF_INFO"
}
