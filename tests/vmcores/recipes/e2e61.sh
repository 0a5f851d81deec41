# shellcheck shell=bash disable=SC2034  # the library reads these variables
# e2e61: the end-to-end kdump-tools test of issue 43 (item 2) on Debian 12's
# stock 6.1. A real Debian 12 system image (the Debian 12 root of
# tests/systemd/rootfs.sh, plus linux-image-amd64, kdump-tools, udev),
# this tree's packages installed with apt and the README's enable line for
# the triage units, booted under QEMU TCG with no input at all: first boot
# (kdump-tools builds its kdump initrd and loads it), the guest's own unit
# writes truth lines and panics it (sysrq-c), kdump-tools' capture kernel
# saves /var/crash/STAMP/ (`makedumpfile -F -c -d 31`) and reboots, on the
# second boot inodedump-triage.service writes its results beside the dump
# and the guest powers itself off. The host reads the disk image offline.
#
# Two parts (README.md, "The e2e61 set"):
#   capture  $CACHE/e2e61-capture-H: the image, both boots, the dump, the
#            results of that run. H: the packages' versions (kernel,
#            kdump-tools, ...), the Debian 12 root, debian/, systemd/, this
#            recipe and the guest's files. Not the C sources: the
#            packages installed there are recorded (capture/debs.txt).
#   set      fixtures-e2e61-K (per commit; K adds the source tree's digest):
#            this tree's packages built (scripts/build-debs.sh, build only),
#            installed offline (dpkg -i in a chroot on the loop-mounted
#            image) into a copy of the capture image with the results
#            removed; one boot: the units triage the dump with nobody
#            typing; the guest powers off; results, journal, console read.
E2E_DIR=$HERE/e2e
E2E_SRC=$(cd "$HERE/../.." && pwd)
# kdump-tools with what it recommends and uses: makedumpfile (only a
# Recommends: without it the capture writes a 0-byte dump and kdump-tools
# still says "saved vmcore"), procps (kdump-config's sysctl), zstd
# (initramfs-tools-core's Recommends: the initrds' compressor); udev.
E2E_PACKAGES="linux-image-amd64 kdump-tools makedumpfile procps zstd udev"
# this tree's packages that go into the image: the command and its library
# (the triage units are the command's)
E2E_DEBS="libinodedump0 inodedump"
E2E_KEYDEBS="linux-image-amd64 kdump-tools kexec-tools makedumpfile systemd udev initramfs-tools qemu-system-x86"
E2E_MEM=${FX_E2E_MEM:-1024}
E2E_DISK=3G
E2E_TIMEOUT=${FX_E2E_TIMEOUT:-2700}
E2E_TRIAGE_TIMEOUT=${FX_E2E_TRIAGE_TIMEOUT:-900}
FX_KEY="set call:e2e_key"
E2E_SUMS="make-fixtures.sh recipes/e2e61.sh e2e/guest.sh e2e/inodedump-e2e.service ../systemd/rootfs.sh"

