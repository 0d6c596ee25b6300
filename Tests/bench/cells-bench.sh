#!/usr/bin/env bash
# `cairn cells` benchmark: 1,000 trips (45-minute rides from five homes in one city, written by
# the real LogWriter through Tests/CairnExportTests/CellsBenchmarkLogTests.swift) in one log
# directory, answered by the static release binary: the first run (no index: reads every log
# and writes the index), runs with the index in place (nothing new), a run after one new trip,
# other precisions and GeoJSON, and the index's size.
#
# Usage: Tests/bench/cells-bench.sh [TRIPS] [RUNS]     (default 1000 trips, 5 runs; wall time is the median)
# Results: Tests/bench/cells-results.md
set -euo pipefail
cd "$(dirname "$0")/../.."
trips=${1:-1000}
runs=${2:-5}
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
if [ -z "${CAIRN_BIN:-}" ]; then bash Tests/tools/build-static.sh >/dev/null; fi
cairn=${CAIRN_BIN:-$PWD/.build/release/cairn}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
logs=$work/logs

echo "cells-bench: writing $trips trips" >&2
CAIRN_CELLS_DIR="$logs" CAIRN_CELLS_TRIPS=$((trips + 1)) \
  swift test --disable-swift-testing --filter CellsBenchmarkLogTests >"$work/gen.log" 2>&1 \
  || { tail -20 "$work/gen.log" >&2; exit 1; }
# The last trip is held back for the "one new trip" run.
last=$(ls "$logs" | grep -E '^[0-9]{8}\.cairn$' | sort | tail -1)
mv "$logs/$last" "$work/$last"
rm -f "$logs/.cairn-cells"
# Rides of past days: files modified in the last 10 s are never kept in the index (CELL_INDEX.md).
touch -d '1 hour ago' "$logs"/*.cairn "$work/$last"
log_bytes=$(cat "$logs"/*.cairn | wc -c)

# one CMD...: wall seconds and peak RSS (kB) of one run.
one() {
  local t0=$EPOCHREALTIME
  /usr/bin/time -f "%M" -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt" || { cat "$work/err.txt" >&2; exit 1; }
  awk -v a="$t0" -v b="$EPOCHREALTIME" -v m="$(cat "$work/time.txt")" 'BEGIN {printf "%.3f %d\n", b - a, m}'
}
# median CMD...: the median wall time of $runs runs, and the largest peak RSS.
median() {
  local rows=() r
  for _ in $(seq "$runs"); do rows+=("$(one "$@")"); done
  printf '%s\n' "${rows[@]}" | sort -n | awk '{w[NR] = $1; if ($2 > m) m = $2} END {printf "%.3f %d\n", w[int((NR + 1) / 2)], m}'
}

read -r first_w first_m < <(one "$cairn" cells "$logs")
cells7=$(tail -1 "$work/out.txt")
index_bytes=$(stat -c %s "$logs/.cairn-cells")
read -r warm_w warm_m < <(median "$cairn" cells "$logs")
read -r p5_w p5_m < <(median "$cairn" cells "$logs" --precision 5)
cells5=$(tail -1 "$work/out.txt")
read -r gj_w gj_m < <(median "$cairn" cells "$logs" --to geojson)
gj_bytes=$(wc -c < "$work/out.txt")
read -r pre_w pre_m < <(median "$cairn" cells "$logs" --prefix u0qj --precision 7)
mv "$work/$last" "$logs/$last"
read -r new_w new_m < <(one "$cairn" cells "$logs")
read -r nosave_w nosave_m < <(median "$cairn" cells "$logs")

out=Tests/bench/cells-results.md
{
  echo "# \`cairn cells\` on $trips trips"
  echo
  echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m)) with \`bash Tests/bench/cells-bench.sh $trips $runs\`: the static"
  echo "release binary, $trips 45-minute 1 Hz rides ($((trips * 2700)) points, $log_bytes bytes of logs) in one directory."
  echo "Wall time is the median of $runs runs where a row says so; peak RSS the largest."
  echo
  echo "| run | wall | peak RSS | |"
  echo "|---|---:|---:|---|"
  echo "| first run: every log read, the index written | ${first_w} s | ${first_m} kB | $cells7 |"
  echo "| index in place, nothing new (median) | ${warm_w} s | ${warm_m} kB | target ≤ 1 s |"
  echo "| the same at precision 5 (median) | ${p5_w} s | ${p5_m} kB | $cells5 |"
  echo "| GeoJSON at precision 7 (median) | ${gj_w} s | ${gj_m} kB | $gj_bytes bytes |"
  echo "| \`--prefix u0qj\` (median) | ${pre_w} s | ${pre_m} kB | |"
  echo "| one new trip: it alone read, the index rewritten | ${new_w} s | ${new_m} kB | |"
  echo "| after it, nothing new (median) | ${nosave_w} s | ${nosave_m} kB | |"
  echo
  echo "The index (\`.cairn-cells\`) holds $index_bytes bytes for these $trips trips."
} > "$out"
cat "$out"
