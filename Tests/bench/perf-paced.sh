#!/usr/bin/env bash
# Where cairn's CPU goes at real time: perf samples of `cairn record` (defaults: 5 s syncs, reports
# read every 5 s) on a 2-minute ride replayed at 1 Hz through a private gpsd. Needs perf.
# Usage: Tests/bench/perf-paced.sh [SECONDS]   (default 100 s of sampling)
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-100}
cairn=$PWD/${SCRATCH:-.build}/release/cairn
w=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$w"' EXIT
python3 Tests/tools/make-ride.py 0.0334 "$w/ride.nmea"
python3 Tests/tools/gpsd-replay.py "$w/ride.nmea" --port 0 --rate 3 --wait-client 60 --linger 30 >"$w/replay.out" 2>/dev/null &
for _ in $(seq 100); do grep -q READY "$w/replay.out" 2>/dev/null && break; sleep 0.1; done
port=$(awk '/READY/ {print $NF}' "$w/replay.out")
"$cairn" record --gpsd "127.0.0.1:$port" --dir "$w/logs" --baro none --clock fix 2>/dev/null &
pid=$!
sleep 0.5
perf record -q -F 30000 -g -o "$w/perf.data" -p "$pid" -- sleep "$secs" >/dev/null 2>&1
kill "$pid"
echo "where cairn record's CPU went (share of $(perf report -i "$w/perf.data" --stdio 2>/dev/null | awk '/^# Samples/ {print $3}') samples at 30 kHz):"
perf report -i "$w/perf.data" --no-children --sort dso --stdio 2>/dev/null | grep -E '^ +[0-9.]+%' | sed 's/^ */  /'
perf report -i "$w/perf.data" --children --sort sym --stdio -g none 2>/dev/null | grep -E '^ +[0-9]' \
  | grep -E '\[\.\] (fdatasync|write|__libc_pwrite64|__libc_poll|__libc_recv)$' | sed 's/^ */  /'
