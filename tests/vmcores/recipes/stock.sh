# shellcheck shell=bash disable=SC2034  # the library reads these variables
# stock: Debian's stock 6.12 kernel with its full -dbg vmlinux; the guest
# (init.sh) makes its files on tmpfs and an ext4 image; QMP dumps, then a
# panic; truth from the host's drgn. README.md, "Recipe".
FX_KEY="set kernel host-tools sums:make-fixtures.sh,qmp.py,elf_fixphdr.py,init.sh,drgn_truth.py"
BOOT_KERNEL=vmlinuz BOOT_MEM=512 BOOT_APPEND="$STD_APPEND" PANIC=last
MAKEDUMPFILE="d17-zlib:-d_17_-c d17-lzo:-d_17_-l d31-zlib:-d_31_-c"

recipe_prepare() { prepare_stock_kernel; }
recipe_content() { fx_stock_content stock; }
recipe_truth() { fx_truth_drgn "$OUT" d17-zlib.vmcore 18; }
