#!/bin/bash
# Regenerate tests/vmcores/committed/ -- the small fixture kept in git -- from
# a fixture set (built or reused by make-fixtures.sh).
#
#   tests/vmcores/make-committed.sh [debugvfs73|patched] [DEST]
#
# debugvfs73 (the default, what is committed): the 7.3 DEBUG_VFS kernel's
# real reports in today's (7.0) format; patched: the 6.12 patched kernel's
# two reports in the 6.15 format (the fixture committed before; kept so the
# old case can be made again, e.g. into another DEST). DEST defaults to
# tests/vmcores/committed.
#
# DEST gets:
#   d17-zlib.vmcore  the set's makedumpfile -d 17 -c dump, as is
#   vmlinux          debug-only vmlinux: objcopy --only-keep-debug
#                    --compress-debug-sections=zlib, minus the DWARF sections
#                    neither drgn nor a type reader needs (location lists,
#                    range lists, call frame info, aranges), then packed by
#                    elf_pack_debug.py (objcopy keeps the stripped sections'
#                    file offsets: ~10 MB of zeros; sections recompressed -9)
#   truth.txt        the set's truth lines (printed by the kernel)
#   reports.txt      the report lines from the serial console (timestamp
#                    prefix removed)
#   serial.log       (debugvfs73) the guest's console: the splats with each
#                    report's site, the truth and stat lines
#   info.txt         (debugvfs73) set=committed, from=debugvfs73, release:
#                    the tests run drgn 0.3.0 from that set's sid chroot
#   README.md        how it was made, with sizes and sha256s
# then checks it with drgn (patched: check_fixture.py with the host's drgn
# 0.0.22; debugvfs73: drgn 0.3.0 in the set's sid chroot reads every truth
# path's inode and the log's reports with the stripped vmlinux) and fails if
# the total is above 40 MB.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FROM=${1:-debugvfs73}
DEST=${2:-$HERE/committed}
LIMIT=$((40 * 1000 * 1000))
STEP=start
log() { printf 'make-committed: %s\n' "$*" >&2; }
step() { STEP=$1; log "== $STEP"; }
trap 'printf "make-committed: FAILED in step \"%s\" (line %s)\n" "$STEP" "$LINENO" >&2' ERR
# in_sid (drgn 0.3.0 in the sid chroot the debugvfs73 set names) and
# fx_truth_roles, from the fixture library; sourcing them only defines
# functions
# shellcheck source=fx/sid.sh
. "$HERE/fx/sid.sh"
# shellcheck source=fx/truth.sh
. "$HERE/fx/truth.sh"
case $FROM in
debugvfs73 | patched) ;;
*) log "usage: make-committed.sh [debugvfs73|patched] [DEST]"; exit 2 ;;
esac

step "make-fixtures.sh $FROM"
SRC=$("$HERE/make-fixtures.sh" "$FROM" | tail -1)
[ -f "$SRC/.complete" ] || { log "FAILED: $SRC is not a complete fixture set"; exit 1; }

TMP=$DEST.tmp.$$
rm -rf "$TMP"; mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT

step "copy d17-zlib.vmcore and truth.txt"
cp "$SRC/d17-zlib.vmcore" "$TMP/d17-zlib.vmcore"
cp "$SRC/truth.txt" "$TMP/truth.txt"

if [ "$FROM" = patched ]; then
	step "extract the two report lines"
	grep -o 'VFS_[A-Z_]*_ON_INODE(.*) encountered for inode [0-9a-f]*' "$SRC/serial.log" > "$TMP/reports.txt"
	[ "$(wc -l < "$TMP/reports.txt")" -eq 2 ] || { log "FAILED: expected 2 report lines"; exit 1; }
else
	step "copy reports.txt and serial.log; info.txt"
	cp "$SRC/reports.txt" "$TMP/reports.txt"
	tr -d '\r' < "$SRC/serial.log" > "$TMP/serial.log"
	printf 'set=committed\nfrom=%s\nrelease=%s\n' "$FROM" "$(sed -n 's/^release=//p' "$SRC/info.txt")" > "$TMP/info.txt"
fi

