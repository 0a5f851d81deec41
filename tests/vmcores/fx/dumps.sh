# shellcheck shell=bash disable=SC2034  # the recipes and the library share these
# Fixture library, dumps made from dumps: makedumpfile's variants of a
# QEMU paging:false ELF dump (the host's makedumpfile, or the sid chroot's
# through MDF_RUNNER), after elf_fixphdr.py rewrote its program headers.

MDF_RUNNER=()   # (sid_run CHROOT): the chroot's makedumpfile

# fx_fixphdr ELF OUT: program headers where makedumpfile reads them (pitfall 4)
fx_fixphdr() {
	$PY "$HERE/elf_fixphdr.py" "$1" "$2" || die "elf_fixphdr.py"
}

# fx_makedumpfile ELF PREFIX TAG SPEC...: for each SPEC "NAME:OPTIONS"
# (OPTIONS with _ for spaces: d17-zlib:-d_17_-c), PREFIX+NAME.vmcore from
# ELF; its time in TIMINGS as makedumpfile_TAG+NAME_s.
fx_makedumpfile() {
	local elf=$1 prefix=$2 tag=$3 spec name args t0
	shift 3
	for spec in "$@"; do
		name=${spec%%:*} args=${spec#*:} args=${args//_/ }
		step "${MDF_RUNNER[*]:+sid }makedumpfile $args -> ${prefix##*/}$name.vmcore"
		t0=$(now)
		# shellcheck disable=SC2086
		"${MDF_RUNNER[@]}" makedumpfile $args "$elf" "$prefix$name.vmcore" \
			>"$W/makedumpfile-$tag$name.log" 2>&1 || {
			cat "$W/makedumpfile-$tag$name.log" >&2; die "makedumpfile $args"; }
		TIMINGS="${TIMINGS}makedumpfile_${tag}${name}_s=$(elapsed "$t0")\n"
	done
}

# fx_derive_dumps: the recipe's MAKEDUMPFILE specs, OUT/NAME.vmcore from
# OUT/elf-nopaging.vmcore
fx_derive_dumps() {
	step "rewrite ELF program headers for makedumpfile (pitfall 4)"
	fx_fixphdr "$OUT/elf-nopaging.vmcore" "$W/fixed.elf"
	# shellcheck disable=SC2086
	fx_makedumpfile "$W/fixed.elf" "$OUT/" "" $MAKEDUMPFILE
	rm -f "$W/fixed.elf"
	chmod 0644 "$OUT"/*.vmcore
}
