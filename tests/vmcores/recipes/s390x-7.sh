# shellcheck shell=bash disable=SC2034  # the library reads these variables
# s390x-7: the s390x set's recipe on Debian's newest 7.x s390x kernel
# (trixie-backports: linux-binary-7.N.M+deb13-s390x with linux-modules and
# -dbg of its version, its config from linux-base) that downloads; busybox
# is bookworm's; makedumpfile:s390x is sid's 1.7.8 (it writes -d 17 and
# -d 31 of this kernel), and bookworm's 1.7.2 is asserted to refuse it
# (measured: trixie's 1.7.6 was out of reach, the mirror's pool answering
# 404 for the trixie s390x libc6 its lists named). This kernel has BTF
# (CONFIG_DEBUG_INFO_BTF=y) and CONFIG_KALLSYMS_ALL=y. The guest's files
# are on tmpfs only: measured, Debian's 7.2.11 s390x kernel under QEMU
# 7.2's TCG (-cpu max or qemu, -smp 2 or 1) oopses in ext4_mb_new_blocks
# (a per-CPU pointer of the ext4 module, "Unable to handle kernel pointer
# dereference") at the first mkdir on the ext4 image; ext4 and loop are
# loaded all the same. Truth: the nine tmpfs roles. README.md, "The s390x
# sets".
. "$RECIPES/s390x.sh"
FX_KEY="$FX_KEY sums:recipes/s390x-7.sh"
S390X_73_SUITES="trixie trixie-backports"
S390X_73_SERIES='7\.[0-9]+\.[0-9]+'
# 7.x: crc32c and virtio_console are built in; ext4's closure is jbd2,
# crc16, mbcache
S390X_MODULES="ext4 loop"
# sid is merged-/usr and 64-bit time_t: its libraries' names
S390X_SID_MDF_DEBS="makedumpfile libc6 libdw1t64 libelf1t64 liblzo2-2 libzstd1 zlib1g libbz2-1.0 liblzma5 libgcc-s1"
# shellcheck disable=SC2153  # S390X_MDF_ID: prepare_s390x_makedumpfile's
s390x_key() {
	echo "$S390X_BUSYBOX_ID"; echo "$S390X_MDF_ID"; echo "refuses: $S390X_MDF_OLD_ID"
	echo "suites=$S390X_SUITES kernel-suites=$S390X_73_SUITES mem=$BOOT_MEM cpu=$BOOT_CPU mdf=$S390X_MAKEDUMPFILE"
}
s390x_prepare() {
	# shellcheck disable=SC2086
	prepare_apt_s390x $S390X_SUITES; prepare_s390x_busybox; prepare_s390x_makedumpfile
	S390X_MDF_OLD=$S390X_MDF S390X_MDF_OLD_ID=$S390X_MDF_ID S390X_MDF_OLD_VERSION=$S390X_MDF_VERSION
	prepare_apt_s390x sid
	S390X_MDF_DEBS=$S390X_SID_MDF_DEBS prepare_s390x_makedumpfile
	# shellcheck disable=SC2086
	prepare_apt_s390x $S390X_73_SUITES; prepare_s390x_73_kernel "$S390X_73_SERIES"
	prepare_apt73; prepare_sid_chroot
}
# bookworm's makedumpfile 1.7.2 refuses 7.x's dumps: it reads
# vmalloc_start at the kernel image's virtual address (KERNELOFFSET=
# 3fffe418000 here), which no PT_LOAD holds ("readpage_elf: Attempt to
# read non-existent page", then "get_machdep_info_s390x: Can't get
# vmalloc_start."); sid's 1.7.8 writes them ("The kernel version is not
# supported.", and completes)
S390X_MDF_REFUSAL="get_machdep_info_s390x: Can't get vmalloc_start."
recipe_run() {
	cp -al "$KDIR/debug" "$OUT/debug" 2>/dev/null || cp -a "$KDIR/debug" "$OUT/debug"
	fx_run
	# shellcheck disable=SC2086
	fx_addnote_dumps s390x_mdf_runner $S390X_MAKEDUMPFILE
	S390X_MDF=$S390X_MDF_OLD S390X_MDF_VERSION=$S390X_MDF_OLD_VERSION s390x_mdf_refuse "$S390X_MDF_REFUSAL"
}
# init.sh without its ext4 part (FX_EXT4=0); the ext4 image is not packed
recipe_content() {
	fx_s390x_content "$FX_SET"
	sed -i 's/^FX_EXT4=1$/FX_EXT4=0/' "$ROOT/etc/fixture.conf"
	rm -f "$ROOT/ext4.img"
}
S390X_7_ROLES="regular empty big dir symlink_short symlink_long hardlink fifo chardev"
recipe_truth() {
	local r roles=()
	for r in $S390X_7_ROLES; do roles+=("$r=/tmp/fx/$r"); done
	step "truth.txt from drgn $(cat "$SID_CHROOT/drgn-version") (sid chroot) reading elf-vmcoreinfo.vmcore: tmpfs roles"
	in_sid "$SID_CHROOT" "$OUT" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_truth73.py \
		/fx/vmlinux /fx/elf-vmcoreinfo.vmcore "${roles[@]}" > "$OUT/truth.txt" ||
		die "drgn_truth73.py in the sid chroot"
	[ "$(wc -l < "$OUT/truth.txt")" -eq "${#roles[@]}" ] || die "expected ${#roles[@]} truth lines"
	fx_truth_vs_stat "$OUT"
	S390X_MODULE_TRUTH=0 s390x_truth_more
}
