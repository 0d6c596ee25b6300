#!/usr/bin/env bash
# Remakes deploy/link-order.txt, the order in which lld lays out the release binary's functions
# (Tests/tools/build-static.sh and deploy/build-aarch64.sh pass it to lld; Package.swift puts each
# function in its own section for release builds).
#
# Why: a static binary's code is mapped from the file, and the kernel maps it 64 KiB around each
# page fault (fault-around); spread over 7 MB of text, the functions `cairn record` runs touched
# 5.6 MB of it. Placed together they touch about half (Tests/bench/memory-results.md).
#
# How: `cairn record` runs a replayed ride under valgrind's callgrind (every function it executes,
# by name); then, natively, perf records the page faults in the text and the functions they hit
# that the order misses (paths that run only at native speed, the CPU's own string functions) are
# added, relinking, until a ride adds none or ROUNDS (default 12) have passed.
# The board's binary is built by Debian's Swift 6.0.3 (deploy/build-aarch64.sh), whose optimiser
# names many functions differently: `--toolchain 6.0.3` makes the order from that toolchain's
# x86_64 build in the same build root (made by build-aarch64.sh first). The file is the union:
# the names of the route just run first, then the file's others (names a binary lacks are not
# placed; of the arm64 objects' names, 1,536 are in the 6.3.1 order alone, 1,817 in the union).
# Usage: deploy/make-link-order.sh [--toolchain 6.3.1|6.0.3] [ROUNDS]
#        x86_64, as root for 6.0.3; needs valgrind and perf (installed here)
set -euo pipefail
cd "$(dirname "$0")/.."
toolchain=6.3.1
if [ "${1:-}" = --toolchain ]; then toolchain=${2:-}; shift 2 || true; fi
rounds=${1:-12}
case $toolchain in 6.3.1|6.0.3) ;; *) echo "make-link-order: --toolchain 6.3.1 or 6.0.3" >&2; exit 64 ;; esac
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
bash Tests/tools/install-deps.sh >/dev/null
if ! command -v valgrind >/dev/null || ! command -v perf >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind linux-perf </dev/null >/dev/null
fi
die() { echo "make-link-order: $*" >&2; exit 1; }
rp= rec=
flags=(-c release --product cairn --static-swift-stdlib -Xswiftc -static-executable -Xswiftc -use-ld=lld
       -Xlinker --icf=all -Xlinker --gc-sections -Xlinker --no-warn-symbol-ordering)
if [ "$toolchain" = 6.3.1 ]; then
  scratch=.build/link-order
  work=$(mktemp -d)
  inside=$work  # where the linker sees $work
  build() { swift build --scratch-path "$scratch" "$@"; }
