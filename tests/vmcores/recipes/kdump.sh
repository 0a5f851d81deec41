# shellcheck shell=bash disable=SC2034  # the library reads these variables
# The kdump sets' shared recipe (kdump73.sh, kdump612.sh source it): a real
# kdump capture, the pipeline a machine with kdump-tools runs. The first
# kernel boots with crashkernel=; its /init (kdump/load.sh) loads the same
# kernel image and a capture initramfs with Debian 12's `kexec -p`, then
# runs the set's own init; the host's word panics it; the capture kernel's
# /init (kdump/capture.sh) runs Debian 12's makedumpfile (and vmcore-dmesg)
# on /proc/vmcore, writing kdump-tools' and RHEL's /var/crash layouts to a
# virtio disk (an ext4 image). The host reads the files out of the image
# with debugfs (no mount) into var-crash/ and keeps the image. No QEMU dump,
# no host makedumpfile. README.md, "The kdump sets".
KDUMP_DIR=$HERE/kdump
# Debian 12's kexec-tools and makedumpfile, unpacked from their .debs (not
# installed: kexec-tools' postinst sets up kdump), with every package that
# holds a library they load (fx_elf_closure fails on a missing one).
KDUMP_DEBS="kexec-tools makedumpfile libc6 zlib1g liblzma5 libbz2-1.0 libelf1 libdw1 liblzo2-2
	libxenmisc4.17 libxencall1 libxendevicemodel1 libxenevtchn1 libxenforeignmemory1 libxengnttab1
	libxentoollog1 libxentoolcore1"
KDUMP_LOAD_BINS="/sbin/kexec"
KDUMP_CAPTURE_BINS="/usr/bin/makedumpfile /sbin/vmcore-dmesg"
# kdump-tools' KDUMP_CMDLINE_APPEND (Debian 12) without its systemd unit,
# with reset_devices (RHEL's); the rest (console=ttyS0, no_timer_check)
# comes from the first kernel's command line, as kdump-tools takes it.
KDUMP_CMDLINE_APPEND="reset_devices nr_cpus=1 irqpoll nousb"
# What the capture kernel writes, in this order (capture.sh): kdump-tools'
# default (-c -d 31), RHEL's default core_collector (-l --message-level 7
# -d 31), both again at -d 17 (zero and free pages only: slab pages kept).
KDUMP_CAPTURES="kdump-tools -c_-d_31;rhel -l_--message-level_7_-d_31;rhel -l_--message-level_7_-d_17;kdump-tools -c_-d_17"
KDUMP_NCAPTURES=4
KDUMP_DISK_SIZE=1G
KDUMP_TIMEOUT=${FX_KDUMP_TIMEOUT:-1200}
FX_INFO_SIZES="kdump-disk.img vmlinux"   # and var-crash/ (recipe_info)
MAKEDUMPFILE=""

kdump_key() {
	# shellcheck disable=SC2086
	fx_debs_candidates $KDUMP_DEBS
	echo "kdump: append=$KDUMP_CMDLINE_APPEND captures=$KDUMP_CAPTURES disk=$KDUMP_DISK_SIZE"
}

