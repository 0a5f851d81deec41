#!/bin/sh
# debian/libinodedump0.symbols from the version map lib/libinodedump.map:
# every exported symbol with the release that introduced it, i.e. the
# version node it is listed under (INODEDUMP_0.1 -> 0.1.0). The package
# build (DPKG_GENSYMBOLS_CHECK_LEVEL=4, debian/rules) fails when the
# library and this file differ. Run after editing the map:
#   scripts/symbols-from-map.sh > debian/libinodedump0.symbols
set -eu
map=${1:-$(dirname "$0")/../lib/libinodedump.map}
echo "libinodedump.so.0 libinodedump0 #MINVER#"
echo "* Build-Depends-Package: libinodedump-dev"
awk '
	/^[A-Z0-9_.]+[ \t]*\{/ {
		node = $1; sub(/\{.*/, "", node)
		v = node; sub(/^INODEDUMP_/, "", v)
		if (split(v, p, ".") == 2) v = v ".0"
		printf " %s@%s %s\n", node, node, v
		global = 0; next
	}
	/global:/ { global = 1; next }
	/local:/ { global = 0; next }
	global && /^[ \t]*[a-z_][a-z0-9_]*;/ {
		s = $1; sub(/;.*/, "", s)
		printf " %s@%s %s\n", s, node, v
	}
' "$map"
