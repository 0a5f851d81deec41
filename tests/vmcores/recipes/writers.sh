# shellcheck shell=bash disable=SC2034  # the library reads these variables
# writers: what users hand us today, from the newest writers Debian has
# (sid, in the sid chroot; nothing newer is installed on the host): QEMU's
# dump-guest-memory in every format it offers for x86-64 and makedumpfile
# at -d 17 and -d 31 in each of its compressions and as ELF, for the stock
# 6.12 and the stock 7.3 kernel (writers/stock, writers/stock73).
#
# One guest boot per kernel (the stock sets' guest), run by the chroot's
# QEMU: every QEMU format is dumped from that guest at the same moment
# (dump-guest-memory stops the guest while it writes), and every
# makedumpfile dump is made from its paging:false ELF dump (makedumpfile
# reads an ELF vmcore the way it reads /proc/vmcore), so all of a kernel's
# dumps hold the same memory and one truth.txt holds for all. Reusing the
# stock sets' ELF dumps instead would spare the boot for makedumpfile but
# not for QEMU 11's own formats, and would tie this set to the other sets'
# keys. makedumpfile 1.7.2 (the host's) writes one more -d 31 dump of the
# same moment: the filtered-page explanation is tested on both writers.
# README.md, "The writers set".
FX_KEY="set call:writers_key_kernels host-tools sid"
FX_KEY="$FX_KEY sums:make-fixtures.sh,stock73.sh,writers.sh,qmp.py,elf_fixphdr.py,init.sh,drgn_truth.py,drgn_truth73.py,stat_vs_truth.py"
WRITERS_KERNELS="stock stock73"
# name:makedumpfile options, run by the chroot's makedumpfile (sid-NAME.vmcore)
WRITERS_SID_DUMPS="d17-zlib:-d_17_-c d17-lzo:-d_17_-l d17-zstd:-d_17_-z d17-elf:-d_17_-E
d31-zlib:-d_31_-c d31-lzo:-d_31_-l d31-zstd:-d_31_-z d31-elf:-d_31_-E"
# and by the host's (host-NAME.vmcore)
WRITERS_HOST_DUMPS="d31-zlib:-d_31_-c"

recipe_prepare() {
	fx_shared prepare_apt73 writers_kernel612 writers_kernel73 prepare_sid_chroot
	WCHROOT=$SID_CHROOT
}
writers_kernel612() { prepare_stock_kernel; KDIR612=$KDIR KID612=$KERNEL_ID; }
writers_kernel73() { prepare_stock73_kernel; KDIR73=$KDIR KID73=$KERNEL_ID; }
writers_key_kernels() { echo "$KID612"; echo "$KID73"; }

# writers_qmp_caps: the formats query-dump-guest-memory-capability lists.
writers_qmp_caps() {
	python3 - "$HERE" "$W/qmp.sock" <<-'PYEOF'
		import sys
		sys.path.insert(0, sys.argv[1])
		from qmp import QMP
		caps = QMP(sys.argv[2]).execute("query-dump-guest-memory-capability")
		print(" ".join(caps["formats"]))
	PYEOF
}