else
  # Debian 13's toolchain in build-aarch64.sh's root, in a mount namespace of our own (its /proc
  # and /dev), with sources and build directory apart from build-aarch64.sh's.
  broot=${CAIRN_CACHE:-/var/cache/cairn}/trixie-root
  [ -f "$broot/.cairn-root" ] || die "no build root in $broot: run deploy/build-aarch64.sh first"
  # As build-aarch64.sh links (no .eh_frame registration at start).
  flags+=(-Xlinker --defsym=__register_frame_info=0 -Xlinker --defsym=__deregister_frame_info=0)
  scratch=$broot/build/link-order-x86_64
  rm -rf "$broot/src/link-order" && mkdir -p "$broot/src/link-order"
  tar --exclude=./.build --exclude=./.git -cf - . | tar -C "$broot/src/link-order" -xf -
  work=$(mktemp -d -p "$broot/tmp")
  inside=${work#"$broot"}
  build() {
    unshare -m --propagation private sh -c 'mount -t proc proc "$0/proc" && mount --bind /dev "$0/dev" &&
      exec chroot "$0" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 sh -c "cd /src/link-order && exec swift build \"\$@\"" swift "$@"' \
      "$broot" --scratch-path /build/link-order-x86_64 "$@"
  }
fi
trap 'kill $rp $rec 2>/dev/null || true; rm -rf "$work"' EXIT

link() {  # link ORDER: the release binary laid out by ORDER, with its map and symbols in $work
  rm -f "$scratch/release/cairn"  # SwiftPM does not see the order file as an input
  cp "$1" "$work/link.order"
  build "${flags[@]}" -Xlinker "--symbol-ordering-file=$inside/link.order" -Xlinker "-Map=$inside/link.map" \
    >"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; die "swift build failed"; }
  nm -S "$scratch/release/cairn" >"$work/nm"
}

# The ride: 6 minutes at 1 Hz with a barometer (a fake sysfs bmp280, as the benchmarks use).
python3 Tests/tools/make-ride.py 0.1 "$work/ride.nmea"
baro=$work/sys/bus/iio/devices/iio:device0
mkdir -p "$baro"
printf 'bmp280\n' >"$baro/name"; printf '100.123456789\n' >"$baro/in_pressure_input"; printf '23450\n' >"$baro/in_temp_input"
ride() {  # ride COMMAND...: `COMMAND cairn record` over the ride; prints the recorder's VmHWM
  rm -rf "$work/logs" "$work/replay.out"
  python3 Tests/tools/gpsd-replay.py "$work/ride.nmea" --port 0 --wait-client 120 >"$work/replay.out" 2>"$work/replay.err" &
  rp=$!
  for _ in $(seq 300); do grep -q '^READY' "$work/replay.out" && break; sleep 0.1; done
  local port
  port=$(awk '/^READY/ {print $2}' "$work/replay.out")
  [ -n "$port" ] || { cat "$work/replay.err" >&2; die "gpsd-replay did not become ready"; }
  "$@" "$work/cairn" record --gpsd "127.0.0.1:$port" --dir "$work/logs" --baro auto --sysfs-root "$work/sys" \
    --clock fix --read-every 1 --status "$work/status" 2>"$work/record.err" &
  rec=$!
  for _ in $(seq 6000); do grep -q '^DONE' "$work/replay.out" && break; sleep 0.1; done
  sleep 7  # a sync and a status write more
  local pid
  pid=$(pgrep -n -f "$work/cairn record") || die "the recorder is gone: $(tail -3 "$work/record.err")"
  awk '/^VmHWM/ {print $2 " kB"}' "/proc/$pid/status"
  kill -TERM "$pid"; wait $rec || true; rec=
  kill $rp 2>/dev/null || true; wait $rp 2>/dev/null || true; rp=
}

: >"$work/empty"
link "$work/empty"
cp "$scratch/release/cairn" "$work/cairn"
echo "make-link-order: without an order, record's peak RSS $(ride)"
strip --strip-debug "$work/cairn"  # valgrind cannot read the C shims' DWARF 5
ride valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/record.cg" >/dev/null
python3 deploy/link-order.py profile "$work/record.cg" "$work/nm" "$work/link.map" >"$work/order"
for round in $(seq "$rounds"); do
  link "$work/order"
  cp "$scratch/release/cairn" "$work/cairn"
  hwm=$(ride perf record -q -e page-faults -c 1 -d -o "$work/faults.data")
  added=$(perf script -i "$work/faults.data" -F addr 2>/dev/null | python3 deploy/link-order.py faults "$work/nm" "$work/order")
  echo "make-link-order: round $round, peak RSS $hwm under perf, $added functions added"
  [ "$added" = 0 ] && break
done
# The union: this toolchain's order, then the file's names it lacks (the other toolchain's).
awk 'NR == FNR {have[$0] = 1; print; next} !($0 in have)' "$work/order" deploy/link-order.txt >"$work/union"
cp "$work/union" deploy/link-order.txt
echo "make-link-order: deploy/link-order.txt has $(wc -l <deploy/link-order.txt) names"
