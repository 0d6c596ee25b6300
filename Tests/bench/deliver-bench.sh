#!/usr/bin/env bash
# What `cairn deliver` costs the board: a real ride (the Edge 810's 78 minutes, replayed through a
# private gpsd and recorded) delivered to a local rclone remote with the default formats, then a
# run with nothing to send, then a run while a trip is being recorded (it must wait at once).
# For each: wall time, CPU time of cairn and of the rclone processes it starts (GNU time counts
# waited-for children), rclone processes started, bytes sent and read back.
#
# Usage: Tests/bench/deliver-bench.sh          Results: Tests/bench/deliver-results.md
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
bash Tests/tools/install-deps.sh >/dev/null
bash Tests/tools/build-static.sh >/dev/null
cairn=$PWD/.build/release/cairn
work=$(mktemp -d)
rp= rec=
# The remotes off the log directory's file system: one on its card is refused.
shm=$(mktemp -d /dev/shm/cairn-dbench.XXXXXX)
trap 'kill $rp $rec 2>/dev/null || true; rm -rf "$work" "$shm"' EXIT

python3 Tests/tools/gpsd-replay.py Tests/Fixtures/real/edge810.nmea --port 0 >"$work/replay.txt" 2>"$work/replay.err" &
rp=$!
for _ in $(seq 300); do grep -q '^READY' "$work/replay.txt" 2>/dev/null && break; sleep 0.1; done
port=$(awk '/^READY/ {print $2}' "$work/replay.txt")
"$cairn" record --gpsd "127.0.0.1:$port" --dir "$work/logs" --baro none --clock fix --sync 1 2>/dev/null &
rec=$!
for _ in $(seq 1200); do grep -q '^DONE' "$work/replay.txt" 2>/dev/null && break; sleep 0.1; done
wait "$rp" || true; rp=
kill -TERM "$rec"; wait "$rec" || true; rec=

