#!/usr/bin/env bash
# Runs the same read-side commands with two cairn binaries (default: the host's static release
# build and the aarch64 one, which runs here through binfmt_misc and qemu-user) over every log it
# is given and says whether their outputs are byte-identical: convert to every format (as
# recorded, smoothed and gap-filled, re-filtered, with laps and a privacy zone), export (the
# conversions, the page, its index and pictures), cells, render, info/list --json and verify.
# Figures computed in floating point, the rules re-run, the picture's geometry and the FIT
# encoder are the code whose result could differ by CPU; the booted arm64 guest
# (deploy/board) records a ride but does not convert one.
#   Tests/tools/cross-arch.sh [--a BIN] [--b BIN] LOG_OR_DIR...
#   (default logs: Tests/Fixtures/logs and the demo's recording, .build/demo/logs, when present)
set -euo pipefail
cd "$(dirname "$0")/../.."
a=.build/release/cairn b=.build/aarch64/cairn logs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --a) a=${2:?}; shift ;;
        --b) b=${2:?}; shift ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) logs+=("$1") ;;
    esac
    shift
done
if [ ${#logs[@]} -eq 0 ]; then
    logs=(Tests/Fixtures/logs/*.cairn Tests/Fixtures/logs/crafted-values)
    [ -d .build/demo/logs ] && logs+=(.build/demo/logs)
fi
for bin in "$a" "$b"; do [ -x "$bin" ] || { echo "cross-arch: no $bin" >&2; exit 1; }; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A fixed key: the zone's cut must fall in the same place on both.
head -c 16 /dev/zero | tr '\0' '\7' >"$work/key"
zone=(--privacy-zone 0,0,300 --privacy-key "$work/key" --config none)

same=0 differ=0 failing=0
# Runs "$@" with cairn = each binary in its own folder (out/), compares the folders and the
# standard output and exit status.
compare() {  # LABEL COMMAND... (CAIRN is the binary, OUT its output folder, SRC its own copy of $log)
    local label=$1 side bin args w rc
    shift
    for side in a b; do
        bin=$a; [ "$side" = b ] && bin=$b
        rm -rf "${work:?}/$side" "$work/src-$side"; mkdir -p "$work/$side/out"
        args=()
        for w in "$@"; do
            case "$w" in
                CAIRN) args+=("$bin") ;;
                OUT*) args+=("$work/$side/out${w#OUT}") ;;
                SRC) cp -a "$log" "$work/src-$side"; args+=("$work/src-$side") ;;
                *) args+=("$w") ;;
            esac
        done
        rc=0
        "${args[@]}" >"$work/$side/stdout" 2>/dev/null || rc=$?
        echo "exit $rc" >"$work/$side/status"
        # Paths and the binary's own path are the only expected differences in what is said.
        sed -i "s|$work/$side/out|OUT|g; s|$work/src-$side|SRC|g; s|$bin|CAIRN|g" "$work/$side/stdout"
    done
    if diff -r "$work/a" "$work/b" >"$work/diff" 2>&1; then
        same=$((same + 1))
        # A command that fails alike on both proves nothing: said, so a wrong option shows.
        [ "$(cat "$work/a/status")" = "exit 0" ] || { echo "cross-arch: $label: $(cat "$work/a/status") on both"; failing=$((failing + 1)); }
    else
        differ=$((differ + 1))
        echo "cross-arch: differs: $label"
        head -20 "$work/diff" | sed 's/^/    /'
    fi
}

for log in "${logs[@]}"; do
    for fmt in gpx geojson kml csv; do
        compare "$log convert $fmt" CAIRN convert "$log" --to "$fmt" -o OUT/x."$fmt" --config none
        compare "$log convert $fmt smoothed, gaps filled, 1 km laps" \
            CAIRN convert "$log" --to "$fmt" -o OUT/x."$fmt" --smooth --fill-gaps --laps 1km --config none
        compare "$log convert $fmt zone" CAIRN convert "$log" --to "$fmt" -o OUT/x."$fmt" "${zone[@]}"
    done
    compare "$log convert fit" CAIRN convert "$log" --to fit -o OUT/fit --config none
    compare "$log convert fit smoothed" CAIRN convert "$log" --to fit -o OUT/fit --smooth --fill-gaps --config none
    compare "$log convert gpx refilter" CAIRN convert "$log" --to gpx -o OUT/x.gpx --refilter --config none
    compare "$log convert csv raw" CAIRN convert "$log" --to csv -o OUT/x.csv --raw --config none
    compare "$log geojson speed bands" CAIRN convert "$log" --to geojson -o OUT/x.geojson --speed-bands auto --config none
    compare "$log info --json" CAIRN info "$log" --json
    compare "$log list --json" CAIRN list "$log" --json
    compare "$log verify" CAIRN verify "$log"
    compare "$log cells" CAIRN cells "$log" --config none
    compare "$log cells geojson" CAIRN cells "$log" --to geojson -o OUT/cells.geojson --config none
    compare "$log render" CAIRN render "$log" --trip 1 -o OUT/x.svg --config none
    if [ -d "$log" ]; then
        compare "$log export" CAIRN export --to OUT/stick --dir SRC --format gpx,fit,geojson,kml,csv --logs yes --config none
        compare "$log export zone" CAIRN export --to OUT/stick --dir SRC --format gpx,fit,csv --config none \
            --privacy-zone 0,0,300 --privacy-key "$work/key"
    fi
done
echo "cross-arch: $same identical ($failing of them failing alike), $differ different ($a vs $b)"
[ "$differ" = 0 ] && [ "$same" -gt "$failing" ]
