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
# Usage: deploy/make-link-order.sh [ROUNDS]      x86_64; needs valgrind and perf (installed here)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-12}
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
bash Tests/tools/install-deps.sh >/dev/null
if ! command -v valgrind >/dev/null || ! command -v perf >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind linux-perf </dev/null >/dev/null
fi
scratch=.build/link-order
work=$(mktemp -d)
rp= rec=
trap 'kill $rp $rec 2>/dev/null || true; rm -rf "$work"' EXIT
die() { echo "make-link-order: $*" >&2; exit 1; }

link() {  # link ORDER: the release binary laid out by ORDER, with its map and symbols in $work
  rm -f "$scratch/release/cairn"  # SwiftPM does not see the order file as an input
  swift build --scratch-path "$scratch" -c release --product cairn --static-swift-stdlib \
    -Xswiftc -static-executable -Xswiftc -use-ld=lld -Xlinker --icf=safe -Xlinker --gc-sections \
    -Xlinker "--symbol-ordering-file=$1" \
    -Xlinker --no-warn-symbol-ordering -Xlinker "-Map=$work/link.map" >"$work/build.log" 2>&1 \
    || { tail -20 "$work/build.log" >&2; die "swift build failed"; }
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
cp "$work/order" deploy/link-order.txt
echo "make-link-order: deploy/link-order.txt has $(wc -l <deploy/link-order.txt) names"
