#!/usr/bin/env bash
# Peak memory of `cairn record` over a replayed ride, and where it lies: the recorder's VmHWM and,
# at the ride's end, its resident code (the text mapping), the rest mapped from the binary (its
# metadata and data) and its own memory (anonymous). One row per binary given (default: the
# static release build), the median of RUNS rides (default 3). The kernel maps a file's pages
# 64 KiB around each fault (fault-around) when they are cached, so where the code lies counts.
# Usage: Tests/bench/memory-bench.sh [BIN ...]      RUNS=N to change the count
# Results: Tests/bench/memory-results.md
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${RUNS:-3}
bash Tests/tools/install-deps.sh >/dev/null
if [ $# = 0 ]; then bash Tests/tools/build-static.sh >/dev/null; set -- "$PWD/.build/release/cairn"; fi
work=$(mktemp -d)
rp= rec=
trap 'kill $rp $rec 2>/dev/null || true; rm -rf "$work"' EXIT
die() { echo "memory-bench: $*" >&2; exit 1; }
python3 Tests/tools/make-ride.py 0.1 "$work/ride.nmea"
baro=$work/sys/bus/iio/devices/iio:device0
mkdir -p "$baro"
printf 'bmp280\n' >"$baro/name"; printf '100.123456789\n' >"$baro/in_pressure_input"; printf '23450\n' >"$baro/in_temp_input"

ride() {  # ride BIN: "hwm text file anon" in kB, at the ride's end
  local bin=$1 port pid
  rm -rf "$work/logs" "$work/replay.out"
  python3 Tests/tools/gpsd-replay.py "$work/ride.nmea" --port 0 --wait-client 60 >"$work/replay.out" 2>"$work/replay.err" &
  rp=$!
  for _ in $(seq 300); do grep -q '^READY' "$work/replay.out" && break; sleep 0.1; done
  port=$(awk '/^READY/ {print $2}' "$work/replay.out")
  [ -n "$port" ] || { cat "$work/replay.err" >&2; die "gpsd-replay did not become ready"; }
  "$bin" record --gpsd "127.0.0.1:$port" --dir "$work/logs" --baro auto --sysfs-root "$work/sys" \
    --clock fix --read-every 1 --status "$work/status" 2>"$work/record.err" &
  rec=$!
  for _ in $(seq 6000); do grep -q '^DONE' "$work/replay.out" && break; sleep 0.1; done
  sleep 7  # a sync and a status write more
  pid=$rec
  kill -0 "$pid" 2>/dev/null || die "the recorder is gone: $(tail -3 "$work/record.err")"
  awk -v bin="$(readlink -f "$bin")" '
    /^[0-9a-f]+-[0-9a-f]+ / {perm = $2; path = $6}
    /^Rss:/ {if (path == bin && perm ~ /x/) text += $2; else if (path == bin) file += $2; else anon += $2}
    END {printf "%d %d %d", text, file, anon}' "/proc/$pid/smaps" >"$work/parts"
  echo "$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status") $(cat "$work/parts")"
  kill -TERM "$pid"; wait "$pid" || true; rec=
  kill $rp 2>/dev/null || true; wait $rp 2>/dev/null || true; rp=
}

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "Ride: 6 minutes at 1 Hz with a barometer (fake sysfs bmp280), replayed through one gpsd; median of $runs; $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m)."
echo
echo "| binary | record peak RSS (VmHWM) | its code resident | rest of the binary | anonymous and stack | \`--version\` peak RSS |"
echo "|---|---:|---:|---:|---:|---:|"
for bin in "$@"; do
  [ -x "$bin" ] || die "$bin: not an executable"
  # The whole binary in the page cache first: fault-around maps only cached pages, so this is the
  # worst case, and the same for every binary. Dropped from the cache before the read: how a file
  # came into the cache (written by the linker, copied, read) changed its figures by 300 kB.
  python3 -c 'import os, sys; os.posix_fadvise(os.open(sys.argv[1], os.O_RDONLY), 0, 0, os.POSIX_FADV_DONTNEED)' "$bin"
  cat "$bin" >/dev/null
  : >"$work/rows"
  for _ in $(seq "$runs"); do ride "$bin" >>"$work/rows"; done
  v=$(for _ in $(seq "$runs"); do /usr/bin/time -f %M "$bin" --version 2>&1 >/dev/null | tail -1; done | median)
  printf '| %s | %s kB | %s kB | %s kB | %s kB | %s kB |\n' "$bin" \
    "$(cut -d' ' -f1 "$work/rows" | median)" "$(cut -d' ' -f2 "$work/rows" | median)" \
    "$(cut -d' ' -f3 "$work/rows" | median)" "$(cut -d' ' -f4 "$work/rows" | median)" "$v"
done