# kdump_content INIT: the first kernel's guest: kdump/load.sh as /init,
# INIT (the set's own) as /init.next, kexec and its libraries, the kernel
# image and the capture initramfs in /kdump
kdump_content() {
	local first=$ROOT
	fx_init "$KDUMP_DIR/load.sh"
	fx_init "$1" init.next
	step "unpack Debian 12's kexec-tools, makedumpfile and their libraries"
	# shellcheck disable=SC2086
	[ -d "$W/kdump-sysroot" ] || fx_deb_sysroot "$W/kdump-sysroot" $KDUMP_DEBS
	# shellcheck disable=SC2086
	fx_elf_closure "$W/kdump-sysroot" "$ROOT" $KDUMP_LOAD_BINS
	fx_initramfs "$W/capture-root" "$W/capture.cpio.gz" kdump_capture_content
	ROOT=$first
	mkdir -p "$ROOT/kdump" "$ROOT/etc"
	cp "$KDIR/$BOOT_KERNEL" "$ROOT/kdump/vmlinuz"
	cp "$W/capture.cpio.gz" "$ROOT/kdump/initrd.img"
	printf 'KDUMP_KERNEL=/kdump/vmlinuz\nKDUMP_INITRD=/kdump/initrd.img\nKDUMP_CMDLINE_APPEND="%s"\n' \
		"$KDUMP_CMDLINE_APPEND" > "$ROOT/etc/kdump.conf"
	step "back to the first kernel's initramfs"
}
# the capture initramfs: kdump/capture.sh as /init, makedumpfile and
# vmcore-dmesg with their libraries, KDUMP_CAPTURE_MODULES (KDIR's modules)
kdump_capture_content() {
	local m
	fx_init "$KDUMP_DIR/capture.sh"
	# shellcheck disable=SC2086
	fx_elf_closure "$W/kdump-sysroot" "$ROOT" $KDUMP_CAPTURE_BINS
	for m in ${KDUMP_CAPTURE_MODULES:-}; do cp "$KDIR/modules/$m.ko" "$ROOT/modules/"; done
	mkdir -p "$ROOT/etc"
	printf 'CAPTURE_MODULES="%s"\nCAPTURES="%s"\n' "${KDUMP_CAPTURE_MODULES:-}" "$KDUMP_CAPTURES" > "$ROOT/etc/capture.conf"
}

# kdump_wait_capture T0: the capture kernel's done marker on the console (a
# FAILED line, a second panic or QEMU's exit ends the wait); when its /init
# starts, panic_to_capture_init_s (from T0) into TIMINGS
kdump_wait_capture() {
	local t0=$SECONDS con started=""
	while :; do
		con=$(tr -d '\r' < "$OUT/serial.log")
		if [ -z "$started" ] && grep -q '^inodedump-kdump: capture kernel' <<<"$con"; then
			started=1
			TIMINGS="${TIMINGS}panic_to_capture_init_s=$(elapsed "$1")\n"
			log "the capture kernel's /init runs, $(elapsed "$1") s after the panic"
		fi
		if grep -q 'inodedump-kdump: FAILED' <<<"$con"; then
			grep 'inodedump-kdump: FAILED' <<<"$con" >&2; tail -30 "$OUT/serial.log" >&2
			die "the capture kernel reported a failure"
		fi
		grep -q '^inodedump-kdump: done captures=' <<<"$con" && return 0
		if [ -n "$started" ] && sed -n '/^inodedump-kdump: capture kernel/,$p' <<<"$con" |
			grep -q 'Kernel panic - not syncing'; then
			tail -40 "$OUT/serial.log" >&2; die "the capture kernel panicked"
		fi
		if ! kill -0 "$QEMU_PID" 2>/dev/null; then
			tail -40 "$OUT/serial.log" >&2; die "QEMU exited before the capture was done"
		fi
		if [ $((SECONDS - t0)) -ge "$KDUMP_TIMEOUT" ]; then
			tail -40 "$OUT/serial.log" >&2; die "timeout (${KDUMP_TIMEOUT}s) waiting for the capture"
		fi
		sleep 1
	done
}

