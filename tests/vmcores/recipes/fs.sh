# shellcheck shell=bash disable=SC2034  # the library reads these variables
# fs612 and fs73 (both this recipe): the stock Debian 6.12 (fs612) or 7.3
# (fs73) kernel in a 768 MiB guest (fs_init.sh) with tmpfs, ext4, XFS and
# btrfs (virtio disks made on the host), a btrfs subvolume mounted twice, an
# overlayfs mounted by a process in its own mount namespace (copy-up,
# whiteout, new and lower-only files, held open), sockfs/pipefs/anon_inode
# inodes held by a process, NFSv4.2 over loopback (the kernel's nfsd
# exporting a directory of the ext4 disk, mounted at /mnt/nfs; bookworm's
# nfs-utils and their libraries from .debs), and files made and deleted
# on each disk filesystem, tmpfs and the NFS mount (free objects in the
# inode caches). One moment, the
# guest stopped over QMP: its paging:false ELF (elf-nopaging.vmcore) and
# makedumpfile's d0-zlib (-d 0, unfiltered), d17-zlib, d31-zlib (1.7.2, the
# host's) and sid-d31-zlib (1.7.8, the sid chroot's) of it.
# Truth: drgn 0.3.0 (sid chroot) reading d0-zlib.vmcore (drgn reads neither
# QEMU's ELF of these guests nor -d 31 dumps): truth.txt by drgn_truth_fs.py
# for every role the guest's `inodedump-stat:` lines name, checked against
# them (stat_vs_truth_fs.py); slab-truth.txt by drgn_slab_truth.py;
# nfs-truth.txt (the nfs4 inodes' struct nfs_inode, nfs_server, nfs_client)
# by drgn_nfs_truth.py at the offsets pahole reads from nfs.ko's BTF
# (nfs-pahole.txt). Issues 30 and 31; README.md, "The fs sets".
FX_KEY="set kernel host-tools debs:gcc,libc6-dev,xfsprogs,btrfs-progs,dwarves sid call:fs_key"
FX_KEY="$FX_KEY sums:make-fixtures.sh,qmp.py,elf_fixphdr.py,recipes/fs.sh,recipes/fs612.sh,recipes/fs73.sh,fs_init.sh,guest/fxfs.c"
FX_KEY="$FX_KEY sums:drgn_truth.py,drgn_truth_fs.py,stat_vs_truth_fs.py,drgn_slab_truth.py,drgn_nfs_truth.py"
FX_INFO_SIZES="*.vmcore vmlinux"
MAKEDUMPFILE=""   # recipe_run writes them (the host's and the sid chroot's)
FS_MEM=768
# The roles fs_init.sh prints a stat line for: 61 in the initial mount
# namespace (45, then 10 nfs_* through the NFS mount and 6 nfsd_*, the
# same files on the export's ext4), 13 in the container's, 5 descriptors
# of fxfs ipc.
FS_ROLES=79
# The NFS roles, each with an inodedump-nfs line (fxfs nfs) besides.
FS_NFS_ROLES=16
# modinfo's depends are added by fx_modules; crc32c_generic (6.12: ext4's and
# btrfs's checksums through the crypto API) is asked for by name, not a
# dependency. 7.x has the crc32c library built in; crc32c-cryptoapi is its
# crypto API name, for what still asks the crypto API. nfsd (the server:
# sunrpc, auth_rpcgss, nfs_acl, lockd, grace by modinfo) and nfsv4 (the
# client: nfs, netfs, dns_resolver) last.
FS_MODULES612="qemu_fw_cfg crc32c_generic ext4 virtio_blk xfs btrfs overlay nfsd nfsv4"
FS_MODULES73="qemu_fw_cfg crc32c-cryptoapi ext4 virtio_blk xfs btrfs overlay nfsd nfsv4"
# The NFS userspace: bookworm's (the host's suite, also for the 7.3 guest:
# the kernel's nfsd interface is the same) nfs-utils programs and every
# package holding a library they load (fx_elf_closure fails on a missing
# one); libtirpc-common for /etc/netconfig. NFSv4 only: no rpcbind, no
# rpc.statd, no idmapd (numeric ids with AUTH_SYS). nfsdcld: without client
# tracking the stock kernels (no CONFIG_NFSD_LEGACY_CLIENT_TRACKING) hold
# every OPEN for a 90 s grace period and refuse to end it early
# (v4_end_grace: EBUSY); with nfsdcld and nothing to reclaim nfsd skips it.
FS_NFS_DEBS="nfs-kernel-server nfs-common libc6 libwrap0 libnsl2 libblkid1 libuuid1 libtirpc3
libtirpc-common libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1
libmount1 libselinux1 libpcre2-8-0 libsqlite3-0 libevent-core-2.1-7 libcap2"
FS_NFS_BINS="/usr/sbin/rpc.nfsd /usr/sbin/rpc.mountd /usr/sbin/exportfs /usr/sbin/nfsdcld /sbin/mount.nfs"
FS_HOST_DUMPS="d0-zlib:-d_0_-c d17-zlib:-d_17_-c d31-zlib:-d_31_-c"
FS_SID_DUMPS="d31-zlib:-d_31_-c"

