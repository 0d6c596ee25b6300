#!/usr/bin/env bash
# A real `cairn record` against a private gpsd replay (Tests/tools/gpsd-replay.py) while export and
# prune run: exports every 2 s during the ride, the recorder killed -9 at half the ride (a pulled
# battery), export + prune, then the ride resumed by a new recorder on the second half (a new part),
# export + prune again. Checks: the recording trip is never marked exported; every point recorded
# is on the stick or in the log directory at the end.
# Usage: recorder-race.sh CAIRN_BIN [WORKDIR]
set -u
B=${1:?cairn binary}; W=${2:-/tmp/ae-rec}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
NMEA=$ROOT/Tests/Fixtures/real/edge810.nmea
rm -rf "$W"; mkdir -p "$W"
n=$(wc -l <"$NMEA"); half=$((n / 2))
head -n $half "$NMEA" >"$W/a.nmea"; tail -n +$((half + 1)) "$NMEA" >"$W/b.nmea"
ride() { # $1 nmea, $2 kill signal after DONE
  python3 "$ROOT/Tests/tools/gpsd-replay.py" "$1" --port 0 --rate 400 >"$W/replay.out" 2>"$W/replay.err" &
  rp=$!
  for _ in $(seq 300); do grep -q '^READY' "$W/replay.out" 2>/dev/null && break; sleep 0.1; done
  port=$(awk '/^READY/ {print $2}' "$W/replay.out")
  "$B" record --gpsd 127.0.0.1:$port --dir "$W/logs" --baro none --clock fix --sync 1 2>>"$W/record.err" &
  rec=$!
  i=0
  while ! grep -q '^DONE' "$W/replay.out"; do
    sleep 2; i=$((i + 1))
    "$B" export --dir "$W/logs" --to "$W/stick" --config none 2>>"$W/export.log"; echo "export rc=$?" >>"$W/export.log"
    "$B" prune --dir "$W/logs" --max-mb 0.001 2>>"$W/prune.log"; echo "prune rc=$?" >>"$W/prune.log"
    [ $i -gt 200 ] && break
  done
  kill -"$2" $rec; wait $rec 2>/dev/null; wait $rp 2>/dev/null
}
ride "$W/a.nmea" 9
echo "== after kill -9"; "$B" list "$W/logs"
"$B" export --dir "$W/logs" --to "$W/stick" --config none; echo "export rc=$?"
"$B" prune --dir "$W/logs" --max-mb 0.001; echo "prune rc=$?"
ride "$W/b.nmea" TERM
echo "== after the resumed ride"; "$B" list "$W/logs"; ls -la "$W/logs"
"$B" export --dir "$W/logs" --to "$W/stick" --config none; echo "export rc=$?"
"$B" prune --dir "$W/logs" --max-mb 0.001; echo "prune rc=$?"
echo "== stick"; "$B" list "$W/stick/logs"; ls "$W/stick"/*/
grep -c "still open" "$W/export.log"; grep -i "deleted" "$W/prune.log" | head
