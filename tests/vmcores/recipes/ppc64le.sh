# shellcheck shell=bash disable=SC2034  # the library reads these variables
# ppc64le: Debian 12's stock ppc64el 6.1 kernel (bookworm, through the
# private ppc64el apt state) with its -dbg vmlinux, on qemu-system-ppc64 -M
# pseries -cpu power9 (TCG): radix MMU, 64 KiB pages, no KASLR, no BTF
# (Debian's 6.1 ppc64el has CONFIG_DEBUG_INFO_BTF off). The stock sets'
# guest (init.sh: tmpfs and ext4 files) under busybox-static:ppc64el; QMP
# dumps (big-endian ELF headers, no VMCOREINFO: fx/ppc64.sh), then a panic.
# elf-vmcoreinfo.vmcore: the kdump kernel's ELF (elf_addnote.py); d17-zlib
# and d31-zlib from it by bookworm's makedumpfile:ppc64el under
# qemu-ppc64le-static. Truth from drgn 0.3.0 in the sid chroot (0.0.22
# cannot translate the ext4 module's addresses here) reading
# elf-vmcoreinfo.vmcore, checked against the guest's stat(1) lines.
FX_KEY="set kernel sid call:ppc64_key host-tools debs:qemu-system-ppc,qemu-user-static"
FX_KEY="$FX_KEY sums:make-fixtures.sh,fx/ppc64.sh,recipes/ppc64le.sh,qmp.py,elf_addnote.py,init.sh,drgn_truth73.py,stat_vs_truth.py"
BOOT_FN=fx_boot_ppc64 BOOT_KERNEL=vmlinuz BOOT_MEM=512 BOOT_CPU=power9
BOOT_APPEND="console=hvc0" PANIC=last
MAKEDUMPFILE=""   # the host's (amd64) makedumpfile: none
PPC64_MAKEDUMPFILE="d17-zlib:-d_17_-c d31-zlib:-d_31_-c"
FX_BUSYBOX=

ppc64_key() { echo "$PPC64_BUSYBOX_ID"; echo "$PPC64_MDF_ID"; echo "mdf=$PPC64_MAKEDUMPFILE"; }
ppc64_prepare() {
	prepare_apt_ppc64; prepare_ppc64_busybox; prepare_ppc64_kernel
	prepare_ppc64_makedumpfile
	prepare_apt73; prepare_sid_chroot
}
recipe_prepare() { fx_shared ppc64_prepare; FX_BUSYBOX=$PPC64_BUSYBOX; }
recipe_content() { fx_ppc64_content "$FX_SET"; }
recipe_run() { fx_run; ppc64_dumps; }
recipe_truth() {
	fx_truth_drgn "$OUT" elf-vmcoreinfo.vmcore 18 "$SID_CHROOT"
	fx_truth_vs_stat "$OUT"
}
recipe_info() {
	echo "cpu=$BOOT_CPU qemu=$(dpkg-query -W -f='${Version}' qemu-system-ppc)"
	echo "drgn=$(cat "$SID_CHROOT/drgn-version") sid_chroot=$SID_CHROOT"
	echo "makedumpfile_ppc64el=$PPC64_MDF_VERSION"
}
