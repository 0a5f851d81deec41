# shellcheck shell=bash disable=SC2034  # the library reads these variables
# old510: Debian 11's stock Linux 5.10 (bullseye-security's newest image
# with a -dbg of the same version, private apt state), the stock guest plus
# churn (files made and removed on tmpfs and ext4 before the dumps, so the
# inode caches hold free objects); truth from the host's drgn, checked
# against the guest's stat(1) lines; slab truth from drgn_slab_truth.py.
# README.md, "The old510 set".
. "$RECIPES/stock.sh"
# init.sh and drgn_truth.py have stamps standing for them in the other
# sets' keys (fx/stamps.txt: the digests they had before this set); this
# set's key hashes their text too.
FX_KEY="$FX_KEY sums:recipes/old510.sh,stat_vs_truth.py,drgn_slab_truth.py call:old510_key"
OLD510_CHURN=300

old510_key() { (cd "$HERE" && sha256sum init.sh drgn_truth.py | sed 's/  / text of /'); echo "churn=$OLD510_CHURN"; }

recipe_prepare() { fx_shared prepare_apt510 prepare_old510_kernel; }
recipe_content() {
	fx_stock_content old510
	printf 'FX_CHURN=%s\n' "$OLD510_CHURN" >> "$ROOT/etc/fixture.conf"
}
recipe_ready() {
	grep -q "inodedump-init: churn $OLD510_CHURN files in /mnt/ext4/churn" "$OUT/serial.log" ||
		die "the guest did not churn (no 'churn $OLD510_CHURN files' line for ext4)"
}
recipe_truth() {
	fx_truth_drgn "$OUT" d17-zlib.vmcore 18
	fx_truth_vs_stat "$OUT"
	step "slab-truth.txt from drgn_slab_truth.py reading d17-zlib.vmcore"
	$PY "$HERE/drgn_slab_truth.py" "$OUT/vmlinux" "$OUT/d17-zlib.vmcore" "$OUT/truth.txt" \
		> "$OUT/slab-truth.txt" || die "drgn_slab_truth.py"
	grep -q ' kind=freed .* state=free$' "$OUT/slab-truth.txt" ||
		die "slab-truth.txt names no free object of an inode cache"
}
recipe_info() { echo "churn=$OLD510_CHURN drgn=$($PY -c 'import drgn; print(drgn.__version__)')"; }
