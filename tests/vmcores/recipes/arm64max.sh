# shellcheck shell=bash disable=SC2034  # the library reads these variables
# arm64max: the arm64 set's kernel and guest on -cpu max, where the
# kernel's 52-bit VA (LPA2) is active: TCR_EL1_T1SZ=0xc in VMCOREINFO,
# 5-level translation possible. README.md, "The arm64 sets".
. "$RECIPES/arm64.sh"
FX_KEY="$FX_KEY sums:recipes/arm64max.sh"
BOOT_CPU=max
