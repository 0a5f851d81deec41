# shellcheck shell=bash disable=SC2034  # the library reads these variables
# rhel612: the fs612 set's kernel debuginfo in Red Hat's shape, made with
# Debian's own tools from the real -dbg package (no guest, no dump: the
# tests read fs612's dumps through it). Red Hat's kernel-debuginfo differs
# from Debian's -dbg in four ways, each made here:
#   - vmlinux at usr/lib/debug/lib/modules/R/vmlinux (Debian: boot/vmlinux-R);
#   - its DWARF compressed by `dwz -m`, what the files dwz is given share
#     moved into the supplementary file usr/lib/debug/.dwz/kernel-R.x86_64,
#     named in each by a relative .gnu_debugaltlink (`dwz -r`): DIEs there
#     are reached by DW_FORM_GNU_ref_alt, strings by DW_FORM_GNU_strp_alt.
#     The files: vmlinux, the vDSO's debug file, and a copy of vmlinux
#     discarded after. Why the copy: dwz 0.15 leaves the modules' debug
#     files alone (relocatable: "not a shared library"), and with the vDSO
#     alone vmlinux shares a few base types, so dwz keeps vmlinux out of
#     the multifile ("DWARF compression not beneficial", measured): with
#     the copy, every type vmlinux has goes into the .dwz file, each lookup
#     crossing into it (the case a reader must get right; the DIEs left in
#     vmlinux import partial units from there). dwz's own limits lifted
#     (-l none -L none: by default a file of more than 10 million DIEs, as
#     vmlinux is, stays out of the multifile);
#   - the debug sections SHF_COMPRESSED (`objcopy --compress-debug-sections`,
#     zlib), the .dwz file's too;
#   - the modules' debuginfo as usr/lib/debug/lib/modules/R/kernel/…/M.ko.debug
#     (`eu-strip --reloc-debug-sections -f`, as find-debuginfo makes them;
#     dwz leaves relocatable files alone: "not a shared library"), for the
#     fs612 guest's modules;
#   - usr/lib/debug/.build-id/xx/yyyy.debug links to vmlinux, the vDSO,
#     each module's file and the .dwz file.
# OUT/root is the debug root (`--debug-root OUT/root`); OUT/layout.txt
# lists every file with its build-id. Issue 44, item 4; README.md,
# "The rhel612 set".
. "$RECIPES/fs.sh"   # FS_MODULES612: the modules the fs612 guest loads
FX_KEY="set kernel debs:dwz,elfutils,binutils,dpkg,tar sums:recipes/rhel612.sh,recipes/fs.sh"
FX_INFO_SIZES=""

recipe_prepare() {
	STOCK_MODULES=$FS_MODULES612
	prepare_stock_kernel
	REL=$(cat "$KDIR/release" 2>/dev/null || true)
}

# rhel_extract DBG DIR: the vDSO's and the guest's modules' debug files of
# the -dbg package into DIR (one pass over its 1 GB)
rhel_extract() {
	local m pats=()
	for m in $(cat "$KDIR/modules.list"); do
		pats+=("./usr/lib/debug/lib/modules/$REL/kernel/*/$m.ko")
	done
	step "extract the vDSO and $(wc -w < "$KDIR/modules.list") modules' debug files from the -dbg package"
	dpkg-deb --fsys-tarfile "$1" | tar -x -C "$2" --wildcards \
		"./usr/lib/debug/lib/modules/$REL/vdso/vdso64.so" "${pats[@]}" ||
		die "extract from $1"
	for m in $(cat "$KDIR/modules.list"); do
		[ -n "$(find "$2" -name "$m.ko" | head -1)" ] || die "module $m not in $1"
	done
}

# rhel_link ROOT FILE: ROOT/usr/lib/debug/.build-id/xx/yyyy.debug -> FILE,
# relative, as rpm's find-debuginfo makes it
rhel_link() {
	local root=$1 file=$2 id dir
	id=$(readelf -n "$file" | awk '/Build ID:/ { print $3; exit }')
	[ -n "$id" ] || die "$file has no build-id"
	dir=$root/usr/lib/debug/.build-id/${id:0:2}
	mkdir -p "$dir"
	ln -sfn "$(realpath --relative-to="$dir" "$file")" "$dir/${id:2}.debug"
	printf '%s %s\n' "$id" "${file#"$root"/}" >> "$OUT/layout.txt"
}

