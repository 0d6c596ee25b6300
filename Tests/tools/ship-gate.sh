#!/bin/bash
# The refactor gate of export and deliver (issue 37 item 6: nothing a user sees changes): runs
# one binary through a fixed set of exports and deliveries of the real recordings
# (Tests/Fixtures/real, recorded once through a private gpsd) and the help and error texts, and
# keeps everything each left: standard output and error, exit status, and every file written (the
# stick, the remote, the receipts). Two runs at the same WORK compare byte for byte:
#
#   bash Tests/tools/ship-gate.sh record BIN WORK        # the logs, once (any binary that records)
#   bash Tests/tools/ship-gate.sh run BIN WORK OUT       # every case into OUT
#   diff -r OUT-before OUT-after                         # nothing, or what a user would see change
#
# The cases run at fixed paths under WORK (logs in WORK/case, the remote in /dev/shm, off the
# logs' file system as a real remote is), so paths said in the output are the same run to run;
# the only figures that differ by nature (a delivery's wall-clock time, its shipping folder's
# random id) are replaced by a placeholder. Needs gpsd, python3 and rclone (Tests/run-tests.sh
# installs them).
set -euo pipefail
mode=${1:?usage: ship-gate.sh record|run BIN WORK [OUT]}
bin=$(realpath "${2:?the cairn binary}")
work=${3:?a work folder}
mkdir -p "$work"
work=$(realpath "$work")
repo=$(cd "$(dirname "$0")/../.." && pwd)

record() {
    local logs=$work/logs
    rm -rf "$logs"
    mkdir -p "$logs"
    for ride in edge810 dashcam-spb pixel6-walk; do
        local out=$work/replay-$ride.txt
        python3 "$repo/Tests/tools/gpsd-replay.py" "$repo/Tests/Fixtures/real/$ride.nmea" --port 0 >"$out" 2>"$work/replay-$ride.err" &
        local replay=$!
        for _ in $(seq 300); do grep -q '^READY' "$out" 2>/dev/null && break; sleep 0.1; done
        local port
        port=$(awk '/^READY/ {print $2}' "$out")
        "$bin" record --gpsd "127.0.0.1:$port" --dir "$logs" --baro none --clock fix --sync 1 2>"$work/record-$ride.err" &
        local rec=$!
        for _ in $(seq 1200); do grep -q '^DONE' "$out" 2>/dev/null && break; sleep 0.1; done
        wait "$replay" || true
        kill -TERM "$rec"
        wait "$rec" || true
    done
    rm -f "$logs"/.cairn*.lock
    # A fixed key (16 bytes, the recorder's mode) for the cases with privacy zones.
    printf '0123456789abcdef' >"$work/key"
    chmod 600 "$work/key"
    "$bin" list "$logs"
}

# A fresh copy of the logs at WORK/case and an empty remote folder in /dev/shm.
fresh() {
    rm -rf "$work/case" "$shm"
    mkdir -p "$work/case" "$shm"
    cp -a "$work/logs" "$work/case/logs"
}

# Runs one command of case $1, keeping its output and status; the rest of the arguments are cairn's.
step() {
    local name=$1
    shift
    local d=$out/$case
    mkdir -p "$d"
    local rc=0
    (cd "$work/case" && "$bin" "$@" >"$d/$name.out" 2>"$d/$name.err") || rc=$?
    echo "$rc" >"$d/$name.rc"
    sed -i -E -e "s|$shm|SHM|g" -e 's/"at": "[^"]*"/"at": "T"/' "$d/$name.out" "$d/$name.err"
}

# Keeps what case $case left: the log directory's state files, the stick and the remote.
keep() {
    local d=$out/$case
    mkdir -p "$d/files"
    for f in exported delivered delivery; do
        [ -f "$work/case/logs/$f" ] && cp "$work/case/logs/$f" "$d/files/logs-$f"
    done
    [ -d "$work/case/stick" ] && cp -a "$work/case/stick" "$d/files/stick"
    [ -d "$shm" ] && cp -a "$shm" "$d/files/remote"
    # What differs by nature: the wall clock and the shipping folder's random id.
    if [ -f "$d/files/logs-delivery" ]; then
        sed -i -E -e 's/^(at_ms|at|failing_since_ms) = .*/\1 = T/' -e 's/^shipping_id = .*/shipping_id = ID/' "$d/files/logs-delivery"
    fi
    find "$d/files" -name '.cairn-tmp-*' -printf '%P\n' >"$d/temporaries" || true
    (cd "$d/files" && find . -printf '%P %s %m %y\n' | sort) >"$d/tree"
}