printf '[home]\ntype = local\n' >"$work/rclone.conf"
# A wrapper that counts rclone's starts and the bytes `cat` reads back.
cat >"$work/rclone" <<WRAP
#!/bin/sh
echo "\$*" >>"$work/calls"
exec rclone "\$@"
WRAP
chmod +x "$work/rclone"
timed() {  # the log directory, then cairn's arguments: sets wall, cpu and rss; the calls in $work/calls
    local dir=$1; shift
    : >"$work/calls"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$cairn" deliver --dir "$dir" --rclone "$work/rclone" \
        --rclone-config "$work/rclone.conf" --config none "$@" >/dev/null 2>"$work/err" || true
    read -r wall user sys rss < <(tail -1 "$work/time")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}')
}
run() {  # name, then cairn's arguments
    local name=$1; shift
    timed "$work/logs" "$@"
    local calls reads
    calls=$(wc -l <"$work/calls")
    reads=$(grep -c '^.* cat ' "$work/calls" || true)
    printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$wall" "$cpu" "$rss" "$calls" "$reads"
}
{
    echo "| run | wall s | CPU s (cairn + rclone) | peak RSS kB (largest of cairn and its rclones) | rclone starts | of them read-backs |"
    echo "|---|---:|---:|---:|---:|---:|"
    run "first delivery (1 trip: log, gpx, fit, csv)" --remote "home:$shm/remote"
    run "again, nothing to send" --remote "home:$shm/remote"
} >"$work/table"
sent=$(du -cb "$shm/remote" | tail -1 | cut -f1)
logs=$(du -cb "$work/logs"/*.cairn | tail -1 | cut -f1)
# While recording: the recorder's lock held and a log open (as cairn record holds them).
python3 - "$work/logs" <<'PY' &
import fcntl, os, sys, time
d = sys.argv[1]
l = open(os.path.join(d, ".cairn.lock"), "a"); fcntl.flock(l, fcntl.LOCK_EX)
f = open(os.path.join(d, sorted(x for x in os.listdir(d) if x.endswith(".cairn"))[-1]), "ab")
open(os.path.join(d, "held"), "w").close()
time.sleep(30)
PY
holder=$!
for _ in $(seq 100); do [ -e "$work/logs/held" ] && break; sleep 0.1; done
run "while a trip is recorded (waits, exit 75)" --remote "home:$shm/remote2" >>"$work/table"
kill $holder 2>/dev/null || true

# A month of rides at once: 60 trips (the fixture ride under 60 trip ids), the first delivery
# with the default formats and page, beside one `rclone copy` of the same files it left there.
python3 - "$work/month" <<'PY'
import os, sys
sys.path.insert(0, "Tests/deliver")
import trips
d = sys.argv[1]
os.makedirs(d)
ride = open("Tests/Fixtures/logs/format1-ride.cairn", "rb").read()
for n in range(1, 61):
    open(os.path.join(d, "%08d.cairn" % n), "wb").write(trips.retarget(ride, n))
PY
month() {  # name, then cairn's arguments
    local name=$1; shift
    timed "$work/month" "$@"
    printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$wall" "$cpu" "$rss" "$(wc -l <"$work/calls")" "$(find "$shm/remote3" -type f | wc -l)"
}
{
    echo "| run | wall s | CPU s (cairn + rclone) | peak RSS kB | rclone starts | files on the remote |"
    echo "|---|---:|---:|---:|---:|---:|"
    month "first delivery of 60 trips (log, gpx, fit, csv, picture each; the page)" --remote "home:$shm/remote3"
    month "again, nothing to send" --remote "home:$shm/remote3"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" rclone --config "$work/rclone.conf" copy "home:$shm/remote3" "home:$shm/remote4"
    read -r wall user sys rss < <(tail -1 "$work/time")
    printf '| one `rclone copy` of the same files | %s | %s | %s | 1 | %s |\n' "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}')" "$rss" "$(find "$work/remote4" -type f | wc -l)"
} >"$work/month-table"
{
    echo "# cairn deliver: what it costs the board"
    echo
    echo "Measured $(date -u +%Y-%m-%d) on $(uname -m), $(nproc) cores (load average $(cut -d' ' -f1 /proc/loadavg) at the end: times"
    echo "grow with it, counts do not), $(rclone version 2>/dev/null | head -1), by"
    echo "\`bash Tests/bench/deliver-bench.sh\`: the Edge 810 ride (78 min) recorded through gpsd, delivered"
    echo "to a local rclone remote with the default formats (gpx, fit, csv) and the log."
    echo
    cat "$work/table"
    echo
    echo "Bytes: the log directory holds $logs bytes; the remote received $sent bytes (log and conversions),"
    echo "each file read back twice (in the shipping folder and under its final name): about $((sent * 2)) bytes down."
    echo "The recorder itself does nothing for delivery: no code of it runs in \`cairn record\`, so"
    echo "recording has no extra wake-up; a run while a trip is recorded stops before any transfer (its one"
    echo "rclone start is \`rclone listremotes\`, the check that the remote is known). A run ships its"
    echo "files in batches of what the card can stage (one here), so its rclone starts do not grow with them:"
    echo "the listing, then \`sync\` to the shipping folder, \`md5sum --download\`, \`move\` (twice: new logs"
    echo "with \`--immutable\`), \`md5sum --download\` again, \`purge\`; and once per log directory, with its"
    echo "first run that sends, \`lsjson --dirs-only\` beside the board's folder for shipping folders a card"
    echo "before it left."
    echo
    echo "## A month of rides at once"
    echo
    echo "60 trips (the fixture ride under 60 trip ids) delivered to a local rclone remote, on this machine"
    echo "(not the arm64 guest), beside one \`rclone copy\` of the files the delivery left there:"
    echo
    cat "$work/month-table"
} >Tests/bench/deliver-results.md
cat Tests/bench/deliver-results.md
