# shellcheck shell=bash
# The writers set's recipe: sourced by make-fixtures.sh (uses its log, step,
# die, hash16, now, elapsed, CACHE, PY, HERE, pkg_versions, build_initramfs,
# wait_serial, quit_guest, prepare_stock_kernel, and stock73.sh's private apt
# state, kernel and sid chroot). Its own file, so that editing it re-keys
# the writers set alone. See README.md, "The writers set".
#
# What users hand us today, from the newest writers Debian has (sid, in a
# debootstrapped chroot; nothing newer is installed on the host): QEMU's
# dump-guest-memory in every format it offers for x86-64 and makedumpfile
# at -d 17 and -d 31 in each of its compressions and as ELF, for the stock
# 6.12 and the stock 7.3 kernel.
#
# One guest boot per kernel, run by the chroot's QEMU: every QEMU format is
# dumped from that guest at the same moment (dump-guest-memory stops the
# guest while it writes), and every makedumpfile dump is made from its
# paging:false ELF dump (makedumpfile reads an ELF vmcore the way it reads
# /proc/vmcore), so all of a kernel's dumps hold the same memory and one
# truth.txt holds for all. Reusing the stock sets' ELF dumps instead would
# spare the boot for makedumpfile but not for QEMU 11's own formats, and
# would tie this set to the other sets' keys. makedumpfile 1.7.2 (the
# host's) writes one more -d 31 dump of the same moment: the filtered-page
# explanation is tested on both writers.

WRITERS_KERNELS="stock stock73"
# name:makedumpfile options, run by the chroot's makedumpfile (sid-NAME.vmcore)
WRITERS_SID_DUMPS="d17-zlib:-d_17_-c d17-lzo:-d_17_-l d17-zstd:-d_17_-z d17-elf:-d_17_-E
d31-zlib:-d_31_-c d31-lzo:-d_31_-l d31-zstd:-d_31_-z d31-elf:-d_31_-E"
# and by the host's (host-NAME.vmcore)
WRITERS_HOST_DUMPS="d31-zlib:-d_31_-c"

# in_writers CHROOT CMD...: CMD in the chroot, the cache bind-mounted at its
# own path (read-write: QEMU and makedumpfile write the dumps there) and
# /proc mounted, in a private mount namespace that vanishes with CMD. The
# paths the recipe uses are the same inside and out.
in_writers() {
	unshare --mount --propagation private sh -c '
		c=$1 cache=$2; shift 2
		mount --bind "$cache" "$c$cache" && mount -t proc proc "$c/proc" &&
		exec chroot "$c" "$@"' in_writers "$1" "$CACHE" "${@:2}"
}

# writers_qmp_caps: the formats query-dump-guest-memory-capability lists.
writers_qmp_caps() {
	python3 - "$HERE" "$W/qmp.sock" <<-'EOF'
		import sys
		sys.path.insert(0, sys.argv[1])
		from qmp import QMP
		caps = QMP(sys.argv[2]).execute("query-dump-guest-memory-capability")
		print(" ".join(caps["formats"]))
	EOF
}

