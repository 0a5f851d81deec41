# shellcheck shell=bash disable=SC2034  # the library reads these variables
# big (and big73, which sources this): the stock Debian 6.12 kernel (big)
# or 7.3 (big73) in a 1 GiB guest whose /init (big_init.sh) builds an inode
# tree with guest/mktree.c on tmpfs and on ext4 in two stages; the guest is
# dumped after each:
#   small-*  ~20 k inodes      big-*  >= 200 k inodes
# as  S-elf.vmcore (QEMU ELF, paging: readable by drgn and libkdumpfile),
#     S-d17-zlib.vmcore, S-d17-lzo.vmcore (makedumpfile 1.7.2, the host's),
#     S-d17-zstd.vmcore (makedumpfile of sid, in the sid chroot: Debian 12's
#                       1.7.2 has zstd compiled out, -z writes uncompressed)
# Truth: S-truth.txt, drgn's walk of every s_inodes list of
# S-d17-zlib.vmcore (drgn_truth_big.py): per-superblock counts, then one
# line per inode. drgn 0.0.22 (the host's) for big; 0.3.0 (the sid chroot)
# for big73, which 0.0.22 cannot read. README.md, "The big sets".
FX_KEY="set kernel call:big_key_drgn host-tools debs:gcc,libc6-dev sid call:big_key_sizes"
FX_KEY="$FX_KEY sums:make-fixtures.sh,qmp.py,elf_fixphdr.py,big.sh,big_init.sh,guest/mktree.c,drgn_truth_big.py"
FX_INFO_SIZES="*.vmcore"
BIG_MEM=1024
# mktree entry ranges: stage 1 tmpfs 0..A, ext4 0..B; stage 2 up to C, D.
# (each range of N entries makes ~1.011 N inodes: the leaf directories)
BIG_STAGE1="12000 6000"
BIG_STAGE2="132000 70000"
BIG_EXT4_INODES=76000

recipe_prepare() {
	case $FX_SET in
	big) prepare_stock_kernel; BIG_DRGN=host
		fx_shared prepare_apt73 prepare_sid_chroot ;;
	big73) BIG_DRGN=sid   # its kernel is found with the private apt state
		fx_shared prepare_apt73 prepare_stock73_kernel prepare_sid_chroot ;;
	*) die "big.sh: no set $FX_SET" ;;
	esac
	BIG_SID=$SID_CHROOT
}
big_key_drgn() { echo "truth drgn: $BIG_DRGN"; }
big_key_sizes() {
	echo "mem=$BIG_MEM stage1=$BIG_STAGE1 stage2=$BIG_STAGE2 ext4_inodes=$BIG_EXT4_INODES"
}

recipe_content() {
	local mods
	fx_init "$HERE/big_init.sh"
	fx_static_tool guest/mktree.c "$ROOT/bin/mktree"
	mods=$(fx_kernel_modules)
	# shellcheck disable=SC2086
	set -- $BIG_STAGE1 $BIG_STAGE2
	fx_conf 'FX_MODULES="%s"\nFX_STAGE1_TMPFS=%s\nFX_STAGE1_EXT4=%s\nFX_STAGE2_TMPFS=%s\nFX_STAGE2_EXT4=%s\n' \
		"$mods" "$1" "$2" "$3" "$4"
	fx_ext4 64M inodedump-big 00000000-0000-4000-8000-0000000b1900 -N "$BIG_EXT4_INODES"
}

big_qmp() {   # big_qmp COMMAND: a bare QMP command (stop, cont)
	$PY -c 'import sys; sys.path.insert(0, sys.argv[1]); from qmp import QMP
QMP(sys.argv[2]).execute(sys.argv[3])' "$HERE" "$W/qmp.sock" "$1"
}

# big_dump STAGE: the guest stopped, its two ELF dumps, the guest running
# again. The paging one is kept; the other feeds makedumpfile (big_derive).
big_dump() {
	local s=$1 t
	big_qmp stop || die "qmp stop"
	step "QMP dump $s-elf.vmcore (paging) and the makedumpfile input"
	t=$(qmp dump "$OUT/$s-elf.vmcore" --paging) || die "qmp dump $s-elf"
	TIMINGS="${TIMINGS}dump_${s}_elf_s=$t\n"
	t=$(qmp dump "$W/$s-nopaging.elf") || die "qmp dump $s nopaging"
	TIMINGS="${TIMINGS}dump_${s}_nopaging_s=$t\n"
	big_qmp cont || die "qmp cont"
}

