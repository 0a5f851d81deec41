#!/usr/bin/env bash
# sid_chroot.sh: print the path of the fixture recipe's sid chroot (drgn
# 0.3.0, crash 9.0.2, ...: fx/sid.sh's SID_INCLUDE), made first if missing
# (~4 min cold) by the fixture library's prepare_sid_chroot. The bridges'
# tests run drgn 0.3.0 and crash 9.0.2 there
# (Debian 12's crash 8.0.2 cannot open 6.12 dumps). Root only, as the
# fixture recipes. Nothing of the fixture sets' inputs changes: this file
# only sources fx/apt.sh and fx/sid.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/../vmcores" && pwd)
# shellcheck source=../vmcores/fx/core.sh
. "$HERE/fx/core.sh"   # CACHE, hash16, fx_cached; log and die as below
SET=bridges STEP=start
log() { printf 'sid_chroot: %s\n' "$*" >&2; }
step() { STEP=$1; log "== $STEP"; }
die() { printf 'sid_chroot: FAILED in step "%s": %s\n' "$STEP" "$*" >&2; exit 1; }
[ $# -eq 0 ] || die "usage: sid_chroot.sh"
mkdir -p "$CACHE"
# shellcheck source=../vmcores/fx/apt.sh
. "$HERE/fx/apt.sh"
# shellcheck source=../vmcores/fx/sid.sh
. "$HERE/fx/sid.sh"
# One preparer at a time, with the fixture recipes' lock: the private apt
# state (updated without apt's own locking) and the chroots are shared.
exec 9>"$CACHE/.stock73-prepare.lock"
flock 9
prepare_apt73 >&2
prepare_sid_chroot >&2
echo "$SID_CHROOT"
