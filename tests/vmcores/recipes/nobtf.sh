# shellcheck shell=bash disable=SC2034  # the library reads these variables
# nobtf: a real dump of a kernel built without CONFIG_DEBUG_INFO_BTF (issue
# 16: a run without vmlinux must say what is missing and where to get it):
# the debugvfs73 kernel's built tree copied and rebuilt with
# nobtf/kernel.config merged in (prepare_nobtf_kernel). The guest is
# debugvfs73's (init, trigger, truth lines, may_open() panic) behind
# nobtf/init.sh, which first prints what the running kernel says of its
# BTF. Dumps: elf-nopaging.vmcore and qemu-kdump-zlib.flat (QEMU) after the
# panic, d17-zlib.vmcore. README.md, "The nobtf set".
. "$RECIPES/debugvfs73.sh"
FX_KEY="set kernel host-tools sums:make-fixtures.sh,qmp.py,elf_fixphdr.py,debugvfs73.sh,nobtf.sh,debugvfs73/init.sh,nobtf/init.sh"
MAKEDUMPFILE="d17-zlib:-d_17_-c"

recipe_prepare() {
	fx_shared prepare_apt73 prepare_dv73_source
	prepare_nobtf_kernel
}
recipe_content() {   # debugvfs73's guest with nobtf/init.sh as /init in front
	fx_init "$NOBTF_DIR/init.sh"
	fx_init "$DV73_DIR/init.sh" init.debugvfs73
	cp "$KDIR/$DV73_MODULE.ko" "$ROOT/modules/"
	fx_ext4 16M inodedump 00000000-0000-4000-8000-00000000e4e4
}
recipe_run() {
	local n
	fx_run   # boot, trigger, panic; elf-nopaging, elf-paging, qemu-kdump-zlib
	rm -f "$OUT/elf-paging.vmcore"   # one ELF dump is enough here

	step "the running kernel had no BTF (its /proc/kallsyms, /sys/kernel/btf)"
	NOBTF_LINE=$(grep -a -m1 '^inodedump-nobtf: ' "$OUT/serial.log" | tr -d '\r') || die "no inodedump-nobtf line on the console"
	[ -n "$NOBTF_LINE" ] || die "no inodedump-nobtf line on the console"
	log "$NOBTF_LINE"
	case $NOBTF_LINE in
	*" stext=1 start_btf=0 sys_btf=no") ;;
	*) die "the guest's kernel does not look BTF-less: $NOBTF_LINE" ;;
	esac
	n=${NOBTF_LINE#*kallsyms=}; n=${n%% *}
	[ "$n" -gt 10000 ] || die "the guest's /proc/kallsyms has only $n lines"

	step "the dump is of this vmlinux (VMCOREINFO BUILD-ID = vmlinux's build-id)"
	local id_dump
	NOBTF_BUILD_ID=$(readelf -n "$OUT/vmlinux" | awk '/Build ID:/ && !n++ { print $3 }')
	id_dump=$(grep -a -m1 -o 'BUILD-ID=[0-9a-f]*' "$OUT/elf-nopaging.vmcore" | cut -d= -f2)
	if [ -z "$NOBTF_BUILD_ID" ] || [ "$NOBTF_BUILD_ID" != "$id_dump" ]; then
		die "build-id: vmlinux '$NOBTF_BUILD_ID', dump's VMCOREINFO '$id_dump'"
	fi
}
recipe_truth() { fx_truth_serial "=$DV73_TRUTH_LINES"; }
recipe_info() {
	echo "build_id=$NOBTF_BUILD_ID"
	# shellcheck disable=SC2086
	printf 'guest_%s\n' ${NOBTF_LINE#inodedump-nobtf: }
	echo "kernel_copy_s=$(cat "$KDIR/kernel_copy_s")"
	echo "kernel_build_s=$(cat "$KDIR/kernel_build_s")"
}
