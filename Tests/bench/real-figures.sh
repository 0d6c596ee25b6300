#!/usr/bin/env bash
# Replays the real and ground-truth recordings (Tests/Fixtures/real, Tests/Fixtures/truth; the
# same files as shared/fixtures, and gpsd's haicom-305N walk that RecordEndToEndTests holds)
# through a private gpsd into `cairn record`, as the end-to-end tests do, and prints one line
# per recording and activity: trips, distance, segments, top speed, ascent (`cairn list --json`).
# Used for the before/after tables of the fix rules.
# Usage: Tests/bench/real-figures.sh [CAIRN_BINARY]   (default: .build/debug/cairn)
set -euo pipefail
cd "$(dirname "$0")/../.."
cairn=${1:-.build/debug/cairn}
run() { # fixture activity
  local dir port pid out
  dir=$(mktemp -d)
  exec 3< <(python3 Tests/tools/gpsd-replay.py "$1" --port 0 2>/dev/null)
  read -r _ port <&3
  "$cairn" record --gpsd "127.0.0.1:$port" --dir "$dir/logs" --baro none --clock fix --sync 1 --activity "$2" >/dev/null 2>&1 &
  pid=$!
  while read -r line <&3; do case $line in DONE*) break ;; esac; done
  cat <&3 >/dev/null || true
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  out=$("$cairn" list "$dir/logs" --json)
  python3 - "$1" "$2" "$out" <<'PY'
import json, sys
name, act, trips = sys.argv[1].split('/')[-1], sys.argv[2], json.loads(sys.argv[3])
d = sum(t.get('distance_m') or 0 for t in trips)
top = max([t.get('max_speed_mps') or 0 for t in trips] or [0])
asc = sum(t.get('ascent_m') or 0 for t in trips)
seg = sum(t.get('segments') or 0 for t in trips)
print(f"| {name} | {act} | {len(trips)} | {d:.1f} | {seg} | {top:.2f} | {asc:.0f} |")
PY
  rm -rf "$dir"
}
echo "| recording | activity | trips | distance m | segments | top speed m/s | ascent m |"
echo "|---|---|---:|---:|---:|---:|---:|"
run Tests/Fixtures/real/edge810.nmea ride
run Tests/Fixtures/real/edge500.nmea ride
run Tests/Fixtures/real/edge500-smart.nmea ride
run Tests/Fixtures/real/elemnt-bolt.nmea ride
run Tests/Fixtures/real/dashcam-spb.nmea drive
run Tests/Fixtures/real/pixel6-walk.nmea walk
run Tests/Fixtures/real/pixel6-walk.nmea ride
run Tests/Fixtures/truth/gsdc-mtv-0514-pixel4.nmea drive
run Tests/Fixtures/truth/gsdc-mtv-0514-pixel4.nmea ride
run Tests/Fixtures/truth/forest-s11-galaxytaba.nmea ride
run Tests/Fixtures/truth/forest-s11-galaxytaba.nmea walk
run Tests/Fixtures/gpsd/haicom-305N.log ride
