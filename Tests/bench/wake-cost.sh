#!/usr/bin/env bash
# The floor of cairn's CPU at real time: what one durable 45-byte append (pwrite + fdatasync into
# preallocated zeros, cairn's sync of a one-point record) costs right after a sleep, against the
# same append back to back. Tests/bench/wake-cost.c does the timing; this compiles it and runs it
# back to back, after 10 ms spent spinning (warm caches, but the file's time stamps move on), and
# after sleeps of 100 ms, 1 s and 5 s (cairn sleeps 5 s between its batches at real time); then
# the same append as an O_DIRECT write of the 512-byte sector that holds it (a possible next step).
#
# Usage: Tests/bench/wake-cost.sh [DIR]   (DIR: on the file system that holds the logs; default .)
# Takes about 4 minutes. Results: Tests/bench/wake-cost-results.md
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-.}
cc=${CC:-}
if [ -z "$cc" ]; then
  for c in cc gcc clang /opt/swift/usr/bin/clang; do command -v "$c" >/dev/null && { cc=$c; break; }; done
fi
[ -n "$cc" ] || { echo "wake-cost: no C compiler (set CC)" >&2; exit 1; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
"$cc" -O2 -Wall -o "$w/wake-cost" "$here/wake-cost.c"
fs=$(stat -f -c %T "$dir")
echo "wake-cost: $(nproc) cores, $(uname -m), Linux $(uname -r), $fs at $dir" >&2
for run in "0 1000" "10 200 busy" "100 200" "1000 60" "5000 24" "0 1000 direct" "1000 60 direct"; do
  set -- $run
  echo "wake-cost: ${3:-sleep} $1 ms, $2 trials" >&2
  "$w/wake-cost" "$dir" "$@"
done
