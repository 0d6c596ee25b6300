#!/usr/bin/env bash
# rclone processes a delivery starts (issue 37: at most one per file delivered, ideally a constant
# per run), counted by a wrapper that logs each start: one trip, the same run again with nothing
# to send, 60 trips at once, 4 short trips on a 200 kB card and 4 whole rides on a 2 MB one (tmpfs:
# a run ships batches of what the card can stage, a quarter of its free room); then `cairn prune`
# of the 60 delivered trips (it checks each board folder's listing, reads each log back and asks
# where rclone keeps the folder: one `rclone rcd` for its run since deliv-38). Needs root (mount).
#
# Usage: sudo Tests/bench/rclone-starts.sh [CAIRN_BIN]   (default .build/release/cairn)
set -euo pipefail
cd "$(dirname "$0")/../.."
cairn=$(realpath "${1:-${CAIRN_BIN:-.build/release/cairn}}")
work=$(mktemp -d)
# The month's remote off the log directory's file system: prune deletes on no copy on the card.
shm=$(mktemp -d /dev/shm/cairn-starts.XXXXXX)
trap 'umount "$work/card" "$work/card2" 2>/dev/null || true; rm -rf "$work" "$shm"' EXIT
printf '[home]\ntype = local\n' >"$work/rclone.conf"
cat >"$work/rclone" <<WRAP
#!/bin/sh
echo "\$*" >>"$work/calls"
exec rclone "\$@"
WRAP
chmod +x "$work/rclone"
logs() {  # folder, then how many trips of the fixture ride (each under its own trip id)
    python3 - "$1" "$2" <<'PY'
import os, sys
sys.path.insert(0, "Tests/deliver")
import trips
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d, exist_ok=True)
ride = open("Tests/Fixtures/logs/format1-ride.cairn", "rb").read()
for i in range(1, n + 1):
    open(os.path.join(d, "%08d.cairn" % i), "wb").write(trips.retarget(ride, i))
PY
}
run() {  # name, log folder, remote folder, then cairn's arguments
    local name=$1 dir=$2 remote=$3; shift 3
    : >"$work/calls"
    local start end status=0
    start=$(date +%s.%N)
    "$cairn" deliver --dir "$dir" --rclone "$work/rclone" --rclone-config "$work/rclone.conf" --config none \
        --remote "home:$remote" "$@" >/dev/null 2>"$work/err" || status=$?
    end=$(date +%s.%N)
    local files
    files=$(find "$remote" -type f 2>/dev/null | wc -l || true)
    [ "$status" = 0 ] || sed "s/^/    /" "$work/err" >&2
    printf '| %s | %s | %s | %s | %s |\n' "$name" "$status" "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}')" \
        "$(wc -l <"$work/calls")" "$files"
}
prune_run() {  # name, log folder, then prune's arguments
    local name=$1 dir=$2; shift 2
    : >"$work/calls"
    local start end status=0
    start=$(date +%s.%N)
    "$cairn" prune --dir "$dir" "$@" >/dev/null 2>"$work/err" || status=$?
    end=$(date +%s.%N)
    [ "$status" = 0 ] || sed "s/^/    /" "$work/err" >&2
    printf '| %s | %s | %s | %s | %s |\n' "$name" "$status" "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}')" \
        "$(wc -l <"$work/calls")" "$(grep -c '^cairn: retention: deleted trip' "$work/err" || true) trips deleted"
}
echo "| run | exit | wall s | rclone starts | files on the remote |"
echo "|---|---:|---:|---:|---:|"
logs "$work/one" 1
run "one trip (log, gpx, fit, csv, picture; the page)" "$work/one" "$shm/r1"
run "again, nothing to send" "$work/one" "$shm/r1"
logs "$work/month" 60
run "60 trips at once" "$work/month" "$shm/r60"
run "again, nothing to send (the 60 trips' listing, with MD5s where the backend has them)" "$work/month" "$shm/r60"
prune_run "prune of the 60 delivered trips (--max-mb 0.000001)" "$work/month" --max-mb 0.000001
mkdir -p "$work/card"
mount -t tmpfs -o size=200k tmpfs "$work/card"
logs "$work/card" 4
truncate -s 5000 "$work/card"/*.cairn  # short rides, so that their conversions fit the card
run "4 trips on a 200 kB card ($(du -sk "$work/card" | cut -f1) kB of it used)" "$work/card" "$work/rc"
mkdir -p "$work/card2"
mount -t tmpfs -o size=2m tmpfs "$work/card2"
logs "$work/card2" 4
run "4 whole rides on a 2 MB card ($(du -sk "$work/card2" | cut -f1) kB of it used)" "$work/card2" "$work/rc2"
umount "$work/card2"
