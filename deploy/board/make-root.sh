#!/usr/bin/env bash
# Builds the guest's root file system image for the board in a box, cached by a hash of this
# script, the package list and the guest files (deploy/board/guest):
#   make-root.sh ARCH OUTDIR        ARCH: amd64 or arm64
# Leaves OUTDIR/root (the guest's root tree, without cairn: run.sh installs our .deb into a copy
# of it for each run), OUTDIR/vmlinuz and OUTDIR/initrd.img (busybox and the modules to mount
# the root), OUTDIR/kver and OUTDIR/key (the cache key).
# Debian 12 (bookworm), like Raspberry Pi OS bookworm; the kernel is Debian's linux-image-ARCH,
# unpacked on the host (it is never installed in the guest: no initramfs-tools run there).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
arch=${1:?usage: make-root.sh ARCH OUTDIR}
out=${2:?usage: make-root.sh ARCH OUTDIR}
say() { echo "make-root[$arch]: $*"; }
die() { echo "make-root[$arch]: ERROR: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root: debootstrap and the image need it"

# gpsd-clients pulls GTK into debootstrap's resolver and fails; gpsd-tools has gpspipe/gpxlogger.
# rclone: cairn deliver's transport, and the loopback WebDAV server standing for the NAS (board.py --led).
packages=(systemd-sysv udev kmod dbus gpsd gpsd-tools i2c-tools procps util-linux e2fsprogs dosfstools rclone)
# bluez (bluetoothd, btmgmt) and python3 for Google's Bumble (/opt/bumble, below): the virtual
# Bluetooth sensors (board.py: --led on amd64, --sensor-bench; ble_check.py).
packages+=(bluez python3)
case "$arch" in
    amd64) kpkg=linux-image-amd64 qarch=x86_64 ;;
    arm64) kpkg=linux-image-arm64 qarch=aarch64 ;;
    *) die "unknown architecture '$arch' (amd64 or arm64)" ;;