step "debug-only, compressed vmlinux (objcopy)"
REMOVE="--remove-section=.debug_loclists --remove-section=.debug_rnglists
--remove-section=.debug_frame --remove-section=.debug_aranges
--remove-section=.debug_loc --remove-section=.debug_ranges"
STRIP=""
if [ "$FROM" != patched ]; then
	# The 7.3 kernel's DWARF is bigger: to stay under the limit, also drop
	# the line table and the symbols no inode decode looks up (code symbols
	# not starting with "_", export-table and compiler-made names).
	REMOVE="$REMOVE --remove-section=.debug_line"
	# (by ELF symbol type: nm calls this kernel's data "t"/"T" too)
	readelf -sW "$SRC/vmlinux" | awk '$4 == "FUNC" && $8 !~ /^_/ { print $8 }
		$4 != "FILE" && $8 ~ /^(__ksymtab|__kstrtab|__UNIQUE_ID|__initcall|__export_symbol|__pfx_|__cfi_|__func__|__setup_|__param_|__BTF_ID__|\.LC|__x64_sys_|__ia32_sys_|__flags___)/ { print $8 }' |
		sort -u > "$TMP/strip-symbols.txt"
	STRIP="--strip-symbols=$TMP/strip-symbols.txt"
fi
# shellcheck disable=SC2086
objcopy --only-keep-debug --compress-debug-sections=zlib $REMOVE $STRIP "$SRC/vmlinux" "$TMP/vmlinux.debug"
rm -f "$TMP/strip-symbols.txt"
step "pack the debug file (elf_pack_debug.py: drop the zero gap objcopy leaves, zlib -9)"
python3 "$HERE/elf_pack_debug.py" "$TMP/vmlinux.debug" "$TMP/vmlinux"
rm -f "$TMP/vmlinux.debug"

if [ "$FROM" = patched ]; then
	step "check the committed fixture with drgn"
	/usr/bin/python3 "$HERE/check_fixture.py" "$TMP" --set patched > "$TMP/check.out" || {
		cat "$TMP/check.out" >&2; log "FAILED: check_fixture.py on the committed fixture"; exit 1; }
	CHECK_WHAT="drgn 0.0.22 with this stripped vmlinux agrees with every truth line"
	CHECK_CMD="/usr/bin/python3 tests/vmcores/check_fixture.py tests/vmcores/committed"
else
	step "check the committed fixture with drgn 0.3.0 (the set's sid chroot)"
	chroot_dir=$(sed -n 's/^drgn=.* sid_chroot=//p' "$SRC/info.txt")
	[ -f "$chroot_dir/.complete" ] || { log "FAILED: no sid chroot in $SRC/info.txt"; exit 1; }
	roles=$(fx_truth_roles "$TMP/truth.txt")
	# shellcheck disable=SC2086
	in_sid "$chroot_dir" "$TMP" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_truth73.py \
		/fx/vmlinux /fx/d17-zlib.vmcore $roles > "$TMP/drgn-truth.txt"
	{
		/usr/bin/python3 "$HERE/debugvfs73/truth_vs_drgn.py" "$TMP/truth.txt" "$TMP/drgn-truth.txt"
		in_sid "$chroot_dir" "$TMP" "$HERE/.." /usr/bin/python3 /src/vmcores/debugvfs73/dmesg_has.py \
			/fx/vmlinux /fx/d17-zlib.vmcore /fx/reports.txt
	} > "$TMP/check.out" || { cat "$TMP/check.out" >&2; log "FAILED: drgn 0.3.0 on the committed fixture"; exit 1; }
	rm -f "$TMP/drgn-truth.txt"
	CHECK_WHAT="drgn 0.3.0 in the sid chroot, with this stripped vmlinux, agrees with every truth line that has a path and finds every report line in the log"
	CHECK_CMD="tests/vmcores/make-committed.sh (its last step)"
fi
cat "$TMP/check.out" >&2

