# shellcheck shell=bash disable=SC2034  # the recipes and the library share these
# Fixture library, the guest: a busybox initramfs from a recipe's content
# function, the QEMU (TCG) boot with its serial ports and QMP socket,
# waiting on the console, commands on the control port, QMP dumps, the
# panic, and the default run of a set (fx_run).

# ---------------------------------------------------------------- initramfs
# fx_initramfs ROOT OUT CONTENT: ROOT with busybox in bin/ and an empty
# modules/, filled by CONTENT (a function and its words; ROOT in $ROOT),
# packed into OUT (a gzip'ed newc cpio, files in C-locale order).
fx_initramfs() {
	ROOT=$1
	local out=$2 content=$3
	step "build busybox initramfs ($content)"
	rm -rf "$ROOT"; mkdir -p "$ROOT/bin" "$ROOT/modules"
	cp "${FX_BUSYBOX:-/bin/busybox}" "$ROOT/bin/busybox"   # the arm64 sets: arm64's
	$content
	step "pack initramfs"
	(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) > "$out" || die "cpio"
}

fx_init() { install -m 755 "$1" "$ROOT/${2:-init}"; }   # SCRIPT [NAME]: the guest's /init
fx_conf() { mkdir -p "$ROOT/etc"; printf "$@" > "$ROOT/etc/fixture.conf"; }   # printf ARGS
fx_kernel_modules() {   # KDIR's modules (modules.list), into modules/; prints the list
	local m mods
	mods=$(cat "$KDIR/modules.list")
	for m in $mods; do cp "$KDIR/modules/$m.ko" "$ROOT/modules/"; done
	echo "$mods"
}
# fx_ext4 SIZE LABEL UUID [MKFS-OPTION...]: the empty ext4 image the guest fills
fx_ext4() {
	local size=$1 label=$2 uuid=$3
	shift 3
	truncate -s "$size" "$ROOT/ext4.img"
	mkfs.ext4 -q -F "$@" -L "$label" -U "$uuid" -E root_owner=0:0 "$ROOT/ext4.img" >&2 || die "mkfs.ext4"
}
# fx_static_tool SRC OUT: a guest tool (guest/*.c) built static
fx_static_tool() {
	step "build $1 (static)"
	gcc -static -O2 -Wall -Wextra -Werror -o "$2" "$HERE/$1" >&2 || die "gcc $1"
}

# fx_stock_content NAME: the stock kernels' guest: init.sh, KDIR's modules,
# fixture.conf (FX_SET=NAME) and the empty 16 MiB ext4 image it fills
fx_stock_content() {
	local mods
	fx_init "$HERE/init.sh"
	mods=$(fx_kernel_modules)
	fx_conf 'FX_SET=%s\nFX_MODULES="%s"\nFX_EXT4=1\nFX_TRIGGER=0\n' "$1" "$mods"
	step "make the (empty) ext4 image the guest fills"
	fx_ext4 16M inodedump 00000000-0000-4000-8000-00000000e4e4
}

# ---------------------------------------------------------------- QEMU
# The kernel command line of every set but debugvfs73's. no_timer_check: on
# a loaded host TCG's timer interrupts come late and the kernel's IO-APIC
# timer check panics at boot ("IO-APIC + timer doesn't work!", seen on a
# cold CI run with two guests and builds).
STD_APPEND="console=ttyS0 qemu_fw_cfg.ioport=12@0x510:0:1:4 no_timer_check"

wait_serial() {   # $1 = log, $2 = regex, $3 = timeout s, $4 = what
	local t0=$SECONDS
	while ! grep -qE "$2" "$1" 2>/dev/null; do
		# A panic we are not waiting for ends the wait now, not at the timeout.
		case $2 in
		*anic*) ;;
		*)	if grep -q 'Kernel panic - not syncing' "$1" 2>/dev/null; then
				tail -30 "$1" >&2 || true
				die "the guest panicked while we waited for $4"
			fi ;;
		esac
		if ! kill -0 "$QEMU_PID" 2>/dev/null; then
			tail -30 "$1" >&2 || true
			die "QEMU exited while waiting for $4"
		fi
		if [ $((SECONDS - t0)) -ge "$3" ]; then
			tail -30 "$1" >&2 || true
			die "timeout (${3}s) waiting for $4"
		fi
		sleep 0.2
	done
}

qmp() { python3 "$HERE/qmp.py" "$W/qmp.sock" "$@"; }