# writers_guest KSET DIR: boot KSET's kernel under the chroot's QEMU, dump
# every format it offers into DIR, quit.
writers_guest() {
	local kset=$1 d=$2 t0 t fmt caps file paging
	step "boot the chroot's QEMU (TCG, 512 MiB) with the $kset kernel"
	rm -f "$W/qmp.sock" "$W/ctl.sock" "$d/serial.log"
	t0=$(now)
	# the same machine and guest as run_guest's stock sets
	in_writers "$WCHROOT" qemu-system-x86_64 -accel tcg,thread=multi -cpu max \
		-smp 2,sockets=2,cores=1,threads=1 -m 512 \
		-nographic -no-reboot -device vmcoreinfo \
		-kernel "$KDIR/vmlinuz" -initrd "$W/initramfs.cpio.gz" \
		-append "console=ttyS0 qemu_fw_cfg.ioport=12@0x510:0:1:4 no_timer_check" \
		-monitor none \
		-chardev "file,id=con,path=$d/serial.log" -serial chardev:con \
		-chardev "socket,id=ctl,path=$W/ctl.sock,server=on,wait=off" -serial chardev:ctl \
		-qmp "unix:$W/qmp.sock,server=on,wait=off" \
		</dev/null >"$W/qemu.out" 2>&1 &
	QEMU_PID=$!
	wait_serial "$d/serial.log" 'inodedump-init: ready' "$BOOT_TIMEOUT" "the guest's ready marker"
	TIMINGS="${TIMINGS}boot_to_ready_s=$(elapsed "$t0")\n"
	if grep -q 'inodedump-init: FAILED' "$d/serial.log"; then
		grep 'inodedump-init: FAILED' "$d/serial.log" >&2
		die "guest init reported a failure"
	fi
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
	quit_guest "$t0"
	chmod 0644 "$d"/*.vmcore "$d"/*.flat
}

# writers_makedumpfile DIR: the chroot's and the host's makedumpfile, from
# the ELF dump of the same moment.
writers_makedumpfile() {
	local d=$1 spec name args t0
	step "ELF program headers where makedumpfile reads them (elf_fixphdr.py)"
	$PY "$HERE/elf_fixphdr.py" "$d/elf-nopaging.vmcore" "$W/fixed.elf" || die "elf_fixphdr.py"
	for spec in $WRITERS_SID_DUMPS; do
		name=${spec%%:*} args=${spec#*:} args=${args//_/ }
		step "sid makedumpfile $args -> sid-$name.vmcore"
		t0=$(now)
		# shellcheck disable=SC2086
		in_writers "$WCHROOT" makedumpfile $args "$W/fixed.elf" "$d/sid-$name.vmcore" \
			>"$W/makedumpfile-sid-$name.log" 2>&1 || {
			cat "$W/makedumpfile-sid-$name.log" >&2; die "sid makedumpfile $args"; }
		TIMINGS="${TIMINGS}makedumpfile_sid_${name}_s=$(elapsed "$t0")\n"
	done
	for spec in $WRITERS_HOST_DUMPS; do
		name=${spec%%:*} args=${spec#*:} args=${args//_/ }
		step "host makedumpfile $args -> host-$name.vmcore"
		t0=$(now)
		# shellcheck disable=SC2086
		makedumpfile $args "$W/fixed.elf" "$d/host-$name.vmcore" \
			>"$W/makedumpfile-host-$name.log" 2>&1 || {
			cat "$W/makedumpfile-host-$name.log" >&2; die "host makedumpfile $args"; }
		TIMINGS="${TIMINGS}makedumpfile_host_${name}_s=$(elapsed "$t0")\n"
	done
	rm -f "$W/fixed.elf"
	chmod 0644 "$d"/*.vmcore
}

# writers_truth DIR: truth.txt by drgn 0.3.0 (its sid chroot) from the
# chroot makedumpfile's -d 17 dump, checked against the guest's stat lines.
writers_truth() {
	local d=$1 n
	step "truth.txt from drgn $(cat "$DRGN_CHROOT/drgn-version") (sid chroot) reading sid-d17-zlib.vmcore"
	in_sid "$DRGN_CHROOT" "$d" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_truth73.py \
		/fx/vmlinux /fx/sid-d17-zlib.vmcore --stock > "$d/truth.txt" || die "drgn_truth73.py in the sid chroot"
	n=$(wc -l < "$d/truth.txt")
	[ "$n" -eq 18 ] || die "expected 18 truth lines, got $n"
	step "truth.txt agrees with the guest's own stat(1) lines"
	$PY "$HERE/stat_vs_truth.py" "$d/serial.log" "$d/truth.txt" >&2 || die "stat_vs_truth.py"
}

build_writers_set() {
	local t_all h inputs k kid612 kid73 kdir612 kdir73 d
	SET=writers
	t_all=$(now)
	mkdir -p "$CACHE"
	# one preparer at a time: the kernels and the chroots are shared
	exec 9>"$CACHE/.stock73-prepare.lock"
	flock 9
	prepare_apt73
	prepare_stock_kernel; kdir612=$KDIR; kid612=$KERNEL_ID
	prepare_stock73_kernel; kdir73=$KDIR; kid73=$KERNEL_ID
	prepare_sid_chroot; DRGN_CHROOT=$SID_CHROOT; WCHROOT=$SID_CHROOT
	exec 9>&-
	step "hash inputs"
	inputs=$(
		echo "set=writers"
		echo "$kid612"
		echo "$kid73"
		pkg_versions
		echo "sid-chroot $SID_ID"
		(cd "$HERE" && sha256sum make-fixtures.sh stock73.sh writers.sh qmp.py elf_fixphdr.py \
			init.sh drgn_truth.py drgn_truth73.py stat_vs_truth.py)
	)
	if claim_set writers "$inputs"; then echo "$OUT"; return 0; fi
	h=$SET_HASH
	mkdir -p "$WCHROOT$CACHE"
	for k in $WRITERS_KERNELS; do
		SET=writers/$k
		TIMINGS=""
		: > "$W/info.extra"
		local t_k
		t_k=$(now)
		d=$OUT/$k
		mkdir -p "$d"
		case $k in
		stock) KDIR=$kdir612 KERNEL_ID=$kid612 ;;
		stock73) KDIR=$kdir73 KERNEL_ID=$kid73 ;;
		esac
		ln -f "$KDIR/vmlinux" "$d/vmlinux" 2>/dev/null || cp "$KDIR/vmlinux" "$d/vmlinux"
		build_initramfs "$k" "$W/root" "$W/initramfs.cpio.gz"
		writers_guest "$k" "$d"
		writers_makedumpfile "$d"
		writers_truth "$d"
		step "write $k/info.txt"
		{
			echo "set=writers/$k"
			echo "release=$(cat "$KDIR/release")"
			echo "kernel=$KERNEL_ID"
			echo "hash=$h"
			echo "drgn=$(cat "$DRGN_CHROOT/drgn-version") sid_chroot=$DRGN_CHROOT"
			echo "writers_chroot=$WCHROOT"
			echo "qemu=$(in_writers "$WCHROOT" dpkg-query -W -f='${Version}' qemu-system-x86)"
			echo "makedumpfile_sid=$(in_writers "$WCHROOT" dpkg-query -W -f='${Version}' makedumpfile)"
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
	echo "total_build_s=$(elapsed "$t_all")" > "$OUT/info.txt"
	[ "${FX_KEEP_WORK:-0}" = 1 ] || rm -rf "$W"
	touch "$OUT/.complete"
	ln -sfn "$OUT" "$HERE/out/writers"
	exec 8>&-
	log "done in $(elapsed "$t_all") s: $OUT"
	echo "$OUT"
}