big_derive() {   # big_derive STAGE
	local s=$1
	step "$s: rewrite ELF program headers for makedumpfile (pitfall 4)"
	fx_fixphdr "$W/$s-nopaging.elf" "$W/$s-fixed.elf"
	rm -f "$W/$s-nopaging.elf"
	fx_makedumpfile "$W/$s-fixed.elf" "$OUT/$s-" "${s}_" d17-zlib:-d_17_-c d17-lzo:-d_17_-l
	MDF_RUNNER=(sid_run "$BIG_SID")
	fx_makedumpfile "$W/$s-fixed.elf" "$OUT/$s-" "${s}_" d17-zstd:-d_17_-z
	MDF_RUNNER=()
	rm -f "$W/$s-fixed.elf"
	chmod 0644 "$OUT/$s"-*.vmcore
}

big_truth() {   # big_truth STAGE (BIG_DRGN: host or sid)
	local s=$1 t0 n
	t0=$(now)
	if [ "$BIG_DRGN" = sid ]; then
		step "$s: truth from drgn $(cat "$BIG_SID/drgn-version") (sid chroot) reading $s-d17-zlib.vmcore"
		in_sid "$BIG_SID" "$OUT" "$HERE" /usr/bin/python3 /src/drgn_truth_big.py \
			/fx/vmlinux "/fx/$s-d17-zlib.vmcore" > "$OUT/$s-truth.txt" ||
			die "drgn_truth_big.py $s (sid chroot)"
	else
		step "$s: truth from drgn $($PY -c 'import drgn; print(drgn.__version__)') reading $s-d17-zlib.vmcore"
		$PY "$HERE/drgn_truth_big.py" "$OUT/vmlinux" "$OUT/$s-d17-zlib.vmcore" > "$OUT/$s-truth.txt" ||
			die "drgn_truth_big.py $s"
	fi
	TIMINGS="${TIMINGS}truth_${s}_s=$(elapsed "$t0")\n"
	n=$(grep -c '^inode ' "$OUT/$s-truth.txt")
	log "$s: drgn walked $n inodes"
	TIMINGS="${TIMINGS}inodes_${s}=$n\n"
	case $s in
	small) [ "$n" -ge 15000 ] && [ "$n" -lt 40000 ] || die "small: $n inodes, not ~20 k" ;;
	big) [ "$n" -ge 200000 ] || die "big: $n inodes, not >= 200 k" ;;
	esac
}

big_wait() {   # big_wait STAGE TIMEOUT: the guest's "ready STAGE" (a panic ends it)
	wait_serial "$OUT/serial.log" "inodedump-big: ready $1|Kernel panic" "$2" "stage $1 (ready $1)"
	! grep -q 'Kernel panic' "$OUT/serial.log" || die "$(grep -m1 'Kernel panic' "$OUT/serial.log")"
}

recipe_build() {
	local t
	fx_link_vmlinux "$OUT"
	fx_initramfs "$W/root" "$W/initramfs.cpio.gz" recipe_content
	step "boot QEMU (TCG, ${BIG_MEM} MiB)"
	fx_boot "$KDIR/vmlinuz" "$BIG_MEM" "$STD_APPEND" "$OUT/serial.log"
	big_wait 1 "$BOOT_TIMEOUT"
	TIMINGS="${TIMINGS}boot_to_ready1_s=$(elapsed "$T_BOOT")\n"
	! grep -q 'inodedump-big: FAILED' "$OUT/serial.log" || die "$(grep 'inodedump-big: FAILED' "$OUT/serial.log")"
	big_dump small
	step "stage 2: tell the guest to grow the tree"
	fx_ctl more
	t=$(now)
	big_derive small   # while the guest works
	big_wait 2 $((BOOT_TIMEOUT * 3))
	TIMINGS="${TIMINGS}stage2_s=$(elapsed "$t")\n"
	! grep -q 'inodedump-big: FAILED' "$OUT/serial.log" || die "$(grep 'inodedump-big: FAILED' "$OUT/serial.log")"
	big_dump big
	quit_guest "$T_BOOT"
	big_derive big
	big_truth small
	big_truth big
	fx_info
}
recipe_info() { echo "makedumpfile_zstd=$(cat "$BIG_SID/inodedump-inputs.txt") chroot=$BIG_SID"; }