# fx_boot KERNEL MEM APPEND SERIAL [CPU [PORT]]: QEMU in the background, the
# console (ttyS0) into SERIAL, ttyS1 the control socket $W/ctl.sock, ttyS2
# the file PORT when given, QMP on $W/qmp.sock; BOOT_RUNNER (an array: the
# sid chroot's sid_run) in front when set; BOOT_EXTRA (an array: the fs
# sets' disks) after the serial ports. Sets QEMU_PID and T_BOOT.
BOOT_RUNNER=()
BOOT_EXTRA=()
fx_boot() {
	local kernel=$1 mem=$2 append=$3 serial=$4 cpu=${5:-max} port=${6:-} extra=()
	# ttyS2: the guest's raw output port, a file here (wrapped, live)
	[ -z "$port" ] || extra=(-chardev "file,id=port,path=$port" -serial chardev:port)
	rm -f "$W/qmp.sock" "$W/ctl.sock" "$serial"
	T_BOOT=$(now)
	"${BOOT_RUNNER[@]}" qemu-system-x86_64 -accel tcg,thread=multi -cpu "$cpu" \
		-smp 2,sockets=2,cores=1,threads=1 -m "$mem" \
		-nographic -no-reboot -device vmcoreinfo \
		-kernel "$kernel" -initrd "$W/initramfs.cpio.gz" \
		-append "$append" \
		-monitor none \
		-chardev "file,id=con,path=$serial" -serial chardev:con \
		-chardev "socket,id=ctl,path=$W/ctl.sock,server=on,wait=off" -serial chardev:ctl \
		"${extra[@]}" "${BOOT_EXTRA[@]}" \
		-qmp "unix:$W/qmp.sock,server=on,wait=off" \
		</dev/null >"$W/qemu.out" 2>&1 &
	QEMU_PID=$!
}

# fx_wait_ready SERIAL [TIMEOUT]: init.sh's ready marker (and no FAILED line)
fx_wait_ready() {
	wait_serial "$1" 'inodedump-init: ready' "${2:-$BOOT_TIMEOUT}" "the guest's ready marker"
	TIMINGS="${TIMINGS}boot_to_ready_s=$(elapsed "$T_BOOT")\n"
	log "guest ready after $(elapsed "$T_BOOT") s"
	if grep -q 'inodedump-init: FAILED' "$1"; then
		grep 'inodedump-init: FAILED' "$1" >&2
		die "guest init reported a failure"
	fi
}

fx_ctl() {   # CMD: one line to the guest's control port (ttyS1)
	$PY - "$W/ctl.sock" "$1" <<-'EOF' || die "send '$1' on ttyS1"
		import socket, sys, time
		s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.argv[2].encode() + b"\n")
		time.sleep(0.5); s.close()
	EOF
}

fx_panic() {   # the guest's init panics it (sysrq-c, or what its init does)
	fx_ctl panic
	wait_serial "$OUT/serial.log" 'end Kernel panic' 120 "the panic"
}

# fx_qmp_dumps DIR: the three QMP dumps every single-kernel set has
fx_qmp_dumps() {
	local t
	step "QMP dump elf-nopaging.vmcore"
	t=$(qmp dump "$1/elf-nopaging.vmcore") || die "qmp dump elf-nopaging"
	TIMINGS="${TIMINGS}dump_elf_nopaging_s=$t\n"
	step "QMP dump elf-paging.vmcore"
	t=$(qmp dump "$1/elf-paging.vmcore" --paging) || die "qmp dump elf-paging"
	TIMINGS="${TIMINGS}dump_elf_paging_s=$t\n"
	step "QMP dump qemu-kdump-zlib.flat"
	t=$(qmp dump "$1/qemu-kdump-zlib.flat" --format kdump-zlib) || die "qmp dump kdump-zlib"
	TIMINGS="${TIMINGS}dump_qemu_kdump_zlib_s=$t\n"
}

quit_guest() {   # $1 = boot start time
	step "quit QEMU"
	qmp quit || true
	for _ in $(seq 1 100); do kill -0 "$QEMU_PID" 2>/dev/null || break; sleep 0.1; done
	kill "$QEMU_PID" 2>/dev/null || true
	wait "$QEMU_PID" 2>/dev/null || true
	QEMU_PID=
	TIMINGS="${TIMINGS}qemu_total_s=$(elapsed "$1")\n"
}

