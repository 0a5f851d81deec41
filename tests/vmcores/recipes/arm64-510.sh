# shellcheck shell=bash disable=SC2034  # the library reads these variables
# arm64-510: Debian 11's default arm64 kernel (bullseye's newest 5.10
# arm64-unsigned with a -dbg of the same version) on qemu-system-aarch64
# -M virt -cpu cortex-a57 (TCG): 4 KiB pages, 48-bit VA; built with
# CONFIG_KALLSYMS_ALL off (no __start_BTF, no module data in kallsyms) and
# CONFIG_DEBUG_INFO_BTF=y; its VMCOREINFO has no VMEMMAP_START. The arm64
# set's guest (init.sh: tmpfs and ext4 files) in the smallest memory it
# runs in; QEMU's ELF and kdump-zlib of one moment, then bookworm's
# makedumpfile 1.7.2 (arm64, under qemu-aarch64-static) -d 17 and -d 31
# from the ELF. Truth from the host's drgn 0.0.22 with the -dbg vmlinux,
# checked against the guest's stat(1) lines; slab truth from
# drgn_slab_truth.py; truth-modules.txt: drgn with the ext4 module's debug
# file (the -dbg package's lib/modules/R/.../ext4.ko, kept in debug/).
# README.md, "The arm64-510 and arm64-61 sets".
. "$RECIPES/arm64.sh"
FX_KEY="set kernel call:arm64_key host-tools debs:qemu-system-arm,qemu-user-static"
FX_KEY="$FX_KEY sums:make-fixtures.sh,fx/arm64.sh,fx/arm64deb.sh,recipes/arm64.sh,recipes/arm64-510.sh"
FX_KEY="$FX_KEY sums:qmp.py,elf_fixphdr.py,init.sh,drgn_truth.py,stat_vs_truth.py,drgn_slab_truth.py,drgn_truth_modules.py"
FX_KEY="$FX_KEY call:arm64deb_text_key"
BOOT_MEM=${ARM64DEB_MEM:-96}
ARM64_MAKEDUMPFILE="d17-zlib:-d_17_-c d31-zlib:-d_31_-c"
ARM64_MDF_EXPECT=dumps
ARM64DEB_SERIES=5.10

# init.sh and drgn_truth.py are stamps in other sets' keys: this set hashes
# their text
arm64deb_text_key() { (cd "$HERE" && sha256sum init.sh drgn_truth.py | sed 's/  / text of /'); }
arm64_key() { echo "$ARM64_BUSYBOX_ID"; echo "$ARM64_MDF_ID"; echo "mem=$BOOT_MEM mdf=$ARM64_MAKEDUMPFILE"; }
arm64_prepare() {
	prepare_apt_arm64; prepare_arm64_busybox
	prepare_apt_arm64_510; prepare_arm64_deb_kernel apt_arm64_510 "$ARM64DEB_SERIES"
	prepare_arm64_makedumpfile_bookworm
}
# QEMU's ELF (the truth's) and kdump-zlib of one moment: QEMU's arm64
# paging:true ELF is its paging:false one (FIXTURES.md), no panic dump
ARM64DEB_QMP="elf-nopaging.vmcore:elf kdump-zlib.flat:kdump-zlib"
recipe_run() {
	local spec file t
	cp -al "$KDIR/debug" "$OUT/debug" 2>/dev/null || cp -a "$KDIR/debug" "$OUT/debug"
	step "boot QEMU (TCG, ${BOOT_MEM} MiB, $BOOT_CPU)"
	fx_boot_arm64 "$KDIR/$BOOT_KERNEL" "$BOOT_MEM" "$BOOT_APPEND" "$OUT/serial.log" "$BOOT_CPU"
	fx_wait_ready "$OUT/serial.log"
	for spec in $ARM64DEB_QMP; do
		file=${spec%%:*}
		[ "${spec#*:}" = elf ] || file=qemu-$file
		step "QMP dump $file"
		# shellcheck disable=SC2046
		t=$(qmp dump "$OUT/$file" $([ "${spec#*:}" = elf ] || echo --format "${spec#*:}")) ||
			die "qmp dump $file"
		file=${file%%.*}; TIMINGS="${TIMINGS}dump_${file//-/_}_s=$t\n"
	done
	quit_guest "$T_BOOT"
	chmod 0644 "$OUT"/*.vmcore "$OUT"/*.flat
	arm64_mdf_dumps
}
recipe_truth() {
	DRGN_USE_LIBKDUMPFILE_FOR_ELF=1 fx_truth_drgn "$OUT" elf-nopaging.vmcore 18
	fx_truth_vs_stat "$OUT"
	step "slab-truth.txt from drgn_slab_truth.py reading d17-zlib.vmcore"
	$PY "$HERE/drgn_slab_truth.py" "$OUT/vmlinux" "$OUT/d17-zlib.vmcore" "$OUT/truth.txt" \
		> "$OUT/slab-truth.txt" || die "drgn_slab_truth.py"
	step "truth-modules.txt: drgn with the ext4 module's debug file"
	# shellcheck disable=SC2046
	DRGN_USE_LIBKDUMPFILE_FOR_ELF=1 $PY "$HERE/drgn_truth_modules.py" "$OUT/vmlinux" \
		"$OUT/elf-nopaging.vmcore" $(find "$OUT/debug" -name '*.ko' | sort) -- --stock \
		> "$OUT/truth-modules.txt" || die "drgn_truth_modules.py"
	grep -q ' i_op=ext4_file_inode_operations ' "$OUT/truth-modules.txt" ||
		die "drgn did not name ext4's operations from the module's debug file"
}
recipe_info() {
	echo "cpu=$BOOT_CPU mem=$BOOT_MEM qemu=$(dpkg-query -W -f='${Version}' qemu-system-arm) drgn=$($PY -c 'import drgn; print(drgn.__version__)')"
	echo "$ARM64_MDF_INFO"
}