run() {
    out=$(mkdir -p "$1" && realpath "$1")
    shm=/dev/shm/cairn-ship-gate
    local conf=$work/rclone.conf
    printf '[loc]\ntype = local\n' >"$conf"
    # The first points of the walk and of the dashcam ride: one zone cuts the ride's start, one
    # holds the whole walk.
    # Zones at the first points of the walk (3 km: it holds the whole walk), the dashcam ride
    # and the Edge 810's ride (each cut at its start).
    local zone zones=()
    for z in pixel6-walk:3000 dashcam-spb:400 edge810:300; do
        zone=$(python3 - "$repo/Tests/Fixtures/real/${z%%:*}.nmea" "${z##*:}" <<'PY'
import sys
for line in open(sys.argv[1], errors="replace"):
    f = line.strip().split(",")
    if f[0][3:] == "RMC" and len(f) > 6 and f[2] == "A":
        def deg(v, h):
            v = float(v); d = int(v // 100); x = d + (v - d * 100) / 60
            return -x if h in "SW" else x
        print("%.5f,%.5f,%s" % (deg(f[3], f[4]), deg(f[5], f[6]), sys.argv[2]))
        break
PY
        )
        zones+=(--privacy-zone "$zone")
    done
    zones+=(--privacy-key "$work/key")
    local del=(deliver --dir logs --config none --rclone-config "$conf" --remote "loc:$shm/rides")
    echo "${zones[@]}" >"$out/zones"

    case=help
    fresh
    step export-help export --help
    step deliver-help deliver --help
    step export-no-to export --dir logs
    step export-bad-logs export --to stick --dir logs --logs maybe
    step export-bad-page export --to stick --dir logs --page maybe
    step export-bad-format export --to stick --dir logs --format gpx,tcx
    step export-nothing export --to stick --dir logs --format none --logs no --config none
    step export-no-dir export --to stick --dir nowhere --config none
    step export-inside export --to logs/stick --dir logs --config none
    step export-extra export extra --to stick
    step export-zone-no-key export --to stick --dir logs --config none --privacy-zone 59.9,30.3,200
    step deliver-no-remote deliver --dir logs --config none
    step deliver-bare-remote deliver --dir logs --config none --remote rides
    step deliver-unknown-remote "${del[@]:0:5}" --remote nas:rides
    step deliver-nothing "${del[@]}" --format none --logs no
    step deliver-nothing-zones "${del[@]}" --format none "${zones[@]}"
    step deliver-bad-retries "${del[@]}" --retries 11
    step deliver-no-rclone "${del[@]}" --rclone /nonexistent/rclone
    # A bad value from the config's [deliver] section is named by its file and line.
    local bad
    for bad in 'retries = 11' 'format = tcx' 'logs = maybe' 'rclone-config = /nonexistent' 'remote = rides'; do
        printf '[deliver]\nremote = loc:%s/rides\n%s\n' "$shm" "$bad" >"$work/case/bad.conf"
        step "deliver-config-${bad%% *}" deliver --dir logs --config bad.conf
    done
    keep

    case=deliver-config
    fresh
    printf 'dir = logs\n[deliver]\nremote = loc:%s/rides\nformat = gpx\npage = no\nrclone-config = %s\n' "$shm" "$conf" >"$work/case/cairn.conf"
    step first deliver --config cairn.conf
    step check deliver --config cairn.conf --check
    keep

    case=export-default
    fresh
    step first export --to stick --dir logs --config none
    step again export --to stick --dir logs --config none
    keep

    case=export-all-formats
    fresh
    step first export --to stick --dir logs --config none --format gpx,fit,geojson,kml,csv --page no --laps 1km
    keep

    case=export-zones
    fresh
    step first export --to stick --dir logs --config none "${zones[@]}"
    step again export --to stick --dir logs --config none "${zones[@]}"
    keep

    case=export-zones-logs
    fresh
    step first export --to stick --dir logs --config none "${zones[@]}" --logs yes --format gpx,fit,geojson,kml,csv --name-prefix ride- --board bike
    keep

    case=export-logs-only
    fresh
    step first export --to stick --dir logs --config none --format none
    step then-gpx export --to stick --dir logs --config none --format gpx --page no
    keep

    case=deliver-default
    fresh
    step check "${del[@]}" --check
    step first "${del[@]}"
    step again "${del[@]}" --json
    keep

    case=deliver-zones
    fresh
    step first "${del[@]}" "${zones[@]}"
    step again "${del[@]}" "${zones[@]}" --json
    keep

    case=deliver-zones-logs
    fresh
    step first "${del[@]}" "${zones[@]}" --logs yes --format gpx,fit,geojson,kml,csv --board bike
    keep

    case=deliver-no-page
    fresh
    step first "${del[@]}" --page no --format none --logs yes
    step then-gpx "${del[@]}" --page no --format gpx
    keep

    case=deliver-zone-added
    fresh
    step first "${del[@]}"
    step zones "${del[@]}" "${zones[@]}"
    keep

    case=export-then-deliver
    fresh
    step export export --to stick --dir logs --config none --format gpx,csv
    step deliver "${del[@]}" --format gpx,csv
    keep
    rm -rf "$work/case" "$shm"
}

case $mode in
record) record ;;
run) run "${4:?an output folder}" ;;
*) echo "ship-gate.sh: record or run" >&2; exit 64 ;;
esac
