# shellcheck shell=bash disable=SC2034  # the library reads these variables
# big73: the big set's recipe (big.sh) with the stock Debian 7.3 kernel.
. "$RECIPES/big.sh"
