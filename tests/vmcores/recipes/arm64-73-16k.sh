# shellcheck shell=bash disable=SC2034  # the library reads these variables
# arm64-73-16k: arm64-73 with the flavour `arm64-16k` (16 KiB pages) on
# -cpu max (cortex-a57 has no 16 KiB granule). Built VA_BITS=52 too:
# makedumpfile 1.7.8 refuses it as well. README.md, "The arm64 sets".
. "$RECIPES/arm64-73.sh"
FX_KEY="$FX_KEY sums:recipes/arm64-73-16k.sh"
ARM64_FLAVOUR=arm64-16k BOOT_CPU=max
ARM64_MDF_REFUSAL="PAGE SIZE 0x4000 and VA Bits 52 not supported"
