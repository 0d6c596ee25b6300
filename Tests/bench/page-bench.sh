#!/bin/bash
# The page riders see (issue 42): three real recordings (a ride, a walk, a drive) replayed through
# a private gpsd and recorded, exported with a privacy zone round the ride's start; the page
# checked and screenshot in headless Chromium at 360 and 1280 px (Tests/tools/check-page.py),
# measured (Tests/tools/page-measure.py: labels, the fold, a card's height, lazy pictures), then
# grown to 1,000 trips (index.tsv lines and pictures copied, the page made by `cairn export`) and
# its size and rendering time measured. Results: Tests/bench/page-results.md.
#
#   bash Tests/bench/page-bench.sh            # the release binary (.build/release/cairn)
#   CAIRN_BIN=path OUT=dir bash Tests/bench/page-bench.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
cairn=${CAIRN_BIN:-$PWD/.build/release/cairn}
out=${OUT:-$PWD/.build/page-bench}
rm -rf "$out"; mkdir -p "$out"
rp=; rec=
cleanup() { [ -n "$rec" ] && kill "$rec" 2>/dev/null; [ -n "$rp" ] && kill "$rp" 2>/dev/null; true; }
trap cleanup EXIT

record() {  # NMEA ACTIVITY
    local replay=$out/replay.txt
    python3 Tests/tools/gpsd-replay.py "$1" --port 0 >"$replay" 2>"$out/replay.err" &
    rp=$!
    for _ in $(seq 300); do grep -q '^READY' "$replay" 2>/dev/null && break; sleep 0.1; done
    local port; port=$(awk '/^READY/ {print $2}' "$replay")
    [ -n "$port" ] || { echo "page-bench: gpsd did not start"; cat "$out/replay.err"; exit 1; }
    "$cairn" record --gpsd "127.0.0.1:$port" --dir "$out/logs" --activity "$2" --baro none --clock fix --sync 1 2>>"$out/record.err" &
    rec=$!
    for _ in $(seq 1200); do grep -q '^DONE' "$replay" 2>/dev/null && break; sleep 0.1; done
    wait "$rp" || true; rp=
    kill -TERM "$rec"; wait "$rec"; rec=
}
record Tests/Fixtures/real/edge810.nmea ride
record Tests/Fixtures/real/pixel6-walk.nmea walk
record Tests/Fixtures/real/dashcam-spb.nmea drive
"$cairn" list "$out/logs"

# The zone: 400 m round the ride's first point (home).
"$cairn" convert "$out/logs/00000001.cairn" --to csv --config none -o "$out/ride.csv"
home=$(awk -F, 'NR==1 {for (i = 1; i <= NF; i++) c[$i] = i; next} {print $c["lat"] "," $c["lon"]; exit}' "$out/ride.csv")
# A fixed key, so the cut is the same every run (the recorder made none: it had no zone).
python3 -c 'import sys; s = b"privacy-key"; open(sys.argv[1], "wb").write(bytes(s[i % len(s)] ^ ((i * 29 + 7) & 255) for i in range(16)))' "$out/logs/privacy-key"
chmod 600 "$out/logs/privacy-key"
stick=$out/stick
"$cairn" export --dir "$out/logs" --to "$stick" --format gpx,fit,csv --privacy-zone "$home,400" --config none
python3 Tests/tools/check-page.py "$stick/index.html" --width 360 --screenshot "$out/page-360.png" >"$out/check-360.json"
python3 Tests/tools/check-page.py "$stick/index.html" --width 1280 --height 800 --screenshot "$out/page-1280.png" >"$out/check-1280.json"
python3 Tests/tools/page-measure.py "$stick/index.html" --label "3 real trips" | tee "$out/measure-3.txt"

# 1,000 trips: the three lines of index.tsv copied with new keys, names, dates (a day apart
# each) and pictures; `cairn export` with no new trip makes the page from the index.
big=$out/big
mkdir -p "$big/pictures"
python3 - "$stick" "$big" <<'PY'
import os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(os.path.join(src, "index.tsv")).read().split("\n")
head, cols, rows = lines[0], lines[1].split("\t"), [l.split("\t") for l in lines[2:] if l]
ix = {c: i for i, c in enumerate(cols)}
out = [head, lines[1]]
for n in range(1000):
    r = list(rows[n % len(rows)])
    name = f"bench-{n:04d}"
    r[ix["key"]] = f"trip{n + 10}"
    r[ix["trip"]] = str(n + 10)
    r[ix["start_ms"]] = str(int(r[ix["start_ms"]]) - n * 86_400_000)
    shutil.copy(os.path.join(src, r[ix["picture"]]), os.path.join(dst, "pictures", name + ".svg"))
    r[ix["picture"]] = f"pictures/{name}.svg"
    r[ix["name"]] = name
    r[ix["files"]] = f"pictures/{name}.svg"  # a link that resolves
    out.append("\t".join(r))
open(os.path.join(dst, "index.tsv"), "w").write("\n".join(out) + "\n")
PY
mkdir -p "$out/empty"
"$cairn" export --dir "$out/empty" --to "$big" --format gpx --config none
python3 Tests/tools/page-measure.py "$big/index.html" --label "1,000 trips" --runs 5 | tee "$out/measure-1000.txt"
python3 Tests/tools/check-page.py "$big/index.html" --width 360 >"$out/check-1000.json" || { echo "page-bench: the 1,000-trip page fails its check"; exit 1; }
ls -l "$stick/index.html" "$big/index.html"
echo "page-bench: screenshots $out/page-360.png $out/page-1280.png"
