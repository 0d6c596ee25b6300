#!/usr/bin/env bash
# What the status LED costs the recorder (issue 41, item 5): two recorders on one private gpsd,
# the same generated ride (12 minutes with a 3-minute stop: the trip stays open), one with
# `--led ACT` on a fake LED class tree (the kernel's file names) and one without, each under
# `strace -f -c`: the system calls each made, by name. The wake-ups are the waits (ppoll, poll,
# clock_nanosleep); the LED's own work the opens and writes of its delay files and the stats.
#
# Usage: Tests/bench/led-cost.sh CAIRN [RATE]   (RATE: NMEA sentences a second, default 60: 20
# epochs a second). About a minute. Results: Tests/bench/led-cost-results.md
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:?usage: led-cost.sh CAIRN [RATE]}") rate=${2:-60}
w=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$w"' EXIT
cd "$w"
python3 "$here/../tools/make-ride.py" 0.2 ride.nmea --seed 5 --stop 360:180
led=sys/devices/platform/leds/leds/ACT
mkdir -p "$led" sys/class/leds
for f in brightness delay_on delay_off; do echo 0 >"$led/$f"; done
echo "none [timer] heartbeat" >"$led/trigger"
ln -s "$w/$led" sys/class/leds/ACT
python3 "$here/../tools/gpsd-replay.py" ride.nmea --port 0 --rate "$rate" --clients 2 >replay.out 2>replay.err &
for _ in $(seq 1 100); do grep -q READY replay.out && break; sleep 0.2; done
port=$(awk '/READY/{print $2}' replay.out)
[ -n "$port" ] || { cat replay.err >&2; exit 1; }
rec() { strace -f -c -o "strace-$1.txt" "$bin" record --gpsd "127.0.0.1:$port" --baro none --clock fix --dir "$1" \
    --status "$w/status-$1" --sysfs-root "$w/sys" "${@:2}" 2>"rec-$1.err" & }
rec led --led ACT
rec none
until grep -q DONE replay.out; do sleep 1; done
sleep 6
# SIGTERM to the recorders themselves (strace would detach from them and leave them running).
for p in $(pgrep -f "$bin record --gpsd 127.0.0.1:$port"); do [ "$(ps -o comm= -p "$p")" = strace ] || kill -TERM "$p"; done
wait
echo "led-cost: $(uname -m), $(nproc) cores, rate $rate sentences/s, $(grep -c . ride.nmea) sentences"
printf '%-16s %10s %10s\n' syscall with-led without
for s in ppoll poll clock_nanosleep openat write newfstatat statx statfs total; do
    a=$(awk -v s="$s" '$NF == s {print ($4 ~ /^[0-9]+$/) ? $4 : $3}' strace-led.txt)
    b=$(awk -v s="$s" '$NF == s {print ($4 ~ /^[0-9]+$/) ? $4 : $3}' strace-none.txt)
    [ -n "$a$b" ] && printf '%-16s %10s %10s\n' "$s" "${a:-0}" "${b:-0}"
done
echo "LED at the end: delay_on $(cat sys/class/leds/ACT/delay_on), delay_off $(cat sys/class/leds/ACT/delay_off)"
grep -h "trip closed" rec-led.err rec-none.err || true
