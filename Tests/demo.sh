#!/usr/bin/env bash
# The demo: builds the static binary, starts a private gpsd replaying a real recording (a
# Garmin Edge 810's 78-minute road ride, Tests/Fixtures/real/SOURCES.md; any NMEA log can be
# given instead), records it with `cairn record`,
# stops it like systemd would (SIGTERM), then lists and verifies the log, prints the trip's
# summary, converts it to every export format (GPX checked against the official GPX 1.1 schema,
# FIT, speed-coloured GeoJSON, KML, CSV) and to a smoothed, gap-filled GPX, draws its picture (SVG, and PNG when rsvg-convert is
# there), lists the geohash cells it explored, delivers it through rclone to a WebDAV server on loopback (twice: the
# second run sends nothing), and says where each file is. Installs what is
# missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
log=${1:-Tests/Fixtures/real/edge810.nmea}

bash Tests/tools/install-deps.sh
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
bash Tests/tools/build-static.sh
cairn=$PWD/.build/release/cairn

out=$PWD/.build/demo
rm -rf "$out"; mkdir -p "$out"
replay_out=$out/replay.txt
cleanup() {
  for p in "${rec:-}" "${rp:-}" "${nas:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
  true
}
trap cleanup EXIT

echo "== replaying $log through a private gpsd"
python3 Tests/tools/gpsd-replay.py "$log" --port 0 >"$replay_out" 2>"$out/replay.err" &
rp=$!
for _ in $(seq 300); do grep -q '^READY' "$replay_out" 2>/dev/null && break; sleep 0.1; done
port=$(awk '/^READY/ {print $2}' "$replay_out")
[ -n "$port" ] || { echo "demo: gpsd did not start:"; cat "$out/replay.err"; exit 1; }

echo "== cairn record --gpsd 127.0.0.1:$port --dir $out/logs --baro none --clock fix"
"$cairn" record --gpsd "127.0.0.1:$port" --dir "$out/logs" --baro none --clock fix --sync 1 2>"$out/record.err" &
rec=$!
for _ in $(seq 1200); do grep -q '^DONE' "$replay_out" 2>/dev/null && break; sleep 0.1; done
wait "$rp" || true; rp=
kill -TERM "$rec"; wait "$rec"; rc=$?; rec=
cat "$out/record.err"
[ "$rc" = 0 ] || { echo "demo: cairn record exited $rc"; exit 1; }

echo "== cairn list"
"$cairn" list "$out/logs" | tee "$out/list.txt"
# The file's own date (its first RMC's ddmmyy) beside the one listed: gpsd 3.22 moves a date
# before 2019 forward by 1024 weeks (the GPS week rollover it cannot tell from the NMEA), and
# cairn stores what gpsd says.
rmc=$(grep -m1 -E '^\$G[NP]RMC,' "$log" | cut -d, -f10 || true)
if [ ${#rmc} = 6 ]; then
    recorded="20${rmc:4:2}-${rmc:2:2}-${rmc:0:2}"
    grep -q -- " $recorded" "$out/list.txt" \
        || echo "demo: the ride was recorded on $recorded; gpsd dates NMEA from before 2019 1024 weeks later (the GPS week rollover), and cairn keeps gpsd's date"
fi
echo "== cairn verify"
"$cairn" verify "$out/logs"
echo "== cairn info"
"$cairn" info "$out/logs"
echo "== cairn convert: every format"
"$cairn" convert "$out/logs" --to gpx -o "$out/ride.gpx"
xmllint --noout --schema Tests/Fixtures/schemas/gpx.xsd "$out/ride.gpx"
"$cairn" convert "$out/logs" --to fit -o "$out/fit"
"$cairn" convert "$out/logs" --to geojson --speed-bands auto -o "$out/ride.geojson"
"$cairn" convert "$out/logs" --to kml --speed-bands auto -o "$out/ride.kml"
"$cairn" convert "$out/logs" --to csv -o "$out/ride.csv"
echo "== cairn convert --smooth --fill-gaps (the log stays as measured)"
"$cairn" convert "$out/logs" --to gpx --smooth --fill-gaps -o "$out/ride-smoothed.gpx"
xmllint --noout --schema Tests/Fixtures/schemas/gpx.xsd "$out/ride-smoothed.gpx"
echo "== cairn render"
"$cairn" render "$out/logs" --cells -o "$out/ride.svg"
png=
if command -v rsvg-convert >/dev/null; then rsvg-convert "$out/ride.svg" -o "$out/ride.png" && png=$out/ride.png; fi
echo "== cairn cells"
"$cairn" cells "$out/logs" --precision 6 | tail -3
"$cairn" cells "$out/logs" --to geojson -o "$out/cells.geojson"
echo "== cairn deliver: through rclone to a WebDAV server on loopback, as to a NAS"
# A server, not a folder: a folder on the log directory's own card is no copy off the board,
# and deliver refuses it (deploy/DELIVERY.md); the server's files are elsewhere to cairn.
mkdir -p "$out/delivered"
nas_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rclone serve webdav "$out/delivered" --addr "127.0.0.1:$nas_port" --config /dev/null 2>"$out/nas.err" &
nas=$!
printf '[home]\ntype = webdav\nurl = http://127.0.0.1:%s/\nvendor = other\n' "$nas_port" >"$out/rclone.conf"
for _ in $(seq 100); do rclone --config "$out/rclone.conf" lsd home: >/dev/null 2>&1 && break; sleep 0.1; done
"$cairn" deliver --dir "$out/logs" --remote "home:" --rclone-config "$out/rclone.conf" --config none
"$cairn" deliver --dir "$out/logs" --remote "home:" --rclone-config "$out/rclone.conf" --config none
echo
echo "demo: the log is in $out/logs/"
echo "demo: exports: $out/ride.gpx, $out/fit/$(ls "$out/fit" | head -1), $out/ride.geojson, $out/ride.kml, $out/ride.csv; smoothed: $out/ride-smoothed.gpx"
echo "demo: picture: $out/ride.svg${png:+ and $png}; explored cells: $out/cells.geojson"
echo "demo: delivered: $out/delivered/ (a second run sent nothing: each trip goes once)"