# fx_run: the default run of a set, from the recipe's
#   BOOT_KERNEL  KDIR's file to boot (vmlinuz, bzImage)
#   BOOT_MEM     MiB; BOOT_CPU (default max); BOOT_APPEND the command line
#   BOOT_PORT    a file in OUT for ttyS2 (optional)
#   BOOT_FN      the boot function (default fx_boot; the arm64 sets: fx_boot_arm64)
#   PANIC        last: the QMP dumps, then the panic and panic.vmcore;
#                first: the panic, then the QMP dumps; none
#   PANIC_FN     the panic's function (default fx_panic; s390x: fx_panic_s390x)
#   recipe_ready / recipe_panicked   checks after the ready marker / the panic
fx_run() {
	local t
	step "boot QEMU (TCG, ${BOOT_MEM} MiB)"
	"${BOOT_FN:-fx_boot}" "$KDIR/$BOOT_KERNEL" "$BOOT_MEM" "$BOOT_APPEND" "$OUT/serial.log" "${BOOT_CPU:-max}" \
		"${BOOT_PORT:+$OUT/$BOOT_PORT}"
	fx_wait_ready "$OUT/serial.log" "${BOOT_WAIT:-$BOOT_TIMEOUT}"
	! declare -F recipe_ready >/dev/null || recipe_ready
	if [ "$PANIC" = first ]; then
		step "panic the guest"
		"${PANIC_FN:-fx_panic}"
		! declare -F recipe_panicked >/dev/null || recipe_panicked
		sleep 1
	fi
	fx_qmp_dumps "$OUT"
	if [ "$PANIC" = last ]; then
		step "panic the guest (sysrq-c) and dump panic.vmcore"
		"${PANIC_FN:-fx_panic}"
		sleep 1
		t=$(qmp dump "$OUT/panic.vmcore") || die "qmp dump panic"
		TIMINGS="${TIMINGS}dump_panic_s=$t\n"
	fi
	quit_guest "$T_BOOT"
	chmod 0644 "$OUT"/*.vmcore "$OUT"/*.flat
}

# ---------------------------------------------------------------- a wrapped log
# fx_kmsg_fill -> KMSG_FILL, KMSG_POSITION: what fxtool writes to /dev/kmsg
# before the trigger, from the kernel's own CONFIG_LOG_BUF_SHIFT: 2^shift /
# 16 records of ~190 bytes (fxtool's mix) fill the 2^shift-byte data ring
# about 11 times and its 2^(shift-5) descriptors twice (shift 17: 8192
# records, ~1.5 MB, 128 KiB ring, 4096 descriptors). With 2 CPUs
# CONFIG_LOG_CPU_MAX_BUF_SHIFT=12 adds nothing (4 KiB extra is below half
# the ring), so the ring is 2^shift bytes.
KMSG_BACK=88
fx_kmsg_fill() {
	local shift
	shift=$(sed -n 's/^CONFIG_LOG_BUF_SHIFT=//p' "$KDIR/config")
	[ -n "$shift" ] || die "no CONFIG_LOG_BUF_SHIFT in $KDIR/config"
	KMSG_FILL=$(( (1 << shift) / 16 ))
	log "CONFIG_LOG_BUF_SHIFT=$shift: ${KMSG_FILL} filler records"
	# Then put the data ring's head KMSG_BACK bytes before the end of the
	# array (fxtool kmsg-position, reading head_lpos through /proc/kcore at
	# these offsets). The trigger's first records are "loading out-of-tree
	# module taints kernel." (a 72-byte block) and the first report (96):
	# the taint message ends 16 bytes before the end, so the report's block
	# wraps (without the taint message it would start 88 bytes before the end
	# and wrap too). The wrapped recipe checks it and boots again if not.
	local offs
	offs=$($PY - "$KDIR/vmlinux" <<-'EOF'
		import sys, drgn
		prog = drgn.Program()
		prog.load_debug_info([sys.argv[1]])
		t = prog.type("struct printk_ringbuffer")
		print(drgn.offsetof(t, "text_data_ring.head_lpos"),
		      drgn.offsetof(t, "text_data_ring.size_bits"))
	EOF
	) || die "offsets of struct printk_ringbuffer from $KDIR/vmlinux"
	KMSG_POSITION="$offs $KMSG_BACK"
	log "kmsg-position: head_lpos/size_bits offsets and back = $KMSG_POSITION"
}
kmsg_key() { echo "fill=$KMSG_FILL position=$KMSG_POSITION"; }   # its FX_KEY line

# fx_debug_vmlinux VMLINUX OUT: a debug-only vmlinux, compressed, without the
# DWARF sections neither drgn nor a type reader needs, packed by
# elf_pack_debug.py (the live set's guest copy; make-committed.sh's)
fx_debug_vmlinux() {
	local tmp=${W:-$(dirname "$2")}/vmlinux.debug.$$
	objcopy --only-keep-debug --compress-debug-sections=zlib \
		--remove-section=.debug_loclists --remove-section=.debug_rnglists \
		--remove-section=.debug_frame --remove-section=.debug_aranges \
		--remove-section=.debug_loc --remove-section=.debug_ranges \
		"$1" "$tmp" || die "objcopy --only-keep-debug"
	$PY "$HERE/elf_pack_debug.py" "$tmp" "$2" >&2 || die "elf_pack_debug.py"
	rm -f "$tmp"
}
