#!/usr/bin/env bash
# Records the same synthetic ride (default 2 h at 1 Hz) through one private gpsd into
# `cairn record` (the static release binary) and gpsd's `gpxlogger`, side by side, replayed as
# fast as gpsd takes it, and reports peak RSS, CPU time and bytes written per point.
# Usage: Tests/bench/record-bench.sh [HOURS]     Results: Tests/bench/record-results.md
set -euo pipefail
cd "$(dirname "$0")/../.."
hours=${1:-2}
bash Tests/tools/install-deps.sh >/dev/null
bash Tests/tools/build-static.sh >/dev/null
cairn=$PWD/.build/release/cairn
work=$(mktemp -d)
trap 'kill $rp $rec $gl 2>/dev/null || true; rm -rf "$work"' EXIT
python3 Tests/tools/make-ride.py "$hours" "$work/ride.nmea"
epochs=$(grep -c GPRMC "$work/ride.nmea")

python3 Tests/tools/gpsd-replay.py "$work/ride.nmea" --port 0 --clients 2 --wait-client 60 >"$work/replay.out" 2>"$work/replay.err" &
rp=$!
for _ in $(seq 300); do grep -q '^READY' "$work/replay.out" && break; sleep 0.1; done
port=$(awk '/^READY/ {print $2}' "$work/replay.out")
"$cairn" record --gpsd "127.0.0.1:$port" --dir "$work/logs" --baro none --clock fix 2>"$work/cairn.err" &
rec=$!
gpxlogger -f "$work/gpxlogger.gpx" "127.0.0.1:$port" 2>"$work/gpxlogger.err" &
gl=$!
t0=$(date +%s.%N)
for _ in $(seq 6000); do grep -q '^DONE' "$work/replay.out" && break; sleep 0.1; done
t1=$(date +%s.%N)
sleep 0.5

# Peak RSS (VmHWM), anonymous RSS, CPU ticks (utime+stime) while both are still running.
stat_of() {
  local pid=$1 hwm anon ticks
  hwm=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status)
  anon=$(awk '/^RssAnon/ {print $2}' /proc/$pid/status)
  ticks=$(awk '{print $14 + $15}' /proc/$pid/stat)
  echo "$hwm $anon $ticks"
}
read -r c_hwm c_anon c_ticks < <(stat_of $rec)
read -r g_hwm g_anon g_ticks < <(stat_of $gl)
hz=$(getconf CLK_TCK)
kill -TERM $rec $gl; wait $rec || true; wait $gl || true; rec=; gl=
wait $rp || true; rp=

points=$("$cairn" list "$work/logs" --json | awk -F': ' '/"points"/ {gsub(",","",$2); s+=$2} END {print s+0}')
log_bytes=$(cat "$work"/logs/*.cairn | wc -c)
gpx_points=$(grep -c '<trkpt' "$work/gpxlogger.gpx" || true)
gpx_bytes=$(wc -c <"$work/gpxlogger.gpx")
size=$(stat -c %s "$cairn")
cp "$cairn" "$work/stripped" && strip "$work/stripped"
stripped=$(stat -c %s "$work/stripped")

div() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN {if (b == 0) print "-"; else printf "%.*f", d, a / b}'; }
row() { printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$@"; }
{
  echo "Ride: ${hours} h at 1 Hz (${epochs} epochs), replayed through one gpsd in $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}') s; $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m)."
  echo
  echo "| recorder | points | peak RSS | anon RSS | CPU | bytes written | bytes/point |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  row "cairn record" "$points" "${c_hwm} kB" "${c_anon} kB" "$(div "$c_ticks" "$hz" 2) s" "$log_bytes" "$(div "$log_bytes" "$points" 1)"
  row "gpxlogger 3.22" "$gpx_points" "${g_hwm} kB" "${g_anon} kB" "$(div "$g_ticks" "$hz" 2) s" "$gpx_bytes" "$(div "$gpx_bytes" "$gpx_points" 1)"
  echo
  echo "cairn binary: $size bytes static (unstripped), $stripped bytes stripped."
} | tee Tests/bench/record-results.md
