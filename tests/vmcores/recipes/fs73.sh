# shellcheck shell=bash disable=SC2034  # the library reads these variables
# fs73: the fs sets' recipe (fs.sh) with the stock Debian 7.3 kernel.
. "$RECIPES/fs.sh"
