# shellcheck shell=bash disable=SC2034  # the library reads these variables
# arm64-64k: the debugvfs73 set on arm64 with 64 KiB pages, which no
# Debian flavour has: Debian's linux-source-7.3 cross-built with Debian
# 12's gcc-aarch64-linux-gnu from tinyconfig + arm64-64k/kernel.config
# (VA_BITS=52, KASLR, DEBUG_VFS, BTF; fx/kbuild.sh prepare_a64k_kernel)
# and the debugvfs73 trigger module built for it, on qemu-system-aarch64
# -M virt -cpu max (52-bit VA active: ARMv8.2 LVA). The debugvfs73 guest
# (debugvfs73/init.sh under the arm64 sets' two-line /init): real arm64
# VFS_WARN_ON_INODE reports, then may_open()'s VFS_BUG_ON_INODE panics
# it; every dump is taken after the panic. Dumps: QEMU's ELF (paging and
# not) and kdump-zlib, and sid's makedumpfile:arm64 (under
# qemu-aarch64-static) -d 17/-d 31 of the ELF. Truth: the module's lines,
# and drgn 0.3.0 (sid chroot) reading the ELF dump agreeing with them.
# README.md, "The arm64-64k sets".
. "$RECIPES/debugvfs73.sh"
FX_KEY="set kernel call:a64k_key host-tools sid debs:qemu-system-arm,qemu-user-static"
FX_KEY="$FX_KEY sums:make-fixtures.sh,fx/arm64.sh,recipes/debugvfs73.sh,recipes/arm64-64k.sh,qmp.py,elf_fixphdr.py"
FX_KEY="$FX_KEY sums:debugvfs73/init.sh,debugvfs73/truth_vs_drgn.py,drgn_truth.py,drgn_truth73.py"
BOOT_FN=fx_boot_arm64 BOOT_KERNEL=Image BOOT_MEM=256 BOOT_CPU=max PANIC=first
BOOT_APPEND="$ARM64_APPEND oops=panic"
MAKEDUMPFILE=""   # the host's (amd64) makedumpfile reads no arm64 dump
ARM64_MAKEDUMPFILE="d17-zlib:-d_17_-c d17-lzo:-d_17_-l d17-zstd:-d_17_-z d31-zlib:-d_31_-c"
ARM64_MDF_EXPECT=dumps
A64K_TRUTH_DUMP=elf-nopaging.vmcore
A64K_T1SZ=0xc   # VMCOREINFO's TCR_EL1_T1SZ: 64 - 52, LVA active on -cpu max
FX_INFO_SIZES="*.vmcore *.flat vmlinux"
FX_BUSYBOX=

