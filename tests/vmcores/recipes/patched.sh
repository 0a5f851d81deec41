# shellcheck shell=bash disable=SC2034  # the library reads these variables
# patched: the small patched 6.12 kernel (build-kernel.sh); the guest loads
# the trigger module (trigger/), whose reports and truth lines go to the
# console; QMP dumps, then a panic. README.md, "Recipe".
FX_KEY="set kernel host-tools sums:make-fixtures.sh,qmp.py,elf_fixphdr.py,init.sh,drgn_truth.py"
BOOT_KERNEL=bzImage BOOT_MEM=256 BOOT_APPEND="$STD_APPEND" PANIC=last
MAKEDUMPFILE="d17-zlib:-d_17_-c d17-lzo:-d_17_-l d31-zlib:-d_31_-c"

recipe_prepare() { prepare_patched_kernel; }
recipe_content() {
	fx_init "$HERE/init.sh"
	cp "$KDIR/vfsdbg_trigger.ko" "$ROOT/modules/"
	fx_conf 'FX_SET=patched\nFX_MODULES=""\nFX_EXT4=0\nFX_TRIGGER=1\n'
}
recipe_truth() { fx_truth_serial 11; fx_trigger_done 2; }
