#!/usr/bin/env bash
# Conversion benchmark: `cairn convert` (the static release binary) on a 10,000- and a
# 1,000,000-point trip, side by side with gpsbabel converting the same track GPX -> GPX in the
# same run; every cairn format at 1M points; and the bytes per point of a realistic 1 Hz ride
# recorded through gpsd (log vs the same ride's GPX and FIT).
#
# The trip logs are written by the real LogWriter through a test helper
# (Tests/CairnExportTests/BenchmarkLogTests.swift, run with CAIRN_BENCH_DIR/CAIRN_BENCH_POINTS):
# a synthetic 1 Hz ride, 10 segments, points framed 5 at a time like the recorder's 5 s syncs.
#
# Usage: Tests/bench/convert-bench.sh [RUNS]      (default 3; wall time is the median)
# Results: Tests/bench/convert-results.md (a table ready for Tests/bench/README.md)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
bash Tests/tools/install-deps.sh >/dev/null
bash Tests/tools/build-static.sh >/dev/null
cairn=$PWD/.build/release/cairn
work=$(mktemp -d)
trap 'kill $rp $rec 2>/dev/null || true; rm -rf "$work"' EXIT
rp= rec=

# measure CMD...: runs it $runs times; prints "median_wall_s peak_rss_kB" (GNU time's %M, the
# child's own peak RSS: a child forked from a big parent such as python would count its pages).
measure() {
  local walls=() rss=0 w m a
  for _ in $(seq "$runs"); do
    local t0=$EPOCHREALTIME
    /usr/bin/time -f "%M" -o "$work/time.txt" "$@" >/dev/null 2>&1 || { echo "benchmark command failed: $*" >&2; exit 1; }
    w=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.3f", b - a}')
    read -r m < "$work/time.txt"
    walls+=("$w")
    [ "$m" -gt "$rss" ] && rss=$m
    for a in "$@"; do case "$a" in "$BENCH_OUT"*) rm -rf "$a";; esac; done
  done
  printf '%s\n' "${walls[@]}" | sort -n | awk -v r="$rss" '{v[NR] = $1} END {printf "%.3f %d\n", v[int((NR + 1) / 2)], r}'
}
export BENCH_OUT="$work/out/"
mkdir -p "$work/out"

echo "convert-bench: writing the trip logs" >&2
for n in 10000 1000000; do
  CAIRN_BENCH_DIR="$work/log$n" CAIRN_BENCH_POINTS=$n \
    swift test --disable-swift-testing --filter BenchmarkLogTests >"$work/gen$n.log" 2>&1 \
    || { tail -20 "$work/gen$n.log" >&2; exit 1; }
done

fmt_rss() { awk -v k="$1" 'BEGIN {printf "%.1f MB", k / 1024}'; }
row() { printf '| %s | %s | %s | %s | %s |\n' "$@"; }

echo "convert-bench: GPX, cairn vs gpsbabel" >&2
declare -A wall rss size
for n in 10000 1000000; do
  read -r wall[c$n] rss[c$n] < <(measure "$cairn" convert "$work/log$n" --to gpx -o "$work/out/c$n.gpx")
  "$cairn" convert "$work/log$n" --to gpx -o "$work/in$n.gpx" 2>/dev/null   # kept: gpsbabel's input
  size[gpx$n]=$(stat -c %s "$work/in$n.gpx")
  read -r wall[b$n] rss[b$n] < <(measure gpsbabel -i gpx -f "$work/in$n.gpx" -o gpx -F "$work/out/b$n.gpx")
done
points_1m=$(grep -c '<trkpt' "$work/in1000000.gpx")