# e2e_tree_digest DIR...: one digest over the tracked (and new, not
# ignored) files under these paths of the source tree
e2e_tree_digest() {
	(cd "$E2E_SRC" && git ls-files -z -co --exclude-standard -- "$@" |
		sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16
}
e2e_capture_inputs() {
	# shellcheck disable=SC2086
	fx_debs_candidates $E2E_KEYDEBS
	# shellcheck disable=SC2086
	fx_sums $E2E_SUMS
	echo "packaging debian/ systemd/ $(e2e_tree_digest debian systemd)"
	echo "mem=$E2E_MEM disk=$E2E_DISK packages=$E2E_PACKAGES debs=$E2E_DEBS"
}
e2e_key() {
	# the capture part's inputs (`make-fixtures.sh inputs e2e61` shows
	# them), its directory's hash, then this tree's
	e2e_capture_inputs | sed 's/^/capture: /'
	echo "capture $(e2e_capture_inputs | hash16)"
	# what the packages are built from: everything but the tests
	echo "source $(e2e_tree_digest . ':!tests' ':!bench')"
}

recipe_prepare() {
	KERNEL_ID="e2e61"
	E2E_CAPTURE=$CACHE/e2e61-capture-$(e2e_capture_inputs | hash16)
}

# e2e_build_debs OUTDIR: this tree's five packages, built in build-debs.sh's
# clean Debian 12 chroot (cached), without its lintian and install checks
e2e_build_debs() {
	step "build this tree's packages (scripts/build-debs.sh, build only)"
	local t0
	t0=$(now)
	INODEDUMP_DEBS_BUILD_ONLY=1 INODEDUMP_CACHE=$CACHE nice "$E2E_SRC/scripts/build-debs.sh" "$1" >&2 ||
		die "scripts/build-debs.sh"
	TIMINGS="${TIMINGS}build_debs_s=$(elapsed "$t0")\n"
	ls "$1"/*.deb >/dev/null || die "no .deb in $1"
}

# e2e_copy_debs FROM TO: the E2E_DEBS packages of FROM into TO
e2e_copy_debs() {
	local p
	for p in $E2E_DEBS; do
		cp "$1/${p}_"*.deb "$2/" || die "no ${p}_*.deb in $1"
	done
}

# e2e_chroot ROOT CMD...: CMD in ROOT with proc, sys and dev of its own
# mount namespace (gone with the command); no service starts (policy-rc.d)
e2e_chroot() {
	local root=$1; shift
	unshare --mount --propagation private sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && mount -t sysfs sysfs "$r/sys" &&
		mount --bind /dev "$r/dev" && mount --bind /dev/pts "$r/dev/pts" &&
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' sh "$root" "$@"
}

# e2e_image_base ROOT: the Debian 12 system in ROOT, without this tree's
# packages (they build meanwhile)
e2e_image_base() {
	local root=$1 base t0
	step "the Debian 12 root (tests/systemd/rootfs.sh, cached) copied"
	t0=$(now)
	base=$(INODEDUMP_CACHE=$CACHE "$HERE/../systemd/rootfs.sh") || die "tests/systemd/rootfs.sh"
	rm -rf "$root"
	cp -a "$base" "$root"
	rm -f "$root/.complete"
	TIMINGS="${TIMINGS}root_copy_s=$(elapsed "$t0")\n"
	step "apt: $E2E_PACKAGES (the kernel first: kdump-tools' kernel hook cannot run in a chroot)"
	t0=$(now)
	# the host's own sources (bookworm, -updates, -security): no mirror here
	rm -f "$root/etc/apt/sources.list"
	cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/"
	printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
	chmod +x "$root/usr/sbin/policy-rc.d"
	echo 'Dpkg::Use-Pty "0";' > "$root/etc/apt/apt.conf.d/99inodedump-nopty"
	e2e_chroot "$root" apt-get update -qq >&2 || die "apt-get update in the image"
	e2e_chroot "$root" apt-get install -y -qq --no-install-recommends initramfs-tools zstd >&2 ||
		die "apt-get install initramfs-tools"
	# The boot initrd made once, at the end, by initramfs-tools itself, not
	# by each package's trigger (three times, ~20 s each): its own switch,
	# update_initramfs=no in its conffile, for the installs, then put back.
	local conf=$root/etc/initramfs-tools/update-initramfs.conf
	cp "$conf" "$W/update-initramfs.conf" || die "no $conf"
	sed -i 's/^update_initramfs=.*/update_initramfs=no/' "$conf"
	e2e_chroot "$root" apt-get install -y -qq --no-install-recommends linux-image-amd64 >&2 ||
		die "apt-get install linux-image-amd64"
	# the administrator's answer to kdump-tools' debconf question
	echo 'kdump-tools kdump-tools/use_kdump boolean true' | e2e_chroot "$root" debconf-set-selections ||
		die "debconf-set-selections"
	e2e_chroot "$root" apt-get install -y -qq --no-install-recommends kdump-tools makedumpfile procps udev >&2 ||
		die "apt-get install kdump-tools"
	cp "$W/update-initramfs.conf" "$conf"
	E2E_RELEASE=$(cd "$root/boot" && ls vmlinuz-* | sed 's/^vmlinuz-//' | sort -V | tail -1)
	rm -f "$root/boot/initrd.img-$E2E_RELEASE"
	e2e_chroot "$root" update-initramfs -c -k "$E2E_RELEASE" >&2 || die "update-initramfs -c"
	TIMINGS="${TIMINGS}apt_kernel_kdump_s=$(elapsed "$t0")\n"
}

# e2e_image_debs ROOT DEBS: this tree's packages and the guest's unit in ROOT
e2e_image_debs() {
	local root=$1 debs=$2 t0 d
	step "apt install this tree's packages; the README's enable line"
	t0=$(now)
	mkdir -p "$root/tmp/debs"
	e2e_copy_debs "$debs" "$root/tmp/debs"
	# shellcheck disable=SC2046
	e2e_chroot "$root" apt-get install -y -qq --no-install-recommends \
		$(cd "$root" && ls tmp/debs/*.deb | sed 's|^|/|') >&2 || die "apt install ./*.deb"
	rm -rf "$root/tmp/debs"
	e2e_chroot "$root" systemctl enable inodedump-triage.path inodedump-triage.service >&2 ||
		die "systemctl enable (the README's line)"
	e2e_chroot "$root" dpkg-query -W -f='${Package}=${Version}\n' linux-image-amd64 kdump-tools \
		kexec-tools makedumpfile systemd libinodedump0 inodedump python3-inodedump crash-inodedump \
		> "$W/image-packages.txt" 2>/dev/null || true
	TIMINGS="${TIMINGS}apt_debs_s=$(elapsed "$t0")\n"
	step "the guest's unit, fstab, persistent journal, crash directory"
	install -m 755 "$E2E_DIR/guest.sh" "$root/usr/local/sbin/inodedump-e2e"
	install -m 644 "$E2E_DIR/inodedump-e2e.service" "$root/etc/systemd/system/"
	e2e_chroot "$root" systemctl enable inodedump-e2e.service >&2 || die "enable inodedump-e2e.service"
	printf '/dev/vda / ext4 rw,errors=remount-ro 0 0\n' > "$root/etc/fstab"
	mkdir -p "$root/var/log/journal" "$root/var/crash"
	rm -f "$root/usr/sbin/policy-rc.d" "$root/etc/apt/apt.conf.d/99inodedump-nopty"
	rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*_Packages
	# kdump-tools' own crashkernel= (its GRUB drop-in: no GRUB here)
	d=$(sed -n 's/.*\(crashkernel=[^ "]*\).*/\1/p' "$root/etc/default/grub.d/kdump-tools.cfg" | head -1)
	[ -n "$d" ] || die "no crashkernel= in the image's /etc/default/grub.d/kdump-tools.cfg"
	E2E_CRASHKERNEL=$d
	[ -f "$root/boot/initrd.img-$E2E_RELEASE" ] || die "no initrd.img-$E2E_RELEASE in the image"
	log "kernel $E2E_RELEASE, $E2E_CRASHKERNEL"
}

# e2e_boot DISK SERIAL KERNEL INITRD WHAT TIMEOUT: one QEMU run of the image
# with no input: console into a file, no monitor, no QMP, no network; the
# guest powers itself off (or reboots: kdump), so QEMU runs until that
# poweroff. The command line goes to OUT/qemu-WHAT.cmdline.
e2e_boot() {
	local disk=$1 serial=$2 kernel=$3 initrd=$4 what=$5 timeout=$6 t0 cmd
	# shellcheck disable=SC2054  # the commas are QEMU's
	cmd=(qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2,sockets=2,cores=1,threads=1
		-m "$E2E_MEM" -display none -monitor none -nic none -no-user-config
		-chardev "file,id=con,path=$serial" -serial chardev:con
		-drive "file=$disk,if=virtio,format=raw"
		-kernel "$kernel" -initrd "$initrd"
		-append "root=/dev/vda rw console=ttyS0 $E2E_CRASHKERNEL no_timer_check")
	printf '%s\n' "${cmd[@]}" > "$OUT/qemu-$what.cmdline"
	rm -f "$serial"
	t0=$(now)
	nice "${cmd[@]}" </dev/null >"$W/qemu-$what.out" 2>&1 &
	QEMU_PID=$!
	E2E_MARKS=""
	e2e_watch "$serial" "$t0" "$timeout" "$what"
	wait "$QEMU_PID"; E2E_QEMU_RC=$?
	QEMU_PID=
	echo "$E2E_QEMU_RC" > "$OUT/qemu-$what.rc"
	TIMINGS="${TIMINGS}${what}_qemu_total_s=$(elapsed "$t0")\n"
	log "$what: QEMU exited $E2E_QEMU_RC after $(elapsed "$t0") s"
}

# e2e_watch SERIAL T0 TIMEOUT WHAT: until QEMU exits, the time at which each
# milestone first shows on the console (into TIMINGS); a timeout kills it
e2e_watch() {
	local serial=$1 t0=$2 timeout=$3 what=$4 m name re
	local marks="kernel_start:Linux version
kdump_loaded:inodedump-e2e: kdump loaded
truth_done:inodedump-e2e: release
panic:sysrq: Trigger a crash
capture_kernel:inodedump-e2e-never-printed
capture_saved:kdump-tools: saved vmcore in
capture_reboot:kdump-tools: Rebooting
triage_done:inodedump-e2e: boot
poweroff:inodedump-e2e: poweroff"
	while kill -0 "$QEMU_PID" 2>/dev/null; do
		while IFS=: read -r name re; do
			case " $E2E_MARKS " in *" $name "*) continue ;; esac
			if grep -qF -- "$re" "$serial" 2>/dev/null; then
				E2E_MARKS="$E2E_MARKS $name"
				TIMINGS="${TIMINGS}${what}_${name}_s=$(elapsed "$t0")\n"
				log "$what: $name after $(elapsed "$t0") s"
			fi
		done <<<"$marks"
		if grep -q 'inodedump-e2e: FAILED' "$serial" 2>/dev/null; then
			grep 'inodedump-e2e: FAILED' "$serial" >&2
		fi
		if [ "$(elapsed "$t0" | cut -d. -f1)" -ge "$timeout" ]; then
			tail -40 "$serial" >&2
			kill "$QEMU_PID"
			die "$what: timeout (${timeout}s) before the guest powered off"
		fi
		sleep 2
	done
}

# e2e_read DISK DIR: what the host reads from the image, offline (debugfs,
# no mount): /var/crash, the journal, the guest's truth
e2e_read() {
	local disk=$1 dir=$2
	rm -rf "$dir"; mkdir -p "$dir"
	debugfs -R "rdump /var/crash $dir" "$disk" 2>"$W/debugfs.err" || { cat "$W/debugfs.err" >&2; die "debugfs rdump /var/crash"; }
	debugfs -R "rdump /var/log/journal $dir" "$disk" 2>"$W/debugfs.err" || { cat "$W/debugfs.err" >&2; die "debugfs rdump /var/log/journal"; }
	debugfs -R "dump /var/lib/inodedump-e2e/truth.txt $dir/truth.txt" "$disk" 2>/dev/null || true
	mv "$dir/crash" "$dir/var-crash"
	chmod -R u+rwX,go+rX "$dir"
}

# e2e_capture: the cached capture part ($E2E_CAPTURE)
e2e_capture() {
	local C=$E2E_CAPTURE t0
	exec 7>"$CACHE/.e2e61-capture.lock"
	flock 7
	if [ -f "$C/.complete" ]; then
		log "reusing the capture image $C"
		exec 7>&-
		return 0
	fi
	log "building the capture image $C"
	rm -rf "$C" "$C.tmp"; mkdir -p "$C.tmp"
	local OUT=$C.tmp pid rc=0
	# the packages build (a compiler) while the image's packages download
	# and unpack (network, dpkg): both at once
	( TIMINGS=""; e2e_build_debs "$W/capture-debs"; printf '%b' "$TIMINGS" > "$W/debs-timing" ) \
		> "$W/build-debs.log" 2>&1 &
	pid=$!
	e2e_image_base "$W/root"
	step "wait for this tree's packages"
	t0=$(now)
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || { tail -40 "$W/build-debs.log" >&2; die "scripts/build-debs.sh (log above)"; }
	TIMINGS="${TIMINGS}$(cat "$W/debs-timing")\nwaited_for_debs_s=$(elapsed "$t0")\n"
	e2e_image_debs "$W/root" "$W/capture-debs"
	cp "$W/image-packages.txt" "$OUT/debs.txt"
	(cd "$W/capture-debs" && sha256sum ./*.deb) >> "$OUT/debs.txt"
	cp "$W/root/boot/vmlinuz-$E2E_RELEASE" "$OUT/vmlinuz"
	cp "$W/root/boot/initrd.img-$E2E_RELEASE" "$OUT/initrd.img"
	echo "$E2E_RELEASE" > "$OUT/release"
	echo "$E2E_CRASHKERNEL" > "$OUT/crashkernel"
	step "the disk image (mkfs.ext4 -d, $E2E_DISK sparse)"
	t0=$(now)
	truncate -s "$E2E_DISK" "$OUT/disk.img"
	mkfs.ext4 -q -F -L root -d "$W/root" "$OUT/disk.img" >&2 || die "mkfs.ext4 -d"
	rm -rf "$W/root"
	TIMINGS="${TIMINGS}mkfs_s=$(elapsed "$t0")\n"
	step "boot 1 (kdump initrd built by kdump-tools, truth, panic), capture, boot 2 (triage), poweroff"
	e2e_boot "$OUT/disk.img" "$OUT/serial.log" "$OUT/vmlinuz" "$OUT/initrd.img" capture "$E2E_TIMEOUT"
	step "read the capture image offline"
	e2e_read "$OUT/disk.img" "$OUT/read"
	printf '%b' "$TIMINGS" > "$OUT/timings.txt"
	fx_sparse "$OUT"
	touch "$OUT/.complete"
	mv "$OUT" "$C"
	exec 7>&-
}

recipe_build() {
	local t0 mnt d
	e2e_capture
	E2E_CRASHKERNEL=$(cat "$E2E_CAPTURE/crashkernel")
	cp "$E2E_CAPTURE/timings.txt" "$OUT/capture-timings.txt"
	mkdir -p "$OUT/capture"
	cp -a "$E2E_CAPTURE/read/." "$OUT/capture/"
	cp "$E2E_CAPTURE/serial.log" "$E2E_CAPTURE/debs.txt" "$E2E_CAPTURE/release" "$E2E_CAPTURE"/qemu-*.cmdline \
		"$E2E_CAPTURE"/qemu-*.rc "$OUT/capture/"
	TIMINGS=""
	T_ALL=$(now)
	if [ -d "$W/capture-debs" ]; then
		# the capture part was built in this run, from this same tree
		log "the packages the capture part just built are this tree's"
		mv "$W/capture-debs" "$W/debs"
		TIMINGS="${TIMINGS}build_debs_s=0 (built for the capture part, this run)\n"
	else
		e2e_build_debs "$W/debs"
	fi
	step "copy the capture image, results removed, this tree's packages installed offline"
	t0=$(now)
	cp --sparse=always "$E2E_CAPTURE/disk.img" "$W/disk.img"
	mnt=$W/mnt; mkdir -p "$mnt"
	mount -o loop "$W/disk.img" "$mnt" || die "mount -o loop"
	for d in "$mnt"/var/crash/*/; do rm -f "$d"inodedump.json "$d"inodedump.txt "$d"*.inodedump.json "$d"*.inodedump.txt; done
	# the capture run's journal stays in the capture part: this one's alone
	rm -rf "$mnt/var/log/journal/"*/
	mkdir -p "$mnt/tmp/debs"
	e2e_copy_debs "$W/debs" "$mnt/tmp/debs"
	printf '#!/bin/sh\nexit 101\n' > "$mnt/usr/sbin/policy-rc.d"; chmod +x "$mnt/usr/sbin/policy-rc.d"
	e2e_chroot "$mnt" sh -c 'dpkg -i /tmp/debs/*.deb && systemctl enable inodedump-triage.path inodedump-triage.service' >&2 ||
		{ umount "$mnt"; die "dpkg -i in the image"; }
	e2e_chroot "$mnt" dpkg-query -W -f='${Package}=${Version}\n' libinodedump0 inodedump python3-inodedump \
		crash-inodedump > "$OUT/debs.txt" 2>/dev/null || true
	(cd "$W/debs" && sha256sum ./*.deb) >> "$OUT/debs.txt"
	rm -rf "$mnt/tmp/debs" "$mnt/usr/sbin/policy-rc.d"
	ls "$mnt"/var/crash/*/ > "$OUT/var-crash-before.txt"
	umount "$mnt" || die "umount"
	TIMINGS="${TIMINGS}install_offline_s=$(elapsed "$t0")\n"
	step "boot 3: the units triage the dump, nobody typing; poweroff"
	e2e_boot "$W/disk.img" "$OUT/serial.log" "$E2E_CAPTURE/vmlinuz" "$E2E_CAPTURE/initrd.img" triage "$E2E_TRIAGE_TIMEOUT"
	step "read the image offline"
	e2e_read "$W/disk.img" "$W/read"
	cp -a "$W/read/." "$OUT/"
	step "write info.txt"
	{
		echo "set=$FX_SET"
		echo "release=$(cat "$E2E_CAPTURE/release")"
		echo "crashkernel=$E2E_CRASHKERNEL"
		echo "capture=$E2E_CAPTURE"
		echo "hash=$SET_HASH"
		printf '%b' "$TIMINGS"
		echo "total_build_s=$(elapsed "$T_ALL")"
		echo "capture_disk_allocated_bytes=$(( $(stat -c %b "$E2E_CAPTURE/disk.img") * 512 ))"
	} > "$OUT/info.txt"
}