# writers_guest KSET DIR: boot KSET's kernel under the chroot's QEMU, dump
# every format it offers into DIR, quit.
writers_guest() {
	local kset=$1 d=$2 t fmt caps file paging
	step "boot the chroot's QEMU (TCG, 512 MiB) with the $kset kernel"
	BOOT_RUNNER=(sid_run "$WCHROOT")   # the same machine and guest as the stock sets'
	fx_boot "$KDIR/vmlinuz" 512 "$STD_APPEND" "$d/serial.log"
	BOOT_RUNNER=()
	fx_wait_ready "$d/serial.log"
	caps=$(writers_qmp_caps) || die "query-dump-guest-memory-capability"
	log "QEMU offers: $caps"
	echo "qemu_formats=$caps" >> "$W/info.extra"
	# ELF twice (paging off and on), then every other format offered
	for fmt in elf-nopaging elf-paging $caps; do
		paging=nopaging
		case $fmt in
		elf-nopaging) file=elf-nopaging.vmcore; fmt=elf ;;
		elf-paging) file=elf-paging.vmcore; fmt=elf; paging=paging ;;
		elf | win-dmp) continue ;;   # done above; Windows guests only
		kdump-raw-*) file=qemu-$fmt.vmcore ;;
		kdump-*) file=qemu-$fmt.flat ;;   # makedumpfile's flattened format
		*) continue ;;
		esac
		step "QMP dump $file ($fmt, $paging)"
		# shellcheck disable=SC2046
		if t=$(python3 "$HERE/qmp.py" "$W/qmp.sock" dump "$d/$file" --format "$fmt" \
			$([ "$paging" = paging ] && echo --paging) 2>"$W/dump.err"); then
			TIMINGS="${TIMINGS}dump_${file%%.*}_s=$t\n"
		else
			# offered but not built in (Debian's lzo, snappy): said, not hidden
			rm -f "$d/$file"
			log "QEMU could not write $fmt: $(tail -1 "$W/dump.err")"
			echo "qemu_failed_$fmt=$(tail -1 "$W/dump.err" | tr ' \n' '_ ')" >> "$W/info.extra"
			case $fmt in kdump-zlib | kdump-raw-zlib) die "QEMU could not write $fmt" ;; esac
		fi
	done
	quit_guest "$T_BOOT"
	chmod 0644 "$d"/*.vmcore "$d"/*.flat
}

# writers_makedumpfile DIR: the chroot's and the host's makedumpfile, from
# the ELF dump of the same moment.
writers_makedumpfile() {
	local d=$1
	step "ELF program headers where makedumpfile reads them (elf_fixphdr.py)"
	fx_fixphdr "$d/elf-nopaging.vmcore" "$W/fixed.elf"
	MDF_RUNNER=(sid_run "$WCHROOT")
	# shellcheck disable=SC2086
	fx_makedumpfile "$W/fixed.elf" "$d/sid-" sid_ $WRITERS_SID_DUMPS
	MDF_RUNNER=()
	# shellcheck disable=SC2086
	fx_makedumpfile "$W/fixed.elf" "$d/host-" host_ $WRITERS_HOST_DUMPS
	rm -f "$W/fixed.elf"
	chmod 0644 "$d"/*.vmcore
}

recipe_build() {
	local k d t_k f
	for k in $WRITERS_KERNELS; do
		SET=writers/$k
		TIMINGS=""
		: > "$W/info.extra"
		t_k=$(now)
		d=$OUT/$k
		mkdir -p "$d"
		case $k in
		stock) KDIR=$KDIR612 KERNEL_ID=$KID612 ;;
		stock73) KDIR=$KDIR73 KERNEL_ID=$KID73 ;;
		esac
		fx_link_vmlinux "$d"
		fx_initramfs "$W/root" "$W/initramfs.cpio.gz" "fx_stock_content $k"
		writers_guest "$k" "$d"
		writers_makedumpfile "$d"
		# truth by drgn 0.3.0 (the sid chroot) from the chroot makedumpfile's
		# -d 17 dump, checked against the guest's stat lines
		fx_truth_drgn "$d" sid-d17-zlib.vmcore 18 "$SID_CHROOT"
		fx_truth_vs_stat "$d"
		step "write $k/info.txt"
		{
			echo "set=writers/$k"
			echo "release=$(cat "$KDIR/release")"
			echo "kernel=$KERNEL_ID"
			echo "hash=$SET_HASH"
			echo "drgn=$(cat "$SID_CHROOT/drgn-version") sid_chroot=$SID_CHROOT"
			echo "writers_chroot=$WCHROOT"
			echo "qemu=$(sid_run "$WCHROOT" dpkg-query -W -f='${Version}' qemu-system-x86)"
			echo "makedumpfile_sid=$(sid_run "$WCHROOT" dpkg-query -W -f='${Version}' makedumpfile)"
			echo "makedumpfile_host=$(dpkg-query -W -f='${Version}' makedumpfile)"
			cat "$W/info.extra"
			printf '%b' "$TIMINGS"
			echo "total_build_s=$(elapsed "$t_k")"
			for f in "$d"/*.vmcore "$d"/*.flat "$d/vmlinux"; do
				[ -f "$f" ] || continue
				echo "size_$(basename "$f")=$(stat -c %s "$f")"
			done
		} > "$d/info.txt"
	done
	SET=writers
	echo "total_build_s=$(elapsed "$T_ALL")" > "$OUT/info.txt"
}
