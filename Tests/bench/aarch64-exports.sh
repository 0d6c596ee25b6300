#!/usr/bin/env bash
# Converts every log fixture to every format with two binaries (default: the host's static
# release build and the aarch64 one, run through binfmt_misc) and says whether the outputs are
# byte-identical.
#   Tests/bench/aarch64-exports.sh [BIN_A [BIN_B]]
set -euo pipefail
cd "$(dirname "$0")/../.."
a=${1:-.build/release/cairn}
b=${2:-.build/aarch64/cairn}
for bin in "$a" "$b"; do [ -x "$bin" ] || { echo "aarch64-exports: no $bin" >&2; exit 1; }; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
same=0 differ=0
for log in Tests/Fixtures/logs/*.cairn; do
    for fmt in gpx geojson kml csv fit; do
        for side in a b; do
            bin=$a; [ "$side" = b ] && bin=$b
            mkdir -p "$work/$side"
            if [ "$fmt" = fit ]; then
                "$bin" convert "$log" --to fit -o "$work/$side/fit" >/dev/null 2>&1
            else
                "$bin" convert "$log" --to "$fmt" -o "$work/$side/out.$fmt" --force >/dev/null 2>&1
            fi
        done
        if diff -r "$work/a" "$work/b" >/dev/null; then same=$((same + 1)); else differ=$((differ + 1)); echo "differs: $log $fmt"; fi
        rm -rf "$work/a" "$work/b"
    done
done
echo "aarch64-exports: $same identical, $differ different ($a vs $b)"
[ "$differ" = 0 ]