a64k_key() {
	echo "$ARM64_BUSYBOX_ID"; echo "$ARM64_MDF_ID"; echo "mdf=$ARM64_MDF_EXPECT $ARM64_MAKEDUMPFILE"
	echo "cpu=$BOOT_CPU mem=$BOOT_MEM append=$BOOT_APPEND t1sz=$A64K_T1SZ"
}
recipe_prepare() {
	fx_shared prepare_apt73 prepare_dv73_source prepare_sid_chroot \
		prepare_apt_arm64 prepare_arm64_busybox prepare_apt_arm64_sid prepare_arm64_makedumpfile
	FX_BUSYBOX=$ARM64_BUSYBOX
	prepare_a64k_kernel
}
# debugvfs73/init.sh as /init.sh, started by the arm64 sets' /init
# (fx_arm64_content's): /dev/ttyS1, where it waits for the host's "panic",
# is a link to the console, ttyAMA0.
recipe_content() {
	fx_init "$DV73_DIR/init.sh" init.sh
	cat > "$ROOT/init" <<-'INIT'
		#!/bin/busybox sh
		/bin/busybox mkdir -p /dev && /bin/busybox mount -t devtmpfs devtmpfs /dev &&
			/bin/busybox ln -sf ttyAMA0 /dev/ttyS1 && /bin/busybox umount /dev
		exec /bin/busybox sh /init.sh
	INIT
	chmod 755 "$ROOT/init"
	cp "$KDIR/$DV73_MODULE.ko" "$ROOT/modules/"
	fx_ext4 16M inodedump 00000000-0000-4000-8000-00000000e4e4
}
recipe_run() {
	fx_run
	step "the dump is of a 64 KiB-page kernel (VMCOREINFO)"
	a64k_vmcoreinfo "$OUT/elf-nopaging.vmcore" > "$W/vmcoreinfo.txt"
	grep -qx 'PAGESIZE=65536' "$W/vmcoreinfo.txt" || die "VMCOREINFO has no PAGESIZE=65536: $(cat "$W/vmcoreinfo.txt")"
	grep -qx 'NUMBER(VA_BITS)=52' "$W/vmcoreinfo.txt" || die "VMCOREINFO has no NUMBER(VA_BITS)=52"
	grep -qx "NUMBER(TCR_EL1_T1SZ)=$A64K_T1SZ" "$W/vmcoreinfo.txt" ||
		die "VMCOREINFO has no NUMBER(TCR_EL1_T1SZ)=$A64K_T1SZ: $(cat "$W/vmcoreinfo.txt")"
	A64K_VMCOREINFO=$(tr '\n' ' ' < "$W/vmcoreinfo.txt")
	arm64_mdf_dumps
}
# a64k_vmcoreinfo DUMP: the VMCOREINFO lines that say the paging, from the
# ELF's first MiB (its notes; the kernel image, whose .rodata holds the
# format strings "NUMBER(TCR_EL1_T1SZ)=0x%llx"..., is loaded 2 MiB into RAM)
a64k_vmcoreinfo() {
	head -c 1048576 "$1" | LC_ALL=C grep -a -o -E \
		'PAGESIZE=[0-9]+|NUMBER\((VA_BITS|TCR_EL1_T1SZ)\)=(0x[0-9a-f]+|[0-9]+)|KERNELOFFSET=[0-9a-f]+' | sort -u
}

# truth.txt: the module's lines; drgn-truth.txt: drgn 0.3.0 (sid chroot)
# on the ELF dump for every role with a path; both must agree. reports.txt
# as debugvfs73's.
recipe_truth() {
	local n roles
	fx_truth_serial "=$DV73_TRUTH_LINES"
	roles=$(fx_truth_roles "$OUT/truth.txt")
	step "drgn-truth.txt from drgn $(cat "$SID_CHROOT/drgn-version") (sid chroot) reading $A64K_TRUTH_DUMP"
	# shellcheck disable=SC2086
	in_sid "$SID_CHROOT" "$OUT" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_truth73.py \
		/fx/vmlinux "/fx/$A64K_TRUTH_DUMP" $roles > "$OUT/drgn-truth.txt" || die "drgn_truth73.py in the sid chroot"
	step "the kernel's truth lines agree with drgn's"
	$PY "$DV73_DIR/truth_vs_drgn.py" "$OUT/truth.txt" "$OUT/drgn-truth.txt" >&2 || die "truth_vs_drgn.py"
	step "reports.txt: the report lines as the console printed them"
	tr -d '\r' < "$OUT/serial.log" | awk '
		/^\*\* replaying previous printk message \*\*$/ { if (last) n--; last = 0; next }
		{ line = $0; sub(/^\[ *[0-9.]*\] /, "", line); last = 0 }
		line ~ /: inode:[0-9a-f]* fs:|: unreadable inode:[0-9a-f]*$/ { out[++n] = line; last = 1 }
		END { for (i = 1; i <= n; i++) print out[i] }' > "$OUT/reports.txt"
	n=$(wc -l < "$OUT/reports.txt")
	[ "$n" -eq $((DV73_REPORTS_BEFORE_PANIC + 1)) ] ||
		die "expected $((DV73_REPORTS_BEFORE_PANIC + 1)) report lines on the console, got $n"
}
recipe_info() {
	echo "arch=arm64 cpu=$BOOT_CPU qemu=$(dpkg-query -W -f='${Version}' qemu-system-arm)"
	echo "drgn=$(cat "$SID_CHROOT/drgn-version") sid_chroot=$SID_CHROOT"
	echo "kernel_build_s=$(cat "$KDIR/kernel_build_s")"
	echo "vmcoreinfo: $A64K_VMCOREINFO"
	echo "$ARM64_MDF_INFO"
}
