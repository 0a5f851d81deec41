# shellcheck shell=bash disable=SC2034  # the library reads these variables
# fs612: the fs sets' recipe (fs.sh) with the stock Debian 6.12 kernel.
. "$RECIPES/fs.sh"