recipe_build() {
	local dbg x root dbgdir mods f t0 dwz_name
	dbg=$(fx_deb "linux-image-$REL-dbg" "$(sed -n 's/.*-dbg=//p' "$KDIR/packages")")
	x=$W/x root=$OUT/root
	dbgdir=$root/usr/lib/debug/lib/modules/$REL
	dwz_name=kernel-$REL.x86_64
	mkdir -p "$x" "$dbgdir/vdso" "$root/usr/lib/debug/.dwz"
	t0=$(now)
	rhel_extract "$dbg" "$x"
	TIMINGS="${TIMINGS}extract_s=$(elapsed "$t0")\n"
	step "vmlinux, the vDSO and M.ko.debug in Red Hat's layout (eu-strip --reloc-debug-sections)"
	t0=$(now)
	cp "$KDIR/vmlinux" "$dbgdir/vmlinux"
	cp "$x/usr/lib/debug/lib/modules/$REL/vdso/vdso64.so" "$dbgdir/vdso/vdso64.so.debug"
	mods=$x/usr/lib/debug/lib/modules/$REL
	while read -r f; do
		mkdir -p "$dbgdir/$(dirname "$f")"
		eu-strip --reloc-debug-sections --remove-comment -f "$dbgdir/$f.debug" \
			-o "$W/stripped.ko" "$mods/$f" || die "eu-strip $f"
	done < <(cd "$mods" && find kernel -name '*.ko' | sort)
	rm -rf "$x" "$W/stripped.ko"
	TIMINGS="${TIMINGS}layout_s=$(elapsed "$t0")\n"
	step "dwz -m: vmlinux, the vDSO and a copy of vmlinux, their common DIEs in .dwz/$dwz_name"
	t0=$(now)
	cp "$dbgdir/vmlinux" "$W/vmlinux.partner"
	(cd "$dbgdir" && dwz -l none -L none -m "../../../.dwz/$dwz_name" -r vmlinux vdso/vdso64.so.debug \
		"$W/vmlinux.partner") || die "dwz -m"
	rm -f "$W/vmlinux.partner"
	TIMINGS="${TIMINGS}dwz_s=$(elapsed "$t0")\n"
	readelf -S -W "$dbgdir/vmlinux" | grep -q '\.gnu_debugaltlink' || die "dwz wrote no .gnu_debugaltlink in vmlinux"
	step "compress the debug sections (objcopy --compress-debug-sections=zlib)"
	t0=$(now)
	for f in "$dbgdir/vmlinux" "$dbgdir/vdso/vdso64.so.debug" "$root/usr/lib/debug/.dwz/$dwz_name" \
		$(find "$dbgdir/kernel" -name '*.ko.debug'); do
		objcopy --compress-debug-sections=zlib "$f" || die "objcopy --compress-debug-sections $f"
	done
	TIMINGS="${TIMINGS}compress_s=$(elapsed "$t0")\n"
	step "the .build-id links"
	: > "$OUT/layout.txt"
	for f in "$dbgdir/vmlinux" "$dbgdir/vdso/vdso64.so.debug" "$root/usr/lib/debug/.dwz/$dwz_name" \
		$(find "$dbgdir/kernel" -name '*.ko.debug' | sort); do
		rhel_link "$root" "$f"
	done
	echo "$REL" > "$OUT/release"
	fx_info
	echo "disk_kb=$(du -sk "$OUT/root" | cut -f1)" >> "$OUT/info.txt"
}

recipe_info() {
	echo "dwz=$(dpkg-query -W -f='${Version}' dwz) elfutils=$(dpkg-query -W -f='${Version}' elfutils)"
	echo "binutils=$(dpkg-query -W -f='${Version}' binutils)"
	echo "modules=$(cat "$KDIR/modules.list")"
}
