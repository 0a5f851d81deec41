# shellcheck shell=bash disable=SC2034  # the library reads these variables
# stock4: the stock set's kernel and guest with 4-level page tables (TCG's
# max CPU without LA57) and twice the memory.
. "$RECIPES/stock.sh"
BOOT_MEM=1024 BOOT_CPU=max,la57=off
