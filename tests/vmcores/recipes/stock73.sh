# shellcheck shell=bash disable=SC2034  # the library reads these variables
# stock73: the stock Debian 7.3 kernel from trixie-backports (private apt
# state), the stock guest; truth from drgn 0.3.0 in the sid chroot, checked
# against the guest's stat(1) lines. README.md, "The stock73 set".
. "$RECIPES/stock.sh"
FX_KEY="$FX_KEY sid sums:stock73.sh,drgn_truth73.py,stat_vs_truth.py"

recipe_prepare() { fx_shared prepare_apt73 prepare_stock73_kernel prepare_sid_chroot; }
recipe_content() { fx_stock_content stock73; }
recipe_truth() {
	fx_truth_drgn "$OUT" d17-zlib.vmcore 18 "$SID_CHROOT"
	fx_truth_vs_stat "$OUT"
}
recipe_info() { echo "drgn=$(cat "$SID_CHROOT/drgn-version") sid_chroot=$SID_CHROOT"; }
