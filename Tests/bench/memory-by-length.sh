#!/usr/bin/env bash
# Does `cairn record`'s memory grow with the ride? The ride of record-bench.sh (one recorder,
# `--baro none --clock fix`, raw fixes on, replayed as fast as gpsd takes it) at each length
# given, RUNS times each; per run, just before the stop: VmHWM and RssAnon (/proc/PID/status) and
# the `[heap]` mapping's Rss (/proc/PID/smaps).
# Usage: Tests/bench/memory-by-length.sh [HOURS ...]   (default 1 6 12 24; RUNS=N, default 3)
# Results: Tests/bench/record-results.md, "Does the recorder's memory grow with the ride?"
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${RUNS:-3}
[ $# -gt 0 ] || set -- 1 6 12 24
bash Tests/tools/install-deps.sh >/dev/null
bash Tests/tools/build-static.sh >/dev/null
cairn=$PWD/.build/release/cairn
work=$(mktemp -d)
rp= rec=
trap 'kill $rp $rec 2>/dev/null || true; rm -rf "$work"' EXIT
die() { echo "memory-by-length: $*" >&2; exit 1; }

ride() {  # ride NMEA: "points hwm anon heap" in kB
  local port pid
  rm -rf "$work/logs" "$work/replay.out"
  python3 Tests/tools/gpsd-replay.py "$1" --port 0 --wait-client 60 >"$work/replay.out" 2>"$work/replay.err" &
  rp=$!
  for _ in $(seq 300); do grep -qs '^READY' "$work/replay.out" && break; sleep 0.1; done
  port=$(awk '/^READY/ {print $2}' "$work/replay.out")
  [ -n "$port" ] || { cat "$work/replay.err" >&2; die "gpsd-replay did not become ready"; }
  "$cairn" record --gpsd "127.0.0.1:$port" --dir "$work/logs" --baro none --clock fix 2>"$work/cairn.err" &
  rec=$!
  for _ in $(seq 6000); do grep -qs '^DONE' "$work/replay.out" && break; sleep 0.1; done
  sleep 0.5
  pid=$rec
  kill -0 "$pid" 2>/dev/null || die "the recorder is gone: $(tail -3 "$work/cairn.err")"
  local hwm anon heap
  hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
  anon=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status")
  heap=$(awk '/^[0-9a-f]+-/ {h = ($6 == "[heap]")} /^Rss:/ && h {print $2}' "/proc/$pid/smaps")
  kill -TERM "$pid"; wait "$pid" || true; rec=
  kill $rp 2>/dev/null || true; wait $rp 2>/dev/null || true; rp=
  echo "$("$cairn" list "$work/logs" --json | awk -F': ' '/"points"/ {gsub(",","",$2); s+=$2} END {print s+0}') $hwm $anon $heap"
}

echo "One recorder, the ride replayed fast; $runs runs a length; $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m)."
echo
echo "| ride | points | VmHWM / RssAnon / heap Rss, each run |"
echo "|---|---:|---|"
for h in "$@"; do
  python3 Tests/tools/make-ride.py "$h" "$work/ride.nmea"
  points= cells=()
  for _ in $(seq "$runs"); do
    read -r points hwm anon heap < <(ride "$work/ride.nmea")
    cells+=("$hwm / $anon / $heap")
  done
  printf '| %s h | %s | %s kB |\n' "$h" "$points" "$(IFS=';'; echo "${cells[*]}" | sed 's/;/; /g')"
done