esac
mirror=${CAIRN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# One maker of this root at a time (a CI run beside a developer's): the other waits, then finds it.
mkdir -p "$(dirname "$out")"
exec 9>"$out.lock"
flock 9
# The key: the package list, the archive, and every step below the next line (what makes the root).
key=$( { echo "$arch ${packages[*]} $kpkg $mirror"; grep '^BUMBLE_VERSION' "$here/ble_check.py"; sed '1,/^# ---- the steps ----$/d' "$0"; cat "$here/guest/initrd-init"; } | sha256sum | cut -c1-16)
# ---- the steps ----
if [ -f "$out/key" ] && [ "$(cat "$out/key")" = "$key" ] && [ -d "$out/root" ] && [ -f "$out/initrd.img" ]; then
    say "cached: $out (key $key)"
    exit 0
fi
rm -rf "$out/root" "$out/key"; mkdir -p "$out"
out=$(cd "$out" && pwd)   # the steps below change directory
work=$out/work   # kept after a failure: a finished debootstrap is not redone
mkdir -p "$work"
trap 'umount "$work/mnt" 2>/dev/null || true' EXIT

# 1. The root by debootstrap (minbase: what systemd needs, no apt recommends).
say "debootstrap bookworm $arch (${packages[*]})"
if [ "$arch" = arm64 ]; then
    command -v qemu-aarch64-static >/dev/null || die "qemu-user-static is needed for an arm64 debootstrap"
    [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc \
        || die "binfmt_misc cannot be mounted: the arm64 debootstrap's second stage needs it"
    [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64 \
        || die "qemu-aarch64 binfmt handler not registered"
fi
rootdir=$work/root
# A finished debootstrap kept from a failed run is reused only when it was made for this key.
[ "$(cat "$work/debootstrap.done" 2>/dev/null)" = "$key" ] || rm -rf "$rootdir" "$work/debootstrap.done"
[ -f "$work/debootstrap.done" ] || debootstrap --variant=minbase --arch="$arch" --include="$(IFS=,; echo "${packages[*]}")" \
    bookworm "$rootdir" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; die "debootstrap failed (log: $work/debootstrap.log)"; }
echo "$key" >"$work/debootstrap.done"

# 2. The kernel and its modules, unpacked from Debian's package on the host.
say "kernel: $kpkg"
rm -rf "$work/kernel"; kdir=$work/kernel; mkdir -p "$kdir"
chroot "$rootdir" apt-get -qq update >/dev/null 2>&1 || true
kdeb=$(cd "$kdir" && chroot "$rootdir" sh -c "cd /tmp && apt-get download -qq \$(apt-cache depends $kpkg | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)/\1/p' | head -1) && ls /tmp/*.deb") \
    || die "could not download $kpkg's image package"
mv "$rootdir$kdeb" "$kdir/"
dpkg-deb -x "$kdir"/*.deb "$kdir/x"
kver=$(ls "$kdir/x/lib/modules" | head -1)
cp "$kdir"/x/boot/vmlinuz-* "$out/vmlinuz"
mkdir -p "$rootdir/lib/modules"
cp -a "$kdir/x/lib/modules/$kver" "$rootdir/lib/modules/"
if [ "$arch" = arm64 ]; then
    # Debian 12's arm64 kernel does not ship i2c-stub (the barometer's bus): cross-build it
    # against the package's own headers, from the matching linux-source's i2c-stub.c. The
    # headers' kbuild helpers are arm64 programs: they run through binfmt and qemu-user.
    command -v aarch64-linux-gnu-gcc >/dev/null || die "gcc-aarch64-linux-gnu is needed to build i2c-stub for arm64"
    kb=$work/kbuild; rm -rf "$kb"; mkdir -p "$kb/sys" "$kb/mod"
    kmaj=${kver%%.*}.$(echo "$kver" | cut -d. -f2)   # 6.1
    kcommon=${kver%-arm64}-common
    for p in "linux-headers-$kver" "linux-headers-$kcommon" "linux-kbuild-$kmaj" "linux-source-$kmaj"; do
        f=$(chroot "$rootdir" sh -c "cd /tmp && apt-get download -qq $p && ls /tmp/${p}_*.deb") \
            || die "could not download $p (for i2c-stub)"
        mv "$rootdir$f" "$kb/"
    done
    for f in "$kb"/linux-headers-*.deb "$kb"/linux-kbuild-*.deb; do dpkg-deb -x "$f" "$kb/sys"; done
    # ... and hci_vhci (the virtual Bluetooth controller the sensors' rig needs), which it
    # does not ship either.
    dpkg-deb --fsys-tarfile "$kb"/linux-source-*.deb | tar -xO --wildcards '*/linux-source-*.tar.xz' >"$kb/src.tar.xz"
    tar -xJO --wildcards '*/drivers/i2c/i2c-stub.c' <"$kb/src.tar.xz" >"$kb/mod/i2c-stub.c"
    tar -xJO --wildcards '*/drivers/bluetooth/hci_vhci.c' <"$kb/src.tar.xz" >"$kb/mod/hci_vhci.c"
    rm -f "$kb/src.tar.xz"
    [ -s "$kb/mod/i2c-stub.c" ] || die "no drivers/i2c/i2c-stub.c in linux-source-$kmaj"
    [ -s "$kb/mod/hci_vhci.c" ] || die "no drivers/bluetooth/hci_vhci.c in linux-source-$kmaj"
    echo 'obj-m := i2c-stub.o hci_vhci.o' >"$kb/mod/Kbuild"
    # The headers name each other and the kbuild helpers by absolute paths: point them into $kb/sys.
    hdr=$kb/sys/usr/src/linux-headers-$kver
    sed -i "s|/usr/src/|$kb/sys/usr/src/|g" "$hdr/Makefile"
    for l in $(find "$kb/sys/usr/src" -maxdepth 2 -type l); do
        t=$(readlink "$l"); case "$t" in /*) ln -sfn "$kb/sys$t" "$l" ;; esac
    done
    QEMU_LD_PREFIX=$rootdir make -s -C "$hdr" M="$kb/mod" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules \
        >"$kb/build.log" 2>&1 || { tail -20 "$kb/build.log" >&2; die "building i2c-stub and hci_vhci for $kver failed (log: $kb/build.log)"; }
    mkdir -p "$rootdir/lib/modules/$kver/extra"
    cp "$kb/mod/i2c-stub.ko" "$kb/mod/hci_vhci.ko" "$rootdir/lib/modules/$kver/extra/"
    rm -rf "$kb"
fi
chroot "$rootdir" depmod "$kver"
# gpxlogger, the yardstick of run.sh --bench, is in gpsd-clients, which debootstrap cannot
# install (it pulls GTK): its one program, unpacked (it needs only libgps, which gpsd brings).
rm -rf "$work/gc"; mkdir -p "$work/gc"
gcdeb=$(chroot "$rootdir" sh -c 'cd /tmp && apt-get download -qq gpsd-clients && ls /tmp/gpsd-clients_*.deb') \
    || die "could not download gpsd-clients ($arch) for its gpxlogger"
dpkg-deb -x "$rootdir$gcdeb" "$work/gc"
rm -f "$rootdir$gcdeb"
install -m 0755 "$work/gc/usr/bin/gpxlogger" "$rootdir/usr/local/bin/gpxlogger"
if [ "$arch" != amd64 ]; then
    # the initrd's busybox: the host's is x86_64, so the guest arch's busybox-static, unpacked
    # (not installed in the root)
    rm -rf "$work/bb"; mkdir -p "$work/bb"
    bbdeb=$(chroot "$rootdir" sh -c 'cd /tmp && apt-get download -qq busybox-static && ls /tmp/busybox-static_*.deb') \
        || die "could not download busybox-static ($arch)"
    dpkg-deb -x "$rootdir$bbdeb" "$work/bb"
    rm -f "$rootdir$bbdeb"
fi
# Bumble (the virtual sensors' host stack) from PyPI wheels, cached by its version.
python3 "$here/ble_check.py" --install "$rootdir" --machine "$qarch" || die "could not install Bumble into the root"
rm -rf "$rootdir"/var/cache/apt/archives/*.deb "$rootdir"/var/lib/apt/lists/*_Packages

# 3. A small initrd: busybox and only the modules to reach and mount the root.
say "initrd ($kver)"
rm -rf "$work/initrd"; ird=$work/initrd; mkdir -p "$ird"/{bin,dev,proc,sys,mnt,lib/modules}
if [ "$arch" = amd64 ]; then
    cp /bin/busybox "$ird/bin/busybox"   # static busybox from the host (busybox-static)
else
    cp "$work/bb/bin/busybox" "$ird/bin/busybox"   # the guest's own (step 2)
fi
mods=(virtio virtio_ring virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk virtio_mmio
      pci-host-common pci-host-generic
      crc16 mbcache jbd2 crc32c_generic libcrc32c ext4 fat vfat nls_cp437 nls_ascii)
: >"$ird/modules"
for m in "${mods[@]}"; do
    f=$(find "$rootdir/lib/modules/$kver" -name "$m.ko*" | head -1)
    [ -n "$f" ] || continue   # built in
    case "$f" in *.xz) xz -dc "$f" >"$ird/lib/modules/$m.ko" ;; *) cp "$f" "$ird/lib/modules/$m.ko" ;; esac
    echo "$m" >>"$ird/modules"
done
cp "$here/guest/initrd-init" "$ird/init"; chmod 755 "$ird/init"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.img"

mv "$rootdir" "$out/root"
echo "$kver" >"$out/kver"
rm -rf "$work"
echo "$key" >"$out/key"
say "done: $out (key $key, kernel $kver, root $(du -sm "$out/root" | cut -f1) MB)"
