#!/bin/busybox sh
# Guest /init of the fs sets (recipes/fs.sh; busybox ash). /etc/fixture.conf
# sets FX_SET and FX_MODULES (loaded in order from /modules/<mod>.ko). Three
# virtio disks made on the host: /dev/vda ext4, /dev/vdb XFS, /dev/vdc btrfs.
# What it makes (README.md, "The fs sets"):
#   /tmp/fx          tmpfs, the stock guest's nine files
#   /mnt/ext4/fx     ext4, the same nine (a fast and a slow symlink)
#   /mnt/ext4/lower  ext4, the overlay's lower layer
#   /mnt/xfs/fx      XFS: regular, empty, big, dir, hardlink, a short
#                    (inline) and a long (remote) symlink
#   /mnt/btrfs       btrfs: files at the top level, the subvolume subvol
#                    (fxfs subvol) with files, subvol mounted alone a second
#                    time at /mnt/subvol
#   the container    `unshare -m`: a tmpfs at /ovl (upper, work) and the
#                    overlay at /merged, in its namespace only; a copy-up, a
#                    whiteout, a new file; its init (/bin/cinit, pid in
#                    /run-ns.pid) holds three merged files open, cwd /merged
#   NFSv4.2          the kernel's nfsd exports /mnt/ext4/export (bookworm's
#                    exportfs, rpc.mountd and rpc.nfsd, v4 only: no rpcbind),
#                    mounted over loopback at /mnt/nfs (mount.nfs, vers=4.2);
#                    through the mount: regular, empty, big, dir, hardlink,
#                    a short and a long symlink, a file chowned to 1000:1000,
#                    one held open by `fxfs hold` (pid in /run-nfs.pid)
#   fxfs ipc         a socketpair, a pipe and an eventfd held open
#   churn            300 files made and deleted on tmpfs, ext4, XFS, btrfs,
#                    50 on the NFS mount
# Console lines the host parses:
#   inodedump-stat: ns=... pid=... comm=... role=... path=... (fxfs stat)
#   inodedump-nfs: role=... fh=... fileid=... server=... export=... (fxfs nfs)
#   inodedump-nfs-mount: mnt_id=... source=... superopts=... (fxfs nfs)
#   inodedump-nfsd: the server's /proc/fs/nfsd/{versions,exports,threads}
#   inodedump-init: FAILED: ...     any failure
#   inodedump-init: ready           the host stops the guest and dumps it
/bin/busybox mkdir -p /bin /sbin /proc /sys /dev /tmp /mnt /run /var/lib/nfs
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp

FX_SET=unknown FX_MODULES=
. /etc/fixture.conf
echo "inodedump-init: set=$FX_SET kernel=$(uname -r)"

fail() { echo "inodedump-init: FAILED: $*"; }

for m in $FX_MODULES; do
	insmod "/modules/$m.ko" || fail "insmod $m"
done

# A long (>128 chars: tmpfs keeps it in a page; > 60: an ext4 slow symlink;
# < 336: still inline in a 512-byte XFS inode) target, no spaces.
LONG=/tmp/fx/long-symlink-target-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-end
# Longer than an XFS inode's literal area (a remote symlink block), 640 chars.
XLONG=/xfs-remote-target
for i in 1 2 3 4 5 6 7 8 9 10; do
	XLONG="$XLONG/component-$i-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdef"
done

# make_files DIR: the stock guest's kinds of files in DIR
make_files() {
	d=$1
	mkdir -p "$d" || fail "mkdir $d"
	printf 'hello\n' > "$d/regular" || fail "write $d/regular"
	: > "$d/empty"
	# 64 KiB of non-zero bytes
	yes inodedump-big-file-content-0123456789abcdefghijklmnopqrstuvwxyz | head -c 65536 > "$d/big"
	mkdir "$d/dir"
	ln -s short-target "$d/symlink_short"
	ln -s "$LONG" "$d/symlink_long"
	ln "$d/regular" "$d/hardlink"
	mkfifo "$d/fifo"
	mknod "$d/chardev" c 1 3
}
FILES="regular empty big dir symlink_short symlink_long hardlink fifo chardev"