total=$(du -cb "$TMP"/* | tail -1 | cut -f1)
[ "$total" -le "$LIMIT" ] || { log "FAILED: committed fixture is $total bytes > $LIMIT"; exit 1; }

step "write README.md"
info() { sed -n "s/^$1=//p" "$SRC/info.txt"; }
if [ "$FROM" = patched ]; then
	TITLE="patched 6.12 kernel, d17-zlib"
	KERNEL="\`$(info release)\` (linux-source-6.12 + kernel-patches/, tinyconfig +
  tests/vmcores/kernel.config; KASLR on), built by build-kernel.sh:
  \`$(sed -n 's/^patched-kernel=//p' "$SRC/inputs.txt")\`"
	GUEST="QEMU 7.2 TCG, 256 MiB, 2 CPUs, busybox initramfs running
  tests/vmcores/init.sh; the trigger module vfsdbg_trigger.ko fired two
  \`VFS_WARN_ON_INODE\` reports (6.15 format) and printed the truth lines"
	WHEN="taken while the guest ran, after the reports"
else
	TITLE="7.3 DEBUG_VFS kernel, d17-zlib"
	KERNEL="\`$(info release)\` (Debian's $(sed -n 's/^kernel=\(linux-source[^ ]*\).*/\1/p' "$SRC/info.txt"),
  unpatched, tinyconfig + tests/vmcores/debugvfs73/kernel.config; KASLR on),
  built by tests/vmcores/recipes/debugvfs73.sh"
	GUEST="QEMU 7.2 TCG, 256 MiB, 2 CPUs, busybox initramfs running
  tests/vmcores/debugvfs73/init.sh; the trigger module vfsdbg73_trigger.ko
  fired the kernel's own \`VFS_WARN_ON_INODE\` assertions in
  \`inode_set_cached_link()\` (both of them), called \`dump_inode()\` twice
  directly, and printed the truth lines; then the guest opened a file whose
  mode has no type and \`may_open()\`'s \`VFS_BUG_ON_INODE\` panicked it. All
  in the 7.0 format"
	WHEN="taken after the panic, as kdump would"
fi
{
	cat <<EOF
# Committed fixture ($TITLE)

Generated by \`tests/vmcores/make-committed.sh $FROM\` -- do not edit by hand;
rerun the script instead. It takes the $FROM fixture set that
\`tests/vmcores/make-fixtures.sh $FROM\` builds (see ../README.md) and keeps
the smallest dump drgn and libkdumpfile both read, plus a debug-only vmlinux.

- Kernel: $KERNEL
- Fixture set: \`$(basename "$SRC")\` ($GUEST)

| file | what | bytes |
|---|---|---|
| \`d17-zlib.vmcore\` | \`makedumpfile -d 17 -c\` (1.7.2) of QEMU's \`dump-guest-memory\` ELF (paging:false, program headers moved to offset 64 by elf_fixphdr.py) $WHEN | $(stat -c %s "$TMP/d17-zlib.vmcore") |
| \`vmlinux\` | \`objcopy --only-keep-debug --compress-debug-sections=zlib\` of the kernel's vmlinux, without $(echo $REMOVE | sed 's/--remove-section=//g; s/ /, /g'); keeps .debug_info/.debug_abbrev/.debug_str/.debug_line (patched only)/.debug_line_str/.debug_str_offsets/.debug_addr (where present), .symtab, .strtab (debugvfs73: without code symbols not starting with \`_\` and without export-table and compiler-made names); then \`elf_pack_debug.py\` packs the sections (objcopy leaves the stripped sections' file offsets, ~10 MB of zeros) and recompresses them with zlib -9 | $(stat -c %s "$TMP/vmlinux") |
| \`truth.txt\` | the kernel's own \`inodedump-truth:\` lines (CONTRACT.md format) | $(stat -c %s "$TMP/truth.txt") |
| \`reports.txt\` | the report lines as printed on the console (timestamp removed) | $(stat -c %s "$TMP/reports.txt") |
EOF
	if [ "$FROM" != patched ]; then
		cat <<EOF
| \`serial.log\` | the guest's console (the splat after each report names its site) | $(stat -c %s "$TMP/serial.log") |
| \`info.txt\` | \`set=committed\`, \`from=$FROM\` (the tests run drgn 0.3.0 from that set's sid chroot), \`release=\` | $(stat -c %s "$TMP/info.txt") |
EOF
	fi
	cat <<EOF

Total: $total bytes.

The reports:

\`\`\`
$(cat "$TMP/reports.txt")
\`\`\`

Checked when it was made ($CHECK_WHAT: \`$CHECK_CMD\`):

\`\`\`
$(sed "s|$TMP|tests/vmcores/committed|g" "$TMP/check.out")
\`\`\`

sha256:

\`\`\`
$(cd "$TMP" && sha256sum d17-zlib.vmcore vmlinux truth.txt reports.txt)
\`\`\`
EOF
} > "$TMP/README.md"
rm -f "$TMP/check.out"

step "install into tests/vmcores/committed"
rm -rf "$DEST"; mv "$TMP" "$DEST"
trap - EXIT
log "done: $DEST ($total bytes)"
echo "$DEST"
