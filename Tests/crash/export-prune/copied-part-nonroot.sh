#!/usr/bin/env bash
# A live trip made "closed" by a copied-in later part (another board's trip 1, part 1, with its
# trip end), with export and prune run as a user who cannot read the recorder's /proc/PID/fd
# (TripFinish then falls back to `closed` before the mtime rule). Needs root (setpriv to nobody).
# Usage: copied-part-nonroot.sh CAIRN_BIN [WORKDIR]
set -u
B=${1:?cairn binary}; W=${2:-/tmp/ae-nr}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$W"; mkdir -p "$W/logs" "$W/stick"; chmod 777 "$W" "$W/logs" "$W/stick"
python3 "$ROOT/Tests/tools/gpsd-replay.py" "$ROOT/Tests/Fixtures/real/edge810.nmea" --port 0 --rate 60 >"$W/replay.out" 2>"$W/replay.err" &
rp=$!
for _ in $(seq 300); do grep -q '^READY' "$W/replay.out" 2>/dev/null && break; sleep 0.1; done
port=$(awk '/^READY/ {print $2}' "$W/replay.out")
"$B" record --gpsd 127.0.0.1:$port --dir "$W/logs" --baro none --clock fix --sync 1 2>"$W/record.err" &
rec=$!
sleep 25
"$B" list "$W/logs"
python3 - "$HERE" "$W/logs" <<'PY'
import sys; sys.path.insert(0, sys.argv[1]); import craftlib as c
T = 1748764800000
c.write(sys.argv[2] + "/00000099.cairn", 1, c.fixes(T, 60, seed=9), closed=True, part=1)   # another board's trip 1, part 1
c.write(sys.argv[2] + "/00000100.cairn", 100, c.fixes(T + 86400000, 60, seed=10), closed=True)
PY
chmod 644 "$W"/logs/*.cairn
NOB=${RUNAS-"setpriv --reuid=65534 --regid=65534 --clear-groups"}  # RUNAS= (empty): as root
echo "== export as nobody while the recorder (PID $rec) writes 00000001.cairn"
$NOB "$B" export --dir "$W/logs" --to "$W/stick" --config none; echo "export rc=$?"
cat "$W/logs/exported"
echo "== prune as nobody"
$NOB "$B" prune --dir "$W/logs" --max-mb 0.001; echo "prune rc=$?"
ls -la "$W/logs"; ls -la /proc/$rec/fd 2>/dev/null | grep cairn
kill -TERM $rec; wait $rec; kill $rp 2>/dev/null; wait $rp 2>/dev/null
echo "== after the ride"; "$B" list "$W/logs"; "$B" list "$W/stick/logs"