# the disks appear once virtio_blk probes them
n=0
while [ ! -b /dev/vdc ] && [ "$n" -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
[ -b /dev/vda ] && [ -b /dev/vdb ] && [ -b /dev/vdc ] || fail "no virtio disks: $(ls /dev | grep vd)"

# --- tmpfs
make_files /tmp/fx

# --- ext4 (fast symlink_short, slow symlink_long) and the overlay's lower layer
mkdir -p /mnt/ext4
mount -t ext4 /dev/vda /mnt/ext4 || fail "mount ext4"
make_files /mnt/ext4/fx
L=/mnt/ext4/lower
mkdir -p $L/subdir || fail "mkdir $L"
printf 'lower copy_me\n' > $L/copy_me
printf 'lower to_delete\n' > $L/to_delete
printf 'lower only\n' > $L/lower_only
printf 'deep\n' > $L/subdir/deep
ln -s lower_only $L/lower_link

# --- XFS: a short symlink inline in the data fork, a long one remote
mkdir -p /mnt/xfs
mount -t xfs /dev/vdb /mnt/xfs || fail "mount xfs"
X=/mnt/xfs/fx
mkdir -p $X/dir || fail "mkdir $X"
printf 'hello xfs\n' > $X/regular
: > $X/empty
yes inodedump-xfs-file-content-0123456789abcdefghijklmnopqrstuvwxyz | head -c 65536 > $X/big
ln $X/regular $X/hardlink
ln -s short-target $X/symlink_short
ln -s "$XLONG" $X/symlink_long

# --- btrfs: files at the top level, a subvolume, mounted alone a second time
mkdir -p /mnt/btrfs /mnt/subvol
mount -t btrfs /dev/vdc /mnt/btrfs || fail "mount btrfs"
B=/mnt/btrfs
printf 'hello btrfs\n' > $B/regular
yes inodedump-btrfs-file-content-0123456789abcdefghijklmnopqrstuvwxyz | head -c 65536 > $B/big
mkdir $B/dir
ln $B/regular $B/hardlink
ln -s short-target $B/symlink_short
ln -s "$LONG" $B/symlink_long
fxfs subvol $B subvol || fail "fxfs subvol"
printf 'hello subvolume\n' > $B/subvol/regular
mkdir $B/subvol/dir
ln -s ../regular $B/subvol/symlink
mount -t btrfs -o subvol=subvol /dev/vdc /mnt/subvol || fail "mount btrfs subvol=subvol"

# --- NFSv4.2 over loopback: nfsd exports a directory of the ext4 disk, the
# client mounts it; every file below is made through the mount. NFSv4 only
# (-N 3, no UDP; the kernel has no NFSv2, and rpc.nfsd fails on "-N 2":
# "Unsupported version"): no rpcbind, no statd; exportfs writes the export
# table, rpc.mountd answers the kernel's export cache upcalls. rpc.nfsd
# --debug: its steps on the console (else to a syslog there is none of);
# mount.nfs retry=0: a failure fails now, not after 2 minutes of retries.
E=/mnt/ext4/export
N=/mnt/nfs
mkdir -p $E $N
echo "inodedump-init: nfs setup, uptime $(cut -d' ' -f1 /proc/uptime) s"
ip link set lo up || fail "loopback up"   # the kernel brings up no interface
mount -t nfsd nfsd /proc/fs/nfsd || fail "mount nfsd"
mkdir -p /var/lib/nfs/rpc_pipefs /var/lib/nfs/nfsdcld
mount -t rpc_pipefs rpc_pipefs /var/lib/nfs/rpc_pipefs || fail "mount rpc_pipefs"
# client tracking: with nfsdcld and no client to reclaim, nfsd starts
# without the 90 s grace period that would hold every OPEN
nfsdcld || fail "nfsdcld"
echo "$E 127.0.0.1(rw,sync,no_subtree_check,no_root_squash)" > /etc/exports
exportfs -r || fail "exportfs -r"
rpc.mountd -N 2 -N 3 --no-udp || fail "rpc.mountd"
rpc.nfsd --debug -N 3 --no-udp --port 2049 4 || fail "rpc.nfsd"
mount.nfs 127.0.0.1:$E $N -n -o vers=4.2,retry=0 || fail "mount.nfs 127.0.0.1:$E"
# the server's side as nfsd has it (exports: the kernel's export cache,
# filled by mountd's answers to the mount's upcalls)
for f in versions threads exports; do
	sed "s|^|inodedump-nfsd: $f: |" /proc/fs/nfsd/$f
done
printf 'hello nfs\n' > $N/regular || fail "write $N/regular"
: > $N/empty
yes inodedump-nfs-file-content-0123456789abcdefghijklmnopqrstuvwxyz | head -c 65536 > $N/big
mkdir $N/dir
ln $N/regular $N/hardlink
ln -s short-target $N/symlink_short
ln -s "$LONG" $N/symlink_long
printf 'owned by 1000\n' > $N/owned
chown 1000:1000 $N/owned || fail "chown $N/owned"
printf 'held open\n' > $N/held
sh -c "exec 3<$N/held; exec fxfs hold /run-nfs.pid" &
n=0
while [ ! -s /run-nfs.pid ] && [ "$n" -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
[ -s /run-nfs.pid ] || fail "fxfs hold of $N/held did not start"
echo "inodedump-init: nfs files made, uptime $(cut -d' ' -f1 /proc/uptime) s"

# --- churn: free objects in each filesystem's inode cache
# (50 on NFS: each file is a few round trips to nfsd, 300 took 33 s there)
for dn in /tmp/churn:300 /mnt/ext4/churn:300 /mnt/xfs/churn:300 /mnt/btrfs/churn:300 $N/churn:50; do
	d=${dn%:*}
	mkdir -p $d && fxfs churn $d ${dn#*:} || fail "churn $d"
	echo "inodedump-init: churn $d done, uptime $(cut -d' ' -f1 /proc/uptime) s"
done
sync

# --- the container: its own mount namespace, the overlay inside it only
mkdir -p /merged /ovl
cat > /ns.sh <<'EOF'
fail() { echo "inodedump-init: FAILED: container: $*"; }
mount -t tmpfs -o mode=0755 ovltmp /ovl || fail "mount /ovl"
mkdir -p /ovl/upper /ovl/work
mount -t overlay overlay -o lowerdir=/mnt/ext4/lower,upperdir=/ovl/upper,workdir=/ovl/work /merged ||
	fail "mount overlay"
printf 'modified through the merge\n' >> /merged/copy_me || fail "copy-up"
rm /merged/to_delete || fail "whiteout"
printf 'new upper file\n' > /merged/new_file || fail "new_file"
cd /merged || fail "cd /merged"
exec 3</merged/copy_me 4</merged/lower_only 5</merged/new_file 6</merged/subdir/deep
exec /bin/cinit hold /run-ns.pid
EOF
unshare -m sh /ns.sh &
n=0
while [ ! -s /run-ns.pid ] && [ "$n" -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
CPID=$(cat /run-ns.pid 2>/dev/null)
[ -n "$CPID" ] || fail "the container did not start"
n=0
while [ "$(cat /proc/$CPID/comm 2>/dev/null)" != cinit ] && [ "$n" -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
echo "inodedump-init: container pid=$CPID comm=$(cat /proc/$CPID/comm) mntns=$(readlink /proc/$CPID/ns/mnt) init-mntns=$(readlink /proc/1/ns/mnt)"
[ "$(readlink /proc/$CPID/ns/mnt)" != "$(readlink /proc/1/ns/mnt)" ] || fail "the container shares init's mount namespace"

# --- sockfs, pipefs and anon_inode inodes held by a process
fxfs ipc /run-ipc.ready &
n=0
while [ ! -s /run-ipc.ready ] && [ "$n" -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
[ -s /run-ipc.ready ] || fail "fxfs ipc did not start"

# --- the stat lines: the initial namespace (PID 1), then the container's
args=
for f in $FILES; do args="$args tmpfs_$f=/tmp/fx/$f ext4_$f=/mnt/ext4/fx/$f"; done
for f in regular empty big dir hardlink symlink_short symlink_long; do args="$args xfs_$f=$X/$f"; done
for f in regular big dir hardlink symlink_short symlink_long; do args="$args btrfs_$f=$B/$f"; done
args="$args btrfs_top=$B btrfs_sub_root=$B/subvol btrfs_sub_regular=$B/subvol/regular"
args="$args btrfs_sub_dir=$B/subvol/dir btrfs_sub_symlink=$B/subvol/symlink"
args="$args btrfs_subm_root=/mnt/subvol btrfs_subm_regular=/mnt/subvol/regular"
args="$args btrfs_subm_dir=/mnt/subvol/dir btrfs_subm_symlink=/mnt/subvol/symlink"
args="$args lower_copy_me=$L/copy_me lower_to_delete=$L/to_delete lower_only=$L/lower_only"
args="$args lower_link=$L/lower_link merged_outside=/merged"
nfs="nfs_root=$N"
for f in regular empty big dir hardlink symlink_short symlink_long owned held; do nfs="$nfs nfs_$f=$N/$f"; done
nfs="$nfs nfsd_root=$E"
for f in regular big dir symlink_long held; do nfs="$nfs nfsd_$f=$E/$f"; done
# shellcheck disable=SC2086
fxfs stat 1 $args $nfs || fail "fxfs stat (initial namespace)"
# shellcheck disable=SC2086
fxfs nfs $nfs || fail "fxfs nfs"
args="ovl_root=/merged ovl_copy_me=/merged/copy_me ovl_lower_only=/merged/lower_only"
args="$args ovl_new_file=/merged/new_file ovl_subdir=/merged/subdir ovl_deep=/merged/subdir/deep"
args="$args ovl_link=/merged/lower_link"
args="$args ns_upper_copy_me=/ovl/upper/copy_me ns_upper_whiteout=/ovl/upper/to_delete"
args="$args ns_upper_new_file=/ovl/upper/new_file ns_lower_copy_me=$L/copy_me"
args="$args ns_lower_to_delete=$L/to_delete ns_tmpfs_regular=/tmp/fx/regular"
# shellcheck disable=SC2086
nsenter -t "$CPID" -m fxfs stat "$CPID" $args || fail "fxfs stat (the container's namespace)"

sync
echo "inodedump-init: ready"
while :; do sleep 3600; done
