#!/usr/bin/env bash
# The board in a box: cairn from our .deb on a booted Debian 12 guest under qemu (TCG, no KVM),
# with gpsd on a serial port fed a real recording, a BMP280 on i2c-stub and real power cuts.
#
#   sudo bash deploy/board/run.sh [--arch amd64|arm64] [--deb FILE] [--ride] [--bench] [--bench-devices] [--led] [--deliver-bench]
#                                 [--sensor-bench] [--cuts-ext4 N] [--cuts-vfat N] [--rate HZ] [--seed S] [--keep] [--out DIR]
#                                 [--roots-from DIR]
#
# With no scenario option: --ride --cuts-ext4 2 --cuts-vfat 2 (what CI runs on amd64; on arm64
# CI runs --ride). --bench: CPU time and peak RSS of cairn and gpxlogger over the ride
# (--bench-devices: the same with the LED and the button configured, nothing pressed). --led: the
# status LED as the unit ships it (a uinput keyboard's caps lock through input-leds), and a ride
# home delivered to a loopback WebDAV NAS, the door to the receipt measured. --deliver-bench:
# the first delivery of 60 trips to a local remote, timed beside one `rclone copy` of the same
# files (Tests/bench/deliver-results.md). --sensor-bench: cairn's CPU, wake-ups and peak RSS without
# and with three virtual Bluetooth sensors (Tests/bench/sensors-cost-results.md). The guest root
# is cached outside the checkout in $CAIRN_CACHE/board/ARCH (default /var/cache/cairn; debootstrap,
# keyed by its package list and make-root.sh);
# each run works in .build/board/run-ARCH (or --out DIR) and writes its figures to results.json there.
# Only the roots the scenarios boot are made (vfat's for --cuts-vfat alone); --roots-from DIR takes
# them from an earlier run's DIR when they were made from the same inputs (the cached tree, the
# .deb, the guest's helpers: a key beside each), as CI's second amd64 stage does.
# The .deb defaults to .build/deb/cairn_VERSION_ARCH.deb (deploy/build-aarch64.sh builds it).
# Never skips: a missing tool or a guest that cannot boot is a failure with the reason.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "board: $*"; }
die() { echo "board: ERROR: $*" >&2; exit 1; }

arch=amd64 deb="" scen=() rate="" seed="" keep="" run="" from="" vfat=no
while [ $# -gt 0 ]; do
    case "$1" in
        --arch) arch=${2:?}; shift ;;
        --deb) deb=${2:?}; shift ;;
        --ride) scen+=(--ride) ;;
        --bench) scen+=(--bench) ;;
        --bench-devices) scen+=(--bench --bench-devices) ;;
        --led) scen+=(--led) ;;
        --deliver-bench) scen+=(--deliver-bench) ;;
        --sensor-bench) scen+=(--sensor-bench) ;;
        --cuts-ext4|--cuts-vfat)
            [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "board: $1 takes a number of cuts, not '${2:-}'" >&2; exit 64; }
            [ "$1" = --cuts-vfat ] && [ "$2" -gt 0 ] && vfat=yes
            scen+=("$1" "$2"); shift ;;
        --roots-from) from=${2:?}; shift ;;
        --rate) rate=${2:?}; shift ;;
        --seed) seed=${2:?}; shift ;;
        --keep) keep=--keep ;;
        --out) run=${2:?}; shift ;;
        -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "board: unknown option '$1' (see --help)" >&2; exit 64 ;;
    esac
    shift
done
[ ${#scen[@]} -gt 0 ] || { scen=(--ride --cuts-ext4 2 --cuts-vfat 2); vfat=yes; }
[ "$(id -u)" = 0 ] || die "run as root: debootstrap, chroot and mkfs need it"
case "$arch" in
    amd64) qemu=qemu-system-x86_64 smp=2 gpsdev=/dev/ttyS1 ;;
    # a Raspberry Pi Zero 2 W's four Cortex-A53 (and 512 MB); virt's one PL011 is the console,
    # so the GPS is a virtio console
    arm64) qemu=qemu-system-aarch64 smp=4 gpsdev=/dev/hvc0 ;;
    *) die "unknown architecture '$arch' (amd64 or arm64)" ;;