recipe_prepare() {
	case $FX_SET in
	fs612) STOCK_MODULES=$FS_MODULES612
		prepare_stock_kernel
		fx_shared prepare_apt73 prepare_sid_chroot ;;
	fs73) STOCK73_MODULES=$FS_MODULES73
		fx_shared prepare_apt73 prepare_stock73_kernel prepare_sid_chroot ;;
	*) die "fs.sh: no set $FX_SET" ;;
	esac
}
fs_key() {
	echo "mem=$FS_MEM roles=$FS_ROLES host=$FS_HOST_DUMPS sid=$FS_SID_DUMPS"
	echo "disks: ext4 64M, xfs 320M, btrfs 320M (fs_disks)"
	# shellcheck disable=SC2086
	echo "nfs: roles=$FS_NFS_ROLES bins=$FS_NFS_BINS" $(fx_debs_candidates $FS_NFS_DEBS)
}

# fs_nfs_userspace: FS_NFS_BINS and their libraries into $ROOT, from the
# candidates of FS_NFS_DEBS (the versions fs_key printed)
fs_nfs_userspace() {
	step "NFS userspace from bookworm .debs (nfs-utils and the libraries it loads)"
	# shellcheck disable=SC2086
	fx_deb_sysroot "$W/nfs-sysroot" $FS_NFS_DEBS
	# shellcheck disable=SC2086
	fx_elf_closure "$W/nfs-sysroot" "$ROOT" $FS_NFS_BINS
	mkdir -p "$ROOT/etc"
	cp "$W/nfs-sysroot/etc/netconfig" "$ROOT/etc/netconfig"
	rm -rf "$W/nfs-sysroot"
}

# fs_disks DIR: the empty filesystems the guest fills, on sparse files
fs_disks() {
	step "make the guest's disks (ext4, XFS, btrfs) on sparse files"
	truncate -s 64M "$1/ext4.img"
	mkfs.ext4 -q -F -L fx-ext4 -U 00000000-0000-4000-8000-0000000fe4e4 -E root_owner=0:0 \
		"$1/ext4.img" >&2 || die "mkfs.ext4"
	truncate -s 320M "$1/xfs.img"
	mkfs.xfs -q -f -L fx-xfs -m uuid=00000000-0000-4000-8000-00000000f0f5 "$1/xfs.img" >&2 ||
		die "mkfs.xfs"
	truncate -s 320M "$1/btrfs.img"
	mkfs.btrfs -q -f -L fx-btrfs -U 00000000-0000-4000-8000-0000000fb7f5 "$1/btrfs.img" >&2 ||
		die "mkfs.btrfs"
}

recipe_content() {
	local mods
	fx_init "$HERE/fs_init.sh"
	fx_static_tool guest/fxfs.c "$ROOT/bin/fxfs"
	ln -s fxfs "$ROOT/bin/cinit"   # the container's init: its own comm
	fs_nfs_userspace
	mods=$(fx_kernel_modules)
	fx_conf 'FX_SET=%s\nFX_MODULES="%s"\n' "$FX_SET" "$mods"
	fs_disks "$W"
}