recipe_run() {
	local t0 line
	step "make the dump disk (ext4, $KDUMP_DISK_SIZE sparse)"
	truncate -s "$KDUMP_DISK_SIZE" "$W/crash.img"
	mkfs.ext4 -q -F -L kdump -U 00000000-0000-4000-8000-00000000cdcd -E root_owner=0:0 "$W/crash.img" >&2 ||
		die "mkfs.ext4"
	BOOT_EXTRA=(-drive "file=$W/crash.img,if=virtio,format=raw")
	step "boot QEMU (TCG, $BOOT_MEM MiB, $BOOT_APPEND)"
	fx_boot "$KDIR/$BOOT_KERNEL" "$BOOT_MEM" "$BOOT_APPEND" "$OUT/serial.log" "${BOOT_CPU:-max}"
	fx_wait_ready "$OUT/serial.log" "$BOOT_TIMEOUT"
	KDUMP_LOADED=$(tr -d '\r' < "$OUT/serial.log" | grep -m1 '^inodedump-kdump: loaded=' || true)
	[ "${KDUMP_LOADED#inodedump-kdump: loaded=}" != "${KDUMP_LOADED#inodedump-kdump: loaded=1 }" ] ||
		{ grep 'inodedump-kdump' "$OUT/serial.log" >&2; die "kexec -p did not load the capture kernel"; }
	log "${KDUMP_LOADED#inodedump-kdump: }"
	! declare -F recipe_ready >/dev/null || recipe_ready
	step "panic the guest: the capture kernel saves the dumps"
	t0=$(now)
	fx_ctl panic
	# (no wait for "Kernel panic": an oops with oops=panic enters the
	# capture kernel from oops_end() before panic() prints it)
	kdump_wait_capture "$t0"
	! declare -F recipe_panicked >/dev/null || recipe_panicked
	TIMINGS="${TIMINGS}panic_to_capture_done_s=$(elapsed "$t0")\n"
	log "capture done $(elapsed "$t0") s after the panic"
	quit_guest "$T_BOOT"

	step "read the dumps out of the disk image (debugfs, no mount)"
	: > "$OUT/dumps.txt"
	tr -d '\r' < "$OUT/serial.log" | grep '^inodedump-kdump: wrote ' > "$W/wrote.txt" || true
	[ "$(wc -l < "$W/wrote.txt")" -eq "$KDUMP_NCAPTURES" ] ||
		die "expected $KDUMP_NCAPTURES 'wrote' lines from the capture kernel, got $(wc -l < "$W/wrote.txt")"
	debugfs -R 'ls -l /var/crash' "$W/crash.img" > "$OUT/var-crash.ls" 2>/dev/null || die "debugfs ls /var/crash"
	while read -r line; do
		local layout args dump dmesg dump_s dmesg_s f
		layout=$(kdump_field layout "$line") args=$(kdump_field args "$line")
		dump=$(kdump_field dump "$line") dmesg=$(kdump_field dmesg "$line")
		dump_s=$(kdump_field dump_s "$line") dmesg_s=$(kdump_field dmesg_s "$line")
		for f in "$dump" "$dmesg"; do
			mkdir -p "$OUT/var-crash/$(dirname "${f#/var/crash/}")"
			debugfs -R "dump -p $f $OUT/var-crash/${f#/var/crash/}" "$W/crash.img" 2>"$W/debugfs.err" ||
				{ cat "$W/debugfs.err" >&2; die "debugfs dump $f"; }
			[ -s "$OUT/var-crash/${f#/var/crash/}" ] || die "debugfs dump $f: empty or missing"
		done
		echo "layout=$layout args=$args dump=var-crash/${dump#/var/crash/} dmesg=var-crash/${dmesg#/var/crash/}" >> "$OUT/dumps.txt"
		f=${args#*-d_}
		TIMINGS="${TIMINGS}capture_${layout}_d${f%%_*}_dump_s=$dump_s\ncapture_${layout}_d${f%%_*}_dmesg_s=$dmesg_s\n"
	done < "$W/wrote.txt"
	chmod 0644 "$OUT"/var-crash/*/*
	step "keep the disk image (sparse)"
	cp --sparse=always "$W/crash.img" "$OUT/kdump-disk.img"
}
kdump_field() {   # NAME LINE: the value of NAME=... in a 'wrote' line
	local w
	for w in $2; do case $w in "$1="*) echo "${w#*=}"; return ;; esac; done
}
recipe_info() {
	# shellcheck disable=SC2086
	printf 'kdump_%s\n' ${KDUMP_LOADED#inodedump-kdump: }   # kdump_loaded=1 kdump_kexec=...
	# shellcheck disable=SC2086
	echo "kdump_debs=$(fx_debs_candidates $KDUMP_DEBS | grep -E '^(kexec-tools|makedumpfile)=' | tr '\n' ' ' | sed 's/ $//')"
	! declare -F kdump_recipe_info >/dev/null || kdump_recipe_info
	local f
	for f in "$OUT"/var-crash/*/*; do echo "size_${f#"$OUT"/}=$(stat -c %s "$f")"; done
	echo "disk_image_allocated_bytes=$(( $(stat -c %b "$OUT/kdump-disk.img") * $(stat -c %B "$OUT/kdump-disk.img") ))"
}
