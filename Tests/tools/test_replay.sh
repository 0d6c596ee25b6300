#!/usr/bin/env bash
# Self-test of gpsd-replay.py: replay fixtures into a private gpsd, read them
# back with gpspipe and check the TPV counts against gpsd's regression output.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fixtures="$here/../Fixtures/gpsd"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

check() {  # check NAME CONDITION-RESULT DETAIL
    if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "PASS $1 ($3)"
    else failed=$((failed + 1)); echo "FAIL $1 ($3)"; sed 's/^/  | /' "$work/err"; fi
}

# replay LOG [ARGS...]: sets $rc, writes $work/out (replay stdout) and
# $work/json (everything gpspipe read). gpspipe exits when gpsd goes away, so
# it reconnects in a loop while the replay runs (needed for --restart-at).
replay() {
    local log=$1; shift
    : > "$work/out"; : > "$work/json"
    timeout 120 python3 "$here/gpsd-replay.py" "$fixtures/$log" --port 0 --wait-client 10 "$@" \
        > "$work/out" 2> "$work/err" &
    local pid=$! port=""
    for _ in $(seq 200); do  # gpsd needs ~1 s to get ready
        port=$(awk '$1 == "READY" {print $2}' "$work/out")
        [ -n "$port" ] || ! kill -0 "$pid" 2>/dev/null && break
        sleep 0.05
    done
    while [ -n "$port" ] && kill -0 "$pid" 2>/dev/null; do
        gpspipe -w "127.0.0.1:$port" >> "$work/json" 2>/dev/null || sleep 0.05
    done
    rc=0; wait "$pid" || rc=$?
    # no gpsd may survive the replay
    if [ -n "$port" ] && pgrep -f "gpsd .*-S $port " >/dev/null; then
        echo "gpsd on port $port left running" >&2; rc=99
    fi
}

# count: "TPVs mode>=2 usable timed distinct-times" of $work/json
count() {
    python3 - "$work/json" <<'EOF'
import json, sys
tpv = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"class":"TPV"')]
fix = [t for t in tpv if t.get("mode", 0) >= 2]
usable = [t for t in fix if "time" in t and "lat" in t and "lon" in t]
print(len(tpv), len(fix), len(usable), sum("time" in t for t in fix),
      len({t["time"] for t in usable}))
EOF
}

replay haicom-305N.log
read -r n fix usable timed times < <(count)
check "haicom-305N: >= 130 usable TPVs (expected 134)" \
    $([ $rc = 0 ] && [ "$usable" -ge 130 ] && grep -qx 'DONE 325' "$work/out"; echo $?) \
    "rc=$rc usable=$usable times=$times"

replay sounder.log
read -r n fix usable timed times < <(count)
check "sounder: mode-2 TPVs (expected 121) but none timed" \
    $([ $rc = 0 ] && [ "$fix" -ge 100 ] && [ "$timed" = 0 ]; echo $?) \
    "rc=$rc mode>=2=$fix timed=$timed"

replay haicom-305N.log --restart-at 0.5
read -r n fix usable timed times < <(count)
check "haicom-305N --restart-at 0.5: reconnect, most times kept (expected 67)" \
    $([ $rc = 0 ] && grep -qx 'RESTARTED 1' "$work/out" && [ "$times" -ge 60 ]; echo $?) \
    "rc=$rc usable=$usable times=$times"

: > "$work/out"
rc=0; python3 "$here/gpsd-replay.py" "$fixtures/polarx2.log" --wait-client 0.5 \
    > "$work/out" 2> "$work/err" || rc=$?
port=$(awk '$1 == "READY" {print $2}' "$work/out")
check "no client: exit 2, gpsd stopped" \
    $([ $rc = 2 ] && [ -n "$port" ] && ! pgrep -f "gpsd .*-S $port " >/dev/null; echo $?) \
    "rc=$rc"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