fs_qmp() {   # fs_qmp COMMAND: a bare QMP command (stop)
	$PY -c 'import sys; sys.path.insert(0, sys.argv[1]); from qmp import QMP
QMP(sys.argv[2]).execute(sys.argv[3])' "$HERE" "$W/qmp.sock" "$1"
}

recipe_run() {
	local t d
	BOOT_EXTRA=()
	for d in ext4 xfs btrfs; do   # vda, vdb, vdc
		BOOT_EXTRA+=(-drive "file=$W/$d.img,format=raw,if=virtio")
	done
	step "boot QEMU (TCG, $FS_MEM MiB, three virtio disks)"
	fx_boot "$KDIR/vmlinuz" "$FS_MEM" "$STD_APPEND" "$OUT/serial.log"
	BOOT_EXTRA=()
	fx_wait_ready "$OUT/serial.log"
	step "stop the guest; QMP dump elf-nopaging.vmcore"
	fs_qmp stop || die "qmp stop"
	t=$(qmp dump "$OUT/elf-nopaging.vmcore") || die "qmp dump elf-nopaging"
	TIMINGS="${TIMINGS}dump_elf_nopaging_s=$t\n"
	quit_guest "$T_BOOT"
	rm -f "$W"/*.img
	step "ELF program headers where makedumpfile reads them (elf_fixphdr.py)"
	fx_fixphdr "$OUT/elf-nopaging.vmcore" "$W/fixed.elf"
	# shellcheck disable=SC2086
	fx_makedumpfile "$W/fixed.elf" "$OUT/" "" $FS_HOST_DUMPS
	MDF_RUNNER=(sid_run "$SID_CHROOT")
	# shellcheck disable=SC2086
	fx_makedumpfile "$W/fixed.elf" "$OUT/sid-" sid_ $FS_SID_DUMPS
	MDF_RUNNER=()
	rm -f "$W/fixed.elf"
	chmod 0644 "$OUT"/*.vmcore
}

# fs_specs: drgn_truth_fs.py's ROLE:PID:PATH / ROLE:PID:fd:N, one per
# stat line of the guest
fs_specs() {
	tr -d '\r' < "$OUT/serial.log" | sed -n 's/.*inodedump-stat: //p' | awk '{
		r = ""; p = ""; pa = ""; h = ""
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "role") r = kv[2]
			if (kv[1] == "pid") p = kv[2]
			if (kv[1] == "path") pa = substr($i, 6)
			if (kv[1] == "holder") { h = kv[2]; sub(/^[0-9]*:/, "", h) }
		}
		if (h != "") print r ":" p ":fd:" h; else print r ":" p ":" pa }'
}

recipe_truth() {
	local n specs t0
	specs=$(fs_specs)
	n=$(printf '%s\n' "$specs" | grep -c .)
	[ "$n" -eq "$FS_ROLES" ] || die "the guest printed $n stat lines, expected $FS_ROLES"
	n=$(grep -c 'inodedump-nfs: ' "$OUT/serial.log" || true)
	[ "$n" -eq "$FS_NFS_ROLES" ] || die "the guest printed $n inodedump-nfs lines, expected $FS_NFS_ROLES"
	step "truth.txt from drgn $(cat "$SID_CHROOT/drgn-version") (sid chroot) reading d0-zlib.vmcore"
	t0=$(now)
	# shellcheck disable=SC2086
	in_sid "$SID_CHROOT" "$OUT" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_truth_fs.py \
		/fx/vmlinux /fx/d0-zlib.vmcore $specs > "$OUT/truth.txt" || die "drgn_truth_fs.py in the sid chroot"
	TIMINGS="${TIMINGS}truth_s=$(elapsed "$t0")\n"
	n=$(wc -l < "$OUT/truth.txt")
	[ "$n" -eq "$FS_ROLES" ] || die "expected $FS_ROLES truth lines, got $n"
	step "truth.txt agrees with the guest's own stat lines (stat_vs_truth_fs.py)"
	$PY "$HERE/stat_vs_truth_fs.py" "$OUT/serial.log" "$OUT/truth.txt" > "$OUT/stat-vs-truth.txt" || {
		cat "$OUT/stat-vs-truth.txt" >&2; die "stat_vs_truth_fs.py"; }
	tail -1 "$OUT/stat-vs-truth.txt" >&2
	step "slab-truth.txt from drgn_slab_truth.py (sid chroot) reading d0-zlib.vmcore"
	t0=$(now)
	in_sid "$SID_CHROOT" "$OUT" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_slab_truth.py \
		/fx/vmlinux /fx/d0-zlib.vmcore /fx/truth.txt > "$OUT/slab-truth.txt" ||
		die "drgn_slab_truth.py in the sid chroot"
	TIMINGS="${TIMINGS}slab_truth_s=$(elapsed "$t0")\n"
	fs_nfs_truth
	n=$(grep -c '^what .* kind=inode ' "$OUT/slab-truth.txt")
	[ "$n" -eq "$FS_ROLES" ] || die "slab-truth.txt: $n kind=inode lines, expected $FS_ROLES"
	n=$(grep -c '^what .* kind=freed .* state=free$' "$OUT/slab-truth.txt" || true)
	[ "$n" -gt 0 ] || die "slab-truth.txt: no free object in any inode cache"
	log "slab-truth: $(grep -c '^what ' "$OUT/slab-truth.txt") addresses ($n free objects)," \
		"$(grep -c '^cache ' "$OUT/slab-truth.txt") caches, $(grep -c '^sb ' "$OUT/slab-truth.txt") superblocks"
}
# fs_nfs_truth: nfs-truth.txt, the nfs4 truth inodes' NFS client state
# (drgn_nfs_truth.py in the sid chroot), at the offsets of nfs-pahole.txt
# (the host's pahole reading the nfs module's BTF against vmlinux's: drgn
# does not read BTF, and the set has no module debuginfo)
FS_NFS_STRUCTS=nfs_inode,nfs_fh,nfs_server,nfs_client,nfs_rpc_ops
fs_nfs_truth() {
	local n want t0 s
	step "nfs-pahole.txt: pahole -C $FS_NFS_STRUCTS on the nfs module's BTF"
	# pahole 1.24 warns of BTF kinds it does not know (7.x's decl tags):
	# stderr dropped, each struct checked for below
	pahole -C "$FS_NFS_STRUCTS" --btf_base "$KDIR/vmlinux" "$KDIR/modules/nfs.ko" \
		> "$OUT/nfs-pahole.txt" 2>/dev/null || die "pahole on $KDIR/modules/nfs.ko"
	for s in ${FS_NFS_STRUCTS//,/ }; do
		grep -q "^struct $s {" "$OUT/nfs-pahole.txt" || die "pahole printed no struct $s"
	done
	step "nfs-truth.txt from drgn_nfs_truth.py (sid chroot) reading d0-zlib.vmcore"
	t0=$(now)
	in_sid "$SID_CHROOT" "$OUT" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_nfs_truth.py \
		/fx/vmlinux /fx/d0-zlib.vmcore /fx/nfs-pahole.txt /fx/truth.txt > "$OUT/nfs-truth.txt" ||
		die "drgn_nfs_truth.py in the sid chroot"
	TIMINGS="${TIMINGS}nfs_truth_s=$(elapsed "$t0")\n"
	n=$(grep -c '^nfs ' "$OUT/nfs-truth.txt" || true)
	want=$(grep -c ' fstype=nfs4 ' "$OUT/truth.txt" || true)
	[ "$n" -eq "$want" ] && [ "$n" -gt 0 ] || die "nfs-truth.txt: $n lines for $want nfs4 truth inodes"
	log "nfs-truth: $n nfs4 inodes"
}

recipe_info() {
	echo "drgn=$(cat "$SID_CHROOT/drgn-version") sid_chroot=$SID_CHROOT"
	echo "makedumpfile_host=$(dpkg-query -W -f='${Version}' makedumpfile)"
	echo "makedumpfile_sid=$(sid_run "$SID_CHROOT" dpkg-query -W -f='${Version}' makedumpfile)"
	echo "modules=$(cat "$KDIR/modules.list")"
	echo "roles=$FS_ROLES nfs_roles=$FS_NFS_ROLES"
	echo "pahole=$(pahole --version)"
	# shellcheck disable=SC2086
	echo "nfs_debs=$(fx_debs_candidates $FS_NFS_DEBS | tr '\n' ' ' | sed 's/ $//')"
}