echo "convert-bench: every format at 1M points" >&2
declare -A fw frss fsize
for f in gpx fit geojson kml csv; do
  o="$work/out/all.$f"
  read -r fw[$f] frss[$f] < <(measure "$cairn" convert "$work/log1000000" --to $f -o "$o")
  "$cairn" convert "$work/log1000000" --to $f -o "$work/keep.$f" 2>/dev/null
  if [ -d "$work/keep.$f" ]; then fsize[$f]=$(cat "$work/keep.$f"/* | wc -c); else fsize[$f]=$(stat -c %s "$work/keep.$f"); fi
  rm -rf "$work/keep.$f"
done
log_1m=$(stat -c %s "$work/log1000000"/*.cairn)

echo "convert-bench: a realistic 1 Hz ride recorded through gpsd" >&2
python3 Tests/tools/make-ride.py 2 "$work/ride.nmea"
epochs=$(grep -c GPRMC "$work/ride.nmea")
python3 Tests/tools/gpsd-replay.py "$work/ride.nmea" --port 0 --wait-client 60 >"$work/replay.out" 2>"$work/replay.err" &
rp=$!
for _ in $(seq 300); do grep -q '^READY' "$work/replay.out" && break; sleep 0.1; done
port=$(awk '/^READY/ {print $2}' "$work/replay.out")
"$cairn" record --gpsd "127.0.0.1:$port" --dir "$work/ride" --baro none --clock fix 2>"$work/rec.err" &
rec=$!
for _ in $(seq 6000); do grep -q '^DONE' "$work/replay.out" && break; sleep 0.1; done
sleep 1
kill -TERM $rec; wait $rec || true; rec=
wait $rp || true; rp=
ride_points=$("$cairn" list "$work/ride" --json | awk -F': ' '/"points"/ {gsub(",","",$2); s+=$2} END {print s+0}')
ride_log=$(cat "$work"/ride/*.cairn | wc -c)
"$cairn" convert "$work/ride" --to gpx -o "$work/ride.gpx" 2>/dev/null
"$cairn" convert "$work/ride" --to fit -o "$work/ride-fit" 2>/dev/null
"$cairn" convert "$work/ride" --to csv -o "$work/ride.csv" 2>/dev/null
ride_gpx=$(stat -c %s "$work/ride.gpx")
ride_fit=$(cat "$work"/ride-fit/*.fit | wc -c)
ride_csv=$(stat -c %s "$work/ride.csv")
per() { awk -v a="$1" -v b="$2" 'BEGIN {if (b == 0) print "-"; else printf "%.1f", a / b}'; }
times() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.0f×", a / b}'; }

{
  echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m)), static cairn $("$cairn" --version), gpsbabel $(gpsbabel -V 2>/dev/null | awk '/GPSBabel/ {print $3; exit}'); median of $runs runs, peak RSS of the process. Synthetic 1 Hz ride, 10 segments, every gpsd field; GPX with speed and course (cairn:speed, cairn:course) and trusted heights."
  echo
  echo "| GPX → GPX | points | cairn convert | gpsbabel -i gpx -o gpx | cairn faster | GPX size |"
  echo "|---|---:|---:|---:|---:|---:|"
  for n in 10000 1000000; do
    printf '| %s | %s | %s s, %s | %s s, %s | %s | %s MB |\n' "$( [ $n = 10000 ] && echo "10k points" || echo "1M points")" "$n" \
      "${wall[c$n]}" "$(fmt_rss ${rss[c$n]})" "${wall[b$n]}" "$(fmt_rss ${rss[b$n]})" "$(times ${wall[b$n]} ${wall[c$n]})" \
      "$(awk -v s=${size[gpx$n]} 'BEGIN {printf "%.1f", s / 1e6}')"
  done
  echo
  echo "cairn reads the log (the input), gpsbabel reads cairn's GPX of the same track (its input). cairn's peak RSS is the same at 10k and 1M points: exports stream."
  echo
  echo "| cairn convert, 1M points | wall | peak RSS | output | bytes/point |"
  echo "|---|---:|---:|---:|---:|"
  for f in gpx fit geojson kml csv; do
    printf '| --to %s | %s s | %s | %s MB | %s |\n' "$f" "${fw[$f]}" "$(fmt_rss ${frss[$f]})" \
      "$(awk -v s=${fsize[$f]} 'BEGIN {printf "%.1f", s / 1e6}')" "$(per ${fsize[$f]} $points_1m)"
  done
  echo "| (the log itself) | | | $(awk -v s=$log_1m 'BEGIN {printf "%.1f", s / 1e6}') MB | $(per $log_1m $points_1m) |"
  echo
  echo "fit, geojson and kml read the log twice (the trip's figures come first in those formats)."
  echo
  echo "Realistic ride: Tests/tools/make-ride.py 2 h at 1 Hz ($epochs epochs), replayed through gpsd into \`cairn record\`, which kept $ride_points points:"
  echo
  echo "| the same ride as | bytes | bytes/point |"
  echo "|---|---:|---:|"
  echo "| cairn log (what the card holds) | $ride_log | $(per $ride_log $ride_points) |"
  echo "| FIT activity | $ride_fit | $(per $ride_fit $ride_points) |"
  echo "| CSV | $ride_csv | $(per $ride_csv $ride_points) |"
  echo "| GPX 1.1 with speed and course | $ride_gpx | $(per $ride_gpx $ride_points) |"
} | tee Tests/bench/convert-results.md