esac
for t in debootstrap "$qemu" qemu-img mkfs.ext4 e2fsck debugfs mkfs.vfat fsck.vfat mcopy busybox cpio python3 dpkg-deb; do
    command -v "$t" >/dev/null || die "$t is missing (bash Tests/tools/install-deps.sh installs what the board needs)"
done
version=$(sed -n 's/^let cairnVersion = "\(.*\)"$/\1/p' "$repo/Sources/cairn/Console.swift")
deb=${deb:-$repo/.build/deb/cairn_${version}_${arch}.deb}
[ -f "$deb" ] || die "no package at $deb: build it first (sudo bash deploy/build-aarch64.sh)"

t0=$SECONDS
kdir=${CAIRN_CACHE:-/var/cache/cairn}/board/$arch
bash "$here/make-root.sh" "$arch" "$kdir"
run=${run:-$repo/.build/board/run-$arch}
rm -rf "$run"; mkdir -p "$run"; run=$(cd "$run" && pwd)

# A host-side cairn for verify and list: the amd64 package's own binary.
hostdeb=${deb/_${arch}.deb/_amd64.deb}
[ -f "$hostdeb" ] || die "no amd64 package at $hostdeb for the host's cairn verify/list"
dpkg-deb -x "$hostdeb" "$run/host"
dpkg-deb -x "$deb" "$run/pkg"
# The host's checks first, on crafted disks and logs (a few seconds): a check that cannot fail
# would pass every boot after it.
python3 "$here/selftest/run.py" --cairn "$run/host/usr/bin/cairn" >"$run/selftest.log" 2>&1 \
    || { cat "$run/selftest.log" >&2; die "the host-side checks fail their self-test (deploy/board/selftest/run.py)"; }

# One root per log file system the scenarios boot, each from a copy of the cached tree with our
# .deb installed. The guests never write it (each boots a qcow2 overlay on it), so a root made
# from the same inputs by an earlier run is the same root.
roots_key=$({ cat "$kdir/key"; sha256sum <"$deb"; cat "$here/guest/"* | sha256sum; echo "$gpsdev"; } | sha256sum | cut -c1-16)
fss=(ext4); [ "$vfat" = yes ] && fss+=(vfat)
for fs in "${fss[@]}"; do
    if [ -n "$from" ] && [ -f "$from/root-$fs.img" ] && [ "$(cat "$from/root-$fs.key" 2>/dev/null)" = "$roots_key" ]; then
        ln "$from/root-$fs.img" "$run/root-$fs.img" 2>/dev/null || cp "$from/root-$fs.img" "$run/root-$fs.img"
        echo "$roots_key" >"$run/root-$fs.key"
        say "the $fs root from $from (key $roots_key)"
        continue
    fi
    rm -rf "$run/rootfs"
    cp -a "$kdir/root" "$run/rootfs"
    bash "$here/guest/setup.sh" "$run/rootfs" "$deb" "$fs" "$gpsdev"
    out=$(mkfs.ext4 -q -F -L root -d "$run/rootfs" "$run/root-$fs.img" 1200M 2>&1) || die "mkfs.ext4 of the guest root failed: $out"
    echo "$roots_key" >"$run/root-$fs.key"
done
rm -rf "$run/rootfs"
say "guest roots ready ($((SECONDS - t0)) s; ${fss[*]}): $(cat "$kdir/kver"), $(basename "$deb")"

status=0
python3 "$here/board.py" --arch "$arch" --kdir "$kdir" --run "$run" --cairn "$run/host/usr/bin/cairn" \
    --unit "$run/pkg/usr/lib/systemd/system/cairn.service" --smp "$smp" ${rate:+--rate "$rate"} \
    ${seed:+--seed "$seed"} $keep --json "$run/results.json" "${scen[@]}" || status=$?
say "wall time $((SECONDS - t0)) s (${scen[*]})"
exit "$status"
