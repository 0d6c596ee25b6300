#!/usr/bin/env bash
# Peer benchmark: `cairn record` (the static release binary) against gpsd's own `gpxlogger`,
# both fed the SAME synthetic rides (Tests/tools/make-ride.py) by the SAME private gpsd
# (Tests/tools/gpsd-replay.py, which waits until every recorder is watching before it writes).
#
#   1. CPU (user+sys) of each recorder: a 2 h ride replayed as fast as gpsd takes it, and a
#      10-minute ride paced at real time (1 epoch/s), twice: cairn and gpxlogger alone (the target),
#      then beside four more cairn recorders (one with a fake barometer); wakeups (context switches) per minute.
#   2. Memory: peak and anonymous RSS of `cairn record` on a 1 h and a 12 h ride (flat?), and of
#      `cairn convert --to gpx` on a ~10k- and a ~1M-point log.
#   3. The card, from the paced run: log bytes per point and per hour, bytes and write calls per
#      hour (/proc/PID/io), fdatasync/fsync per hour (a second, strace'd pair on the same replay).
#   4. The binary: size unstripped and stripped; start-up time to the first gpsd request.
#   5. Tests/bench/callgrind.sh's section, when that script exists.
#
# Usage: Tests/bench/peer-bench.sh [--quick] [--paced-minutes M]
#   --quick            a smoke run (short rides, 1-minute paced run, 5 start-ups, no callgrind);
#                      writes ${TMPDIR:-/tmp}/peer-results-quick.md, not the results file
#   --paced-minutes M  length of the real-time run (default 10; 1 with --quick)
# Build directory: $SCRATCH (default .build), as Tests/tools/build-static.sh.
# Results: Tests/bench/peer-results.md. Exit 0 ok; 1 a step failed (its name is printed);
# 2 everything was measured and written but Tests/bench/callgrind.sh failed (its section says so).
# Takes ~25 min (two paced runs) plus twice the paced minutes beyond 10 and the builds; run it on
# an otherwise idle machine.
set -Eeuo pipefail
cd "$(dirname "$0")/../.."
t_start=$EPOCHREALTIME
cmdline="bash Tests/bench/peer-bench.sh${*:+ $*}"

quick=0 paced_min=
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --paced-minutes) paced_min=${2:?--paced-minutes needs a number}; shift ;;
    --paced-minutes=*) paced_min=${1#*=} ;;
    -h|--help) sed -n '2,/^set -E/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "peer-bench: unknown option $1 (try --help)" >&2; exit 64 ;;
  esac
  shift
done
if [ "$quick" = 1 ]; then
  cpu_hours=0.25 cpu_runs=1 mem_hours=(0.1 0.5) mem_runs=1 conv_points=(10000 100000) conv_runs=1 starts=5
  paced_min=${paced_min:-1} out=${TMPDIR:-/tmp}/peer-results-quick.md
else
  cpu_hours=2 cpu_runs=3 mem_hours=(1 12) mem_runs=3 conv_points=(10000 1000000) conv_runs=3 starts=20
  paced_min=${paced_min:-10} out=Tests/bench/peer-results.md
fi
[[ "$paced_min" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "peer-bench: --paced-minutes wants a number" >&2; exit 64; }

if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
scratch=${SCRATCH:-.build}
export SCRATCH=$scratch   # build-static.sh builds there
cairn=$PWD/$scratch/release/cairn
[[ "$scratch" = /* ]] && cairn=$scratch/release/cairn

# ---------------------------------------------------------------------------------------------
# Plumbing: every process we start is remembered and stopped on exit; a failure names its step.
step="start-up"
work=$(mktemp -d "${TMPDIR:-/tmp}/peer-bench.XXXXXX")
started=()
facts=$work/facts   # every measured figure, key=value; the report is rendered from this alone
: >"$facts"
cleanup() {
  local rc=$? p
  trap - EXIT ERR
  for p in "${started[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  sleep 0.2
  for p in "${started[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  if [ "$rc" = 0 ] || [ "$rc" = 2 ]; then rm -rf "$work"
  else echo "peer-bench: work files kept in $work" >&2; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "peer-bench: FAILED in step \"$step\" (line $LINENO, exit $?)" >&2' ERR
forget() {  # forget PID: it was reaped, never signal that number again
  local p keep=()
  for p in "${started[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
  started=("${keep[@]}")
}
die() { echo "peer-bench: FAILED in step \"$step\": $*" >&2; exit 1; }
say() { echo "peer-bench: $*" >&2; }
fact() { echo "$1=$2" >>"$facts"; }
get() { awk -F= -v k="$1" '$1 == k {v = substr($0, length(k) + 2)} END {print v}' "$facts"; }

# ---------------------------------------------------------------------------------------------
# The python side: /proc snapshots, polling, start-up timing, the log frame walk, the report.
export PEER_BENCH_DIR=$PWD/Tests/bench
cat >"$work/peer.py" <<'PY'
import glob, json, os, re, signal, socket, statistics, subprocess, sys, tempfile, time
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.environ["PEER_BENCH_DIR"])

def kv(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.partition(":")
            if v.strip():
                out[k.strip()] = v.split()[0]
    return out

from procfs import cpu_ns, watching  # Tests/bench/procfs.py

def snap(prefix, pid):
    pid = int(pid)
    t = time.monotonic()
    ns = cpu_ns(pid)
    vol = nvol = threads = 0
    for p in glob.glob("/proc/%d/task/*/status" % pid):
        try:
            s = kv(p)
        except OSError:
            continue
        vol += int(s["voluntary_ctxt_switches"]); nvol += int(s["nonvoluntary_ctxt_switches"]); threads += 1
    stat = open("/proc/%d/stat" % pid).read()
    rest = stat[stat.rindex(")") + 2:].split()      # rest[0] is field 3 (state)
    ticks = int(rest[11]) + int(rest[12])             # utime + stime, whole process, dead threads too
    st = kv("/proc/%d/status" % pid)
    io = kv("/proc/%d/io" % pid)
    vals = dict(t=t, cpu_ns=ns, ticks=ticks, uticks=int(rest[11]), sticks=int(rest[12]), threads=threads, vcsw=vol, nvcsw=nvol,
                hwm_kb=st["VmHWM"], rss_kb=st["VmRSS"], anon_kb=st["RssAnon"], file_kb=st["RssFile"],
                wchar=io["wchar"], syscw=io["syscw"], write_bytes=io["write_bytes"], rchar=io["rchar"])
    for k, v in vals.items():
        print("%s.%s=%s" % (prefix, k, v))

def quiesce(*pids):
    """Wait until every recorder has stopped burning CPU (its socket is drained), at most 30 s."""
    pids = [int(p) for p in pids]
    end = time.monotonic() + 30
    while time.monotonic() < end:
        a = [cpu_ns(p) for p in pids]
        time.sleep(0.5)
        b = [cpu_ns(p) for p in pids]
        if all(y - x < 3_000_000 for x, y in zip(a, b)):
            return
    print("peer-bench: recorders still busy 30 s after the replay ended", file=sys.stderr)

def poll(stopfile, outfile, *pids):
    """Max RssAnon and VmRSS of each pid, sampled every 0.2 s until stopfile appears."""
    best = {int(p): [0, 0, 0] for p in pids}
    while not os.path.exists(stopfile):
        for p, b in best.items():
            try:
                s = kv("/proc/%d/status" % p)
                b[0] = max(b[0], int(s["RssAnon"])); b[1] = max(b[1], int(s["VmRSS"])); b[2] += 1
            except (OSError, KeyError):
                pass
        time.sleep(0.2)
    with open(outfile, "w") as f:
        for p, b in best.items():
            f.write("%d %d %d %d\n" % (p, *b))

def convmem(*cmd):
    """Runs cmd under GNU time (%M: the peak RSS that the kernel keeps, of the command alone)
    and samples the command's RssAnon every millisecond. Prints "wall_s peak_rss_kb max_anon_kb
    samples"; exits 1 if the command failed."""
    with tempfile.NamedTemporaryFile("r") as tf:
        t0 = time.monotonic()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", tf.name, *cmd],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        child, anon, samples = None, 0, 0
        while p.poll() is None:
            try:
                if child is None:
                    kids = open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()
                    child = int(kids[0]) if kids else None
                if child is not None:
                    anon = max(anon, int(kv("/proc/%d/status" % child)["RssAnon"])); samples += 1
            except (OSError, KeyError, ValueError):
                pass
            time.sleep(0.001)
        wall = time.monotonic() - t0
        if p.returncode != 0:
            sys.exit(1)
        print("%.3f %s %d %d" % (wall, tf.read().split()[-1], anon, samples))

def clients(port, n, timeout):
    """Wait until gpsd has accepted n clients on port (server-side ESTABLISHED sockets)."""
    port, n, end = int(port), int(n), time.monotonic() + float(timeout)
    while time.monotonic() < end:
        c = watching(port)
        if c >= n:
            return
        time.sleep(0.05)
    sys.exit("only %d of %d recorders connected to gpsd" % (c, n))

def startup(runs, *cmd):
    """ms from just before Popen to the first bytes (the ?WATCH) on the accepted socket."""
    ms = []
    for _ in range(int(runs)):
        with socket.socket() as s, tempfile.TemporaryDirectory() as d:
            s.bind(("127.0.0.1", 0)); s.listen(1); s.settimeout(10)
            port = s.getsockname()[1]
            argv = [a.replace("{port}", str(port)).replace("{dir}", d) for a in cmd]
            t0 = time.perf_counter()
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                c, _ = s.accept()
                with c:
                    c.settimeout(10)
                    first = c.recv(64)
                    t1 = time.perf_counter()
            except OSError as e:
                p.kill(); p.wait()
                sys.exit("%s: no request within 10 s (%s)" % (argv[0], e))
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill(); p.wait()
            if not first.startswith(b"?"):
                sys.exit("%s: first bytes %r are not a gpsd command" % (argv[0], first))
            ms.append((t1 - t0) * 1000)
    print("median_ms=%.2f" % statistics.median(ms))
    print("max_ms=%.2f" % max(ms))
    print("min_ms=%.2f" % min(ms))
    print("runs=%d" % len(ms))

def logwalk(prefix, *files):
    """Frame walk of cairn logs (LOG_FORMAT.md sections 2-3): bytes per frame type, padding."""
    tot = hdr = ext = pad = padn = tail = 0
    frames, by_type = 0, {}
    for fn in files:
        b = open(fn, "rb").read()
        tot += len(b)
        if len(b) < 32 or b[:8] != b"CAIRNLOG":
            tail += len(b); continue
        hl = int.from_bytes(b[10:12], "little")
        hdr += min(hl, len(b)); ext += max(0, min(hl, len(b)) - 32)
        off = hl
        while off + 7 <= len(b):
            n = int.from_bytes(b[off + 4:off + 6], "little"); typ = b[off + 6]
            if typ == 0 or off + 7 + n > len(b):
                break
            frames += 1; by_type[typ] = by_type.get(typ, 0) + 7 + n
            if typ == 255:
                pad += 7 + n; padn += 1
            off += 7 + n
        tail += len(b) - off
    for k, v in dict(total=tot, header=hdr, header_ext=ext, padding=pad, padding_frames=padn,
                     frames=frames, points_frames=by_type.get(3, 0), unwalked=tail,
                     data=tot - pad - ext).items():
        print("%s.%s=%s" % (prefix, k, v))

def stracesum(prefix, path):
    calls = {}
    for line in open(path):
        f = line.split()
        if len(f) in (5, 6) and re.match(r"^[\d.]+$", f[0]) and f[-1] not in ("total",):
            calls[f[-1]] = int(f[3])
    for name in ("write", "writev", "pwrite64", "fdatasync", "fsync"):
        print("%s.%s=%d" % (prefix, name, calls.get(name, 0)))

def points(listjson):
    print(sum(t["points"] for t in json.load(open(listjson))))

if __name__ == "__main__":
    if sys.argv[1] == "report":
        import importlib.util
        spec = importlib.util.spec_from_file_location("report", sys.argv[2])
        m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
        m.main(sys.argv[3])
    else:
        globals()[sys.argv[1]](*sys.argv[2:])
PY
py() { python3 "$work/peer.py" "$@"; }

# ---------------------------------------------------------------------------------------------
step="tools"
for c in gpsd gpxlogger strace python3 strip /usr/bin/time git; do
  command -v "$c" >/dev/null || { say "installing what is missing ($c)"; bash Tests/tools/install-deps.sh >/dev/null; break; }
done
for c in gpsd gpxlogger strace python3 strip /usr/bin/time; do command -v "$c" >/dev/null || die "$c is not installed"; done

step="build (static release binary in $scratch)"
say "$step"
bash Tests/tools/build-static.sh >"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; die "build-static.sh failed"; }
[ -x "$cairn" ] || die "$cairn was not built"

step="convert logs (BenchmarkLogTests, the real LogWriter)"
say "$step"
# As Tests/bench/convert-bench.sh: a synthetic 1 Hz ride written by the real LogWriter, 10
# segments, points framed 5 at a time like the recorder's 5 s syncs.
for n in "${conv_points[@]}"; do
  CAIRN_BENCH_DIR="$work/conv$n" CAIRN_BENCH_POINTS=$n \
    swift test --scratch-path "$scratch" --disable-swift-testing --filter BenchmarkLogTests >"$work/gen$n.log" 2>&1 \
    || { grep -m5 -E 'error:|failed' "$work/gen$n.log" >&2
         die "writing the $n-point log failed (swift test builds every test target: they must all compile)"; }
done

step="rides (make-ride.py)"
ride() {  # ride HOURS -> path of the NMEA file (deterministic: seed 1)
  local f=$work/ride-$1h.nmea
  [ -f "$f" ] || python3 Tests/tools/make-ride.py "$1" "$f"
  echo "$f"
}
# make-ride.py writes int(HOURS * 3600) epochs: half a second more keeps the rounding off M*60.
paced_hours=$(awk -v m="$paced_min" 'BEGIN {printf "%.10g", (m * 60 + 0.5) / 3600}')

# ---------------------------------------------------------------------------------------------
# One replay session: a private gpsd replaying RIDE at RATE sentences/s (0 = as fast as gpsd
# takes it) to cairn and gpxlogger at once; with trace=1 a second, strace'd pair watches the same
# gpsd; with poll=1 RssAnon/VmRSS are sampled every 0.2 s. Snapshots: s0 when every recorder is
# watching, s1 after the replay, once the recorders are idle, just before they are stopped.
# session TAG RIDE RATE TRACE POLL
session() {
  local tag=$1 ride=$2 rate=$3 trace=$4 poll=$5
  local n=2 d=$work/$tag rp port r pid rc timeout
  [ "$trace" = 1 ] && n=7
  mkdir -p "$d"
  fact "$tag.epochs" "$(grep -c GPRMC "$ride")"
  fact "$tag.rate" "$rate"
  python3 Tests/tools/gpsd-replay.py "$ride" --port 0 --rate "$rate" --clients $n --wait-client 60 --linger 3600 \
    >"$d/replay.out" 2>"$d/replay.err" &
  rp=$!; started+=("$rp")
  for _ in $(seq 300); do grep -q '^READY' "$d/replay.out" && break; kill -0 $rp 2>/dev/null || break; sleep 0.1; done
  port=$(awk '/^READY/ {print $2}' "$d/replay.out")
  [ -n "$port" ] || { cat "$d/replay.err" >&2; die "gpsd-replay did not come up"; }

  declare -gA P=()   # recorder name -> pid of the recorder itself (not of strace)
  "$cairn" record --gpsd "127.0.0.1:$port" --dir "$d/cairn" --baro none --clock fix 2>"$d/cairn.err" &
  P[cairn]=$!; started+=($!)
  gpxlogger -f "$d/gpxl.gpx" "127.0.0.1:$port" 2>"$d/gpxl.err" &
  P[gpxl]=$!; started+=($!)
  declare -gA S=()   # traced recorder -> pid of its strace
  if [ "$trace" = 1 ]; then
    # The same recorder with a 60 s loss window: what the 5 s syncs cost in CPU, wake-ups and bytes.
    "$cairn" record --gpsd "127.0.0.1:$port" --dir "$d/cairn60" --baro none --clock fix --sync 60 2>"$d/cairn60.err" &
    P[cairn60]=$!; started+=($!)
    # The same recorder reading each report as it comes (a live display's setting): what the
    # batched reading saves.
    "$cairn" record --gpsd "127.0.0.1:$port" --dir "$d/cairnlive" --baro none --clock fix --read-every 0 2>"$d/cairnlive.err" &
    P[cairnlive]=$!; started+=($!)
    # The same recorder with a barometer, as cairn is meant to run: a fake sysfs bmp280 (the
    # kernel's file names and formats; a real one adds the I2C transfers), read with each batch.
    local baro=$d/sys/bus/iio/devices/iio:device0
    mkdir -p "$baro"
    printf 'bmp280\n' >"$baro/name"; printf '100.123456789\n' >"$baro/in_pressure_input"; printf '23450\n' >"$baro/in_temp_input"
    "$cairn" record --gpsd "127.0.0.1:$port" --dir "$d/cairnbaro" --baro "$baro" --clock fix 2>"$d/cairnbaro.err" &
    P[cairnbaro]=$!; started+=($!)
    # -f: every thread; only the calls that put bytes on the card or make them durable.
    strace -f -c -e trace=write,writev,pwrite64,fdatasync,fsync -o "$d/cairn_tr.strace" \
      "$cairn" record --gpsd "127.0.0.1:$port" --dir "$d/cairn_tr" --baro none --clock fix 2>"$d/cairn_tr.err" &
    S[cairn_tr]=$!; started+=($!)
    strace -f -c -e trace=write,writev,pwrite64,fdatasync,fsync -o "$d/gpxl_tr.strace" \
      gpxlogger -f "$d/gpxl_tr.gpx" "127.0.0.1:$port" 2>"$d/gpxl_tr.err" &
    S[gpxl_tr]=$!; started+=($!)
    # The recorder is the child of strace that runs the recorder's binary (strace also forks
    # short-lived children of its own to probe ptrace features).
    local want c
    for r in cairn_tr gpxl_tr; do
      want=cairn; [ $r = gpxl_tr ] && want=gpxlogger
      pid=
      for _ in $(seq 200); do
        for c in $(cat /proc/${S[$r]}/task/*/children 2>/dev/null); do
          [ "$(cat /proc/$c/comm 2>/dev/null)" = $want ] && pid=$c
        done
        [ -n "$pid" ] && break; sleep 0.05
      done
      [ -n "$pid" ] || die "$r did not start under strace"
      P[$r]=$pid; started+=("$pid")
    done
  fi
  py clients "$port" $n 30 || die "not every recorder connected to gpsd"
  local t0=$EPOCHREALTIME   # gpsd-replay starts writing 0.5 s after this
  sleep 0.6   # gpsd-replay gives the ?WATCH 0.5 s before it writes
  for r in "${!P[@]}"; do py snap "$tag.$r.s0" "${P[$r]}" >>"$facts"; done
  local poller=
  if [ "$poll" = 1 ]; then py poll "$d/stop" "$d/poll" "${P[@]}" & poller=$!; started+=($!); fi

  timeout=$(awk -v h="$(get "$tag.epochs")" -v r="$rate" 'BEGIN {print (r > 0 ? int(h * 3 / r) : 0) + 600}')
  for _ in $(seq $((timeout * 10))); do
    grep -q '^DONE' "$d/replay.out" && break
    kill -0 $rp 2>/dev/null || { cat "$d/replay.err" >&2; die "gpsd-replay stopped before the end of the ride"; }
    sleep 0.1
  done
  grep -q '^DONE' "$d/replay.out" || die "the replay did not finish within $timeout s"
  fact "$tag.replay_s" "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}')"
  py quiesce "${P[@]}"

  for r in "${!P[@]}"; do
    kill -0 "${P[$r]}" 2>/dev/null || { tail -5 "$d/$r.err" >&2; die "$r died during the $tag run"; }
    py snap "$tag.$r.s1" "${P[$r]}" >>"$facts"   # just before it is stopped
  done
  fact "$tag.load" "$(cut -d' ' -f1-3 /proc/loadavg)"   # was the machine otherwise idle?
  if [ "$poll" = 1 ]; then
    touch "$d/stop"; wait $poller || true; forget $poller
    for r in "${!P[@]}"; do
      read -r _ anon rss samples < <(awk -v p="${P[$r]}" '$1 == p' "$d/poll")
      fact "$tag.$r.max_anon_kb" "$anon"; fact "$tag.$r.max_rss_kb" "$rss"; fact "$tag.$r.samples" "$samples"
    done
  fi
  for r in "${!P[@]}"; do kill -TERM "${P[$r]}"; done
  for r in cairn gpxl $([ "$trace" = 1 ] && echo cairn60 cairnlive cairnbaro); do
    rc=0; wait "${P[$r]}" || rc=$?; forget "${P[$r]}"
    [ "$rc" = 0 ] || [ "$r.$rc" = gpxl.143 ] || { tail -5 "$d/$r.err" >&2; die "$r exited with $rc on SIGTERM"; }
  done
  for r in "${!S[@]}"; do
    rc=0; wait "${S[$r]}" || rc=$?; forget "${S[$r]}"; forget "${P[$r]}"   # strace exits with its tracee's status
    [ "$rc" = 0 ] || [ "$r.$rc" = gpxl_tr.143 ] || { tail -5 "$d/$r.err" >&2; die "$r exited with $rc on SIGTERM"; }
    py stracesum "$tag.$r.sys" "$d/$r.strace" >>"$facts"
  done
  kill -TERM $rp 2>/dev/null || true; wait $rp 2>/dev/null || true; forget $rp

  # What each recorder kept; none may be empty.
  for r in "${!P[@]}"; do
    local pts bytes
    if [[ $r = cairn* ]]; then
      "$cairn" list "$d/$r" --json >"$d/$r.json" || die "cairn list of the $tag $r log failed"
      pts=$(py points "$d/$r.json"); bytes=$(cat "$d/$r"/*.cairn | wc -c)
    else
      pts=$(grep -c '<trkpt' "$d/$r.gpx" || true); bytes=$(stat -c %s "$d/$r.gpx")
    fi
    [ "${pts:-0}" -gt 0 ] || die "$r wrote no points in the $tag run"
    fact "$tag.$r.points" "$pts"; fact "$tag.$r.bytes" "$bytes"
  done
}

# ---------------------------------------------------------------------------------------------
step="binary size"
say "$step"
fact bin.size "$(stat -c %s "$cairn")"
cp "$cairn" "$work/cairn.stripped" && strip "$work/cairn.stripped"
fact bin.stripped "$(stat -c %s "$work/cairn.stripped")"

# (1a) CPU, fast replay. Repeated: the figures are ~0.1 s, so the ratio is the median run's.
for i in $(seq $cpu_runs); do
  step="CPU: ${cpu_hours} h ride replayed fast, run $i of $cpu_runs"
  say "$step"
  session "fast$i" "$(ride $cpu_hours)" 0 0 0
done
fact fast.hours "$cpu_hours"; fact fast.runs "$cpu_runs"

# (1b, 3) The paced run: real time, so the sync cadence and the wakeups are the real ones. The
# rides have 3 sentences per epoch (GSA, RMC, GGA) and gpsd-replay paces sentences, so the rate
# is sentences/epochs per second: one fix a second. Nothing else is measured meanwhile.
# First cairn and gpxlogger alone: recorders that sync at the same moments share the device's
# flushes, and a cairn syncing beside three more cairns read 0.56-0.73x where one on its own
# read 0.80-0.88x (Tests/bench/paced-ab.py --apart). The target is judged on this session.
r=$(ride "$paced_hours")
rate=$(awk -v s="$(grep -c '^\$' "$r")" -v e="$(grep -c GPRMC "$r")" 'BEGIN {printf "%.6g", s / e}')
step="paced run, alone: ${paced_min} min ride at real time, cairn and gpxlogger only"
say "$step (takes ${paced_min} min)"
session alone "$r" "$rate" 0 0
step="paced run: ${paced_min} min ride at real time, untraced + strace'd pairs"
say "$step (takes ${paced_min} min)"
session paced "$r" "$rate" 1 0
fact paced.minutes "$paced_min"
"$cairn" verify "$work/paced/cairn" >"$work/verify.out" 2>&1 && fact paced.verify 0 || fact paced.verify $?
# cross-check for the frame walk: records as cairn verify counts them
fact paced.verify_records "$(grep -o '[0-9]* records' "$work/verify.out" | awk '{s += $1} END {print s + 0}')"
[ "$(get paced.verify)" = 0 ] && py logwalk paced.cairn.log "$work"/paced/cairn/*.cairn >>"$facts"

# (2) Memory of record: 1 h and 12 h, fast, RssAnon/VmRSS polled; mem_runs runs of each, and
# the largest of each figure is compared (the same ride varies by a few 4 KiB pages run to run:
# how many reports one read takes decides how much the allocator touches).
for h in "${mem_hours[@]}"; do
  for k in $(seq $mem_runs); do
    step="memory: ${h} h ride replayed fast, run $k of $mem_runs"
    say "$step"
    session "mem${h}r$k" "$(ride "$h")" 0 0 1
  done
  for r in cairn gpxl; do
    for key in s1.hwm_kb s1.anon_kb max_anon_kb max_rss_kb points samples; do
      fact "mem$h.$r.$key" "$(for k in $(seq $mem_runs); do get "mem${h}r$k.$r.$key"; done | sort -n | tail -1)"
    done
    fact "mem$h.$r.runs_anon_kb" "$(for k in $(seq $mem_runs); do get "mem${h}r$k.$r.s1.anon_kb"; done | paste -sd/)"
  done
  fact "mem$h.epochs" "$(get "mem${h}r1.epochs")"
  fact "mem$h.hours" "$h"
done
fact mem.hours "${mem_hours[*]}"; fact mem.runs "$mem_runs"

# (2) Memory of convert. GNU time's %M, not a python wrapper's RUSAGE_CHILDREN: the kernel
# carries the forking parent's peak RSS into the child at exec (a python parent would report
# ~13 MB for /bin/true); GNU time's own ~1 MB is the floor, measured here as time.floor_kb.
step="memory: cairn convert --to gpx"
say "$step"
/usr/bin/time -f %M -o "$work/floor" /bin/true; fact time.floor_kb "$(cat "$work/floor")"
declare -A conv_walls=() conv_kb=() conv_anon=() conv_each=()
for n in "${conv_points[@]}"; do
  "$cairn" list "$work/conv$n" --json >"$work/conv$n.json"
  fact "conv$n.points" "$(py points "$work/conv$n.json")"
  fact "conv$n.log_bytes" "$(cat "$work/conv$n"/*.cairn | wc -c)"
  conv_kb[$n]=0 conv_anon[$n]=0
done
# The sizes take turns, run by run, so that neither meets the binary's pages in the page cache
# in a state of its own (peak RSS counts the mapped pages of the program's text).
for _ in $(seq $conv_runs); do
  for n in "${conv_points[@]}"; do
    rm -f "$work/conv$n.gpx"
    read -r w kb anon samples < <(py convmem "$cairn" convert "$work/conv$n" --to gpx -o "$work/conv$n.gpx") \
      || die "cairn convert of the $n-point log failed"
    [ -n "${kb:-}" ] || die "cairn convert of the $n-point log failed"
    conv_walls[$n]+="$w "
    conv_each[$n]+="$kb/$anon "
    [ "$kb" -gt "${conv_kb[$n]}" ] && conv_kb[$n]=$kb
    [ "$anon" -gt "${conv_anon[$n]}" ] && conv_anon[$n]=$anon
  done
done
for n in "${conv_points[@]}"; do
  fact "conv$n.rss_kb" "${conv_kb[$n]}"
  fact "conv$n.anon_kb" "${conv_anon[$n]}"
  fact "conv$n.each" "${conv_each[$n]% }"
  fact "conv$n.wall_s" "$(printf '%s\n' ${conv_walls[$n]} | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')"
  fact "conv$n.gpx_bytes" "$(stat -c %s "$work/conv$n.gpx")"
done
fact conv.sizes "${conv_points[*]}"; fact conv.runs "$conv_runs"

# (4) Start-up to the first gpsd request, from just before Popen.
step="start-up time"
say "$step ($starts runs each)"
py startup $starts "$cairn" record --gpsd '127.0.0.1:{port}' --dir '{dir}' --baro none | sed 's/^/start.cairn./' >>"$facts" \
  || die "cairn start-up runs failed"
py startup $starts gpxlogger -f '{dir}/x.gpx' '127.0.0.1:{port}' | sed 's/^/start.gpxl./' >>"$facts" \
  || die "gpxlogger start-up runs failed"

# (5) The callgrind section, if another engineer's script is there.
step="callgrind.sh"
status=0
if [ "$quick" = 1 ]; then fact callgrind skipped
elif [ -f Tests/bench/callgrind.sh ]; then
  say "running Tests/bench/callgrind.sh"
  if bash Tests/bench/callgrind.sh >"$work/callgrind.md" 2>"$work/callgrind.err"; then fact callgrind ok
  else fact callgrind "failed:$?"; status=2; tail -20 "$work/callgrind.err" >&2; fi
else fact callgrind absent
fi

# ---------------------------------------------------------------------------------------------
step="report"
dirty=
# Dirty = anything changed or new outside this benchmark's own files.
changed=$(git status --porcelain --untracked-files=all 2>/dev/null | grep -v -E ' Tests/bench/peer-(bench\.sh|results.*\.md)$' || true)
[ -n "$changed" ] && dirty=-dirty
fact meta.commit "$(git rev-parse --short HEAD)$dirty"
fact meta.changed "$(echo "$changed" | awk 'NF {printf "%s%s", (n++ ? ", " : ""), $NF}' | cut -c1-400)"
fact meta.date "$(date -u '+%Y-%m-%d %H:%M UTC')"
fact meta.nproc "$(nproc)"; fact meta.arch "$(uname -m)"; fact meta.kernel "$(uname -r)"
fact meta.gpsd "$(gpsd -V 2>&1 | head -1 | sed 's/^gpsd: /gpsd /')"
fact meta.gpxlogger "$(gpxlogger -V 2>&1 | head -1 | sed 's/^gpxlogger: //')"
fact meta.cairn "$("$cairn" --version)"
fact meta.clk_tck "$(getconf CLK_TCK)"
fact meta.fs "$(findmnt -n -o FSTYPE -T "$work" 2>/dev/null || echo '?')"
fact meta.command "${SCRATCH:+SCRATCH=$SCRATCH }$cmdline"
fact meta.quick "$quick"
fact meta.elapsed_s "$(awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.0f", b - a}')"

cat >"$work/report.py" <<'PY'
import statistics

def main(path):
    F = {}
    for line in open(path):
        k, _, v = line.rstrip("\n").partition("=")
        F[k] = v
    def f(k): return float(F[k])
    def i(k): return int(F[k])
    def d(tag, r, k): return f("%s.%s.s1.%s" % (tag, r, k)) - f("%s.%s.s0.%s" % (tag, r, k))
    def cpu_ms(tag, r): return f("%s.%s.s1.cpu_ns" % (tag, r)) / 1e6
    def tick_ms(tag, r): return f("%s.%s.s1.ticks" % (tag, r)) * 1000 / f("meta.clk_tck")
    def pct(a, b): return (a - b) / b * 100 if b else float("nan")
    def ok(c): return "**meets**" if c else "**misses**"
    def n(x, dec=0): return "{:,.{}f}".format(x, dec)
    out = []
    w = out.append
    w("# cairn record vs gpxlogger: the peer benchmark")
    w("")
    if F["meta.quick"] == "1":
        w("**A --quick smoke run: short rides, not the figures.**")
        w("")
    w("Measured %s on %s cores (%s, Linux %s), %s, gpxlogger %s, cairn %s (static), commit `%s`, work files on %s. "
      "The whole run took %s s." % (F["meta.date"], F["meta.nproc"], F["meta.arch"], F["meta.kernel"], F["meta.gpsd"],
                                  F["meta.gpxlogger"], F["meta.cairn"], F["meta.commit"], F["meta.fs"], F["meta.elapsed_s"]))
    if F["meta.commit"].endswith("-dirty"):
        w("")
        w("Uncommitted changes measured: %s." % F["meta.changed"])
    w("")
    w("Reproduce: `%s`" % F["meta.command"])
    w("")
    w("Both recorders are fed by one private gpsd (Tests/tools/gpsd-replay.py, which starts writing only "
      "when every recorder watches) replaying rides made by Tests/tools/make-ride.py (seed 1: a 1 Hz bike ride, "
      "GSA+RMC+GGA per epoch). `cairn record --gpsd 127.0.0.1:PORT --dir D --baro none --clock fix` and "
      "`gpxlogger -f FILE 127.0.0.1:PORT`.")
    w("")

    # ---- 1. CPU
    w("## 1. CPU")
    w("")
    w("CPU = user+sys over the process's life, read just before it is stopped: the first field of "
      "/proc/PID/task/*/schedstat summed over threads (ns of run time), and utime+stime from /proc/PID/stat "
      "(clock ticks of 1/%s s) as a cross-check. Replay = from every recorder connected to gpsd-replay's DONE "
      "(it waits 0.5 s before writing). Load = /proc/loadavg at the end of the run (1, 5, 15 min): other work "
      "on the machine shows there." % F["meta.clk_tck"])
    w("")
    w("| run | ride | replay | load | recorder | points kept | CPU (schedstat) | CPU (stat ticks) | threads |")
    w("|---|---|---:|---|---|---:|---:|---:|---:|")
    runs = int(F["fast.runs"])
    tags = ["fast%d" % k for k in range(1, runs + 1)] + ["alone", "paced"]
    ratios = {}
    for tag in tags:
        ride = ("%s h, fast" % F["fast.hours"]) if tag.startswith("fast") else ("%s min, real time" % F["paced.minutes"])
        for r, name in (("cairn", "cairn record"), ("gpxl", "gpxlogger")):
            w("| %s | %s (%s epochs) | %s s | %s | %s | %s | %s ms | %s ms | %s |" % (
                tag, ride, n(i(tag + ".epochs")), F[tag + ".replay_s"], F[tag + ".load"], name, n(i("%s.%s.points" % (tag, r))),
                n(cpu_ms(tag, r), 1), n(tick_ms(tag, r)), F["%s.%s.s1.threads" % (tag, r)]))
        ratios[tag] = cpu_ms(tag, "cairn") / cpu_ms(tag, "gpxl")
    fast = [ratios["fast%d" % k] for k in range(1, runs + 1)]
    fr = statistics.median(fast)
    w("")
    w("| CPU ratio cairn / gpxlogger (schedstat) | ratio | target | |")
    w("|---|---:|---:|---|")
    w("| %s h ride, fast replay (median of %d runs: %s) | %.2f× | ≤ 0.5× | %s |" % (
        F["fast.hours"], runs, ", ".join("%.2f×" % x for x in fast), fr, ok(fr <= 0.5)))
    ar, pr = ratios["alone"], ratios["paced"]
    w("| %s-minute ride, real time: cairn and gpxlogger alone (run `alone`) | %.2f× | ≤ 0.5× | %s |" % (
        F["paced.minutes"], ar, ok(ar <= 0.5)))
    w("| the same ride beside four more cairn recorders (run `paced`, section 3's run) | %.2f× | | shared flushes |" % pr)
    w("")
    w("In run `paced` five cairn recorders sync at the same moments (their 5 s grids start together) and "
      "share the device's cache flushes, so each pays less than a recorder on its own; the target is judged "
      "on run `alone`. On a virtual disk a sync's cost is mostly the host's (virtio notifications, the flush), "
      "and it moves by about ±15 % from one 10-minute run to the next.")
    w("")
    win = f("paced.cairn.s1.t") - f("paced.cairn.s0.t")
    w("Wakeups in run `alone` (the first row) and in run `paced` (the others): voluntary + nonvoluntary "
      "context switches (/proc/PID/task/*/status, summed over threads) from the moment every recorder "
      "watched gpsd to just before the stop, a %.1f s window; each wakeup costs the board power." % win)
    w("")
    w("| recorder | voluntary | nonvoluntary | total | per minute | CPU in the window | CPU per minute | user / system (ticks, whole life) |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|")
    for tag, r, name in (("alone", "cairn", "cairn record alone (`--sync 5`, the default: reports read every 5 s)"),
                         ("alone", "gpxl", "gpxlogger alone"),
                         ("paced", "cairn", "cairn record (`--sync 5`), beside the next three"), ("paced", "cairn60", "cairn record `--sync 60`"),
                         ("paced", "cairnlive", "cairn record `--read-every 0` (each report as it comes)"),
                         ("paced", "cairnbaro", "cairn record with a barometer (fake sysfs bmp280, read with each batch)"), ("paced", "gpxl", "gpxlogger")):
        if "%s.%s.s1.t" % (tag, r) not in F: continue
        v, nv = d(tag, r, "vcsw"), d(tag, r, "nvcsw")
        win = f("%s.%s.s1.t" % (tag, r)) - f("%s.%s.s0.t" % (tag, r))
        c = d(tag, r, "cpu_ns") / 1e6
        w("| %s | %s | %s | %s | %.1f /min | %.1f ms | %.2f ms/min | %s / %s |" % (
            name, n(v), n(nv), n(v + nv), (v + nv) / (win / 60), c, c / (win / 60),
            F["%s.%s.s1.uticks" % (tag, r)], F["%s.%s.s1.sticks" % (tag, r)]))
    w("")
    w("A voluntary switch is any sleep: waiting in poll for gpsd, and waiting in fdatasync for the card. "
      "The `--sync 60` row is the same recorder on the same replay with a 60 s loss window instead of 5 s "
      "(reports still read every 5 s); the `--read-every 0` row reads each report as it arrives, as a live display needs; "
      "the barometer row is cairn as it is meant to run, with a pressure sensor (here a fake sysfs bmp280 with the kernel's "
      "file names, so without the I2C transfers of a real one): CPU ÷ gpxlogger's in this run %.2f×." % (
          d("paced", "cairnbaro", "cpu_ns") / d("paced", "gpxl", "cpu_ns")))
    w("")

    # ---- 2. Memory
    w("## 2. Memory")
    w("")
    w("`record`: VmHWM (peak RSS) and RssAnon at the end from /proc/PID/status just before the stop; "
      "\"max polled\" is the largest RssAnon / VmRSS seen sampling every 0.2 s during the run. Rides replayed fast, "
      "%s runs of each; every figure is the largest of the runs (RssAnon at the end of each run is listed)." % F["mem.runs"])
    w("")
    w("| recorder | ride | points kept | peak RSS (VmHWM) | RssAnon at end | max RssAnon polled | max VmRSS polled | samples | RssAnon at end, each run |")
    w("|---|---|---:|---:|---:|---:|---:|---:|---|")
    hours = F["mem.hours"].split()
    for r, name in (("cairn", "cairn record"), ("gpxl", "gpxlogger")):
        for h in hours:
            t = "mem" + h
            w("| %s | %s h (%s epochs) | %s | %s kB | %s kB | %s kB | %s kB | %s | %s kB |" % (
                name, h, n(i(t + ".epochs")), n(i("%s.%s.points" % (t, r))), n(i("%s.%s.s1.hwm_kb" % (t, r))),
                n(i("%s.%s.s1.anon_kb" % (t, r))), n(i("%s.%s.max_anon_kb" % (t, r))), n(i("%s.%s.max_rss_kb" % (t, r))),
                F["%s.%s.samples" % (t, r)], F["%s.%s.runs_anon_kb" % (t, r)].replace("/", " / ")))
    a, b = "mem" + hours[0], "mem" + hours[-1]
    def key(t, k): return i("%s.cairn.%s" % (t, k))
    hw = max(key(a, "s1.hwm_kb"), key(b, "s1.hwm_kb"))
    an = max(key(a, "s1.anon_kb"), key(b, "s1.anon_kb"), key(a, "max_anon_kb"), key(b, "max_anon_kb"))
    w("")
    w("| cairn record | %s h | %s h | difference | target | |" % (hours[0], hours[-1]))
    w("|---|---:|---:|---:|---|---|")
    for label, k in (("peak RSS (VmHWM)", "s1.hwm_kb"), ("RssAnon at end", "s1.anon_kb"), ("max RssAnon polled", "max_anon_kb")):
        p = pct(key(b, k), key(a, k))
        w("| %s | %s kB | %s kB | %+.1f%% | flat within 2%% | %s |" % (label, n(key(a, k)), n(key(b, k)), p, ok(abs(p) <= 2)))
    w("| largest peak RSS | | %s kB | | ≤ 6,144 kB (6 MB) | %s |" % (n(hw), ok(hw <= 6144)))
    w("| largest anonymous RSS | | %s kB | | ≤ 1,024 kB (1 MB) | %s |" % (n(an), ok(an <= 1024)))
    w("")
    w("For comparison, at the end of the %s-minute real-time run (section 3): cairn record VmHWM %s kB, RssAnon %s kB; "
      "gpxlogger VmHWM %s kB, RssAnon %s kB." % (F["paced.minutes"], n(i("paced.cairn.s1.hwm_kb")), n(i("paced.cairn.s1.anon_kb")),
                                                 n(i("paced.gpxl.s1.hwm_kb")), n(i("paced.gpxl.s1.anon_kb"))))
    w("")
    sizes = F["conv.sizes"].split()
    w("`cairn convert LOG --to gpx -o FILE`: peak RSS is GNU time's %%M and RssAnon is sampled every ms (max of %s runs, the sizes taking turns; wall: median). Peak RSS counts the program's text pages mapped from the page cache, RssAnon only its own memory. Not a python "
      "wrapper's RUSAGE_CHILDREN: the kernel carries the parent's peak RSS into the child at exec, so a python "
      "parent reads ~13 MB even for /bin/true; GNU time's own floor, measured on /bin/true, is %s kB. Logs written "
      "by the real LogWriter (BenchmarkLogTests, as Tests/bench/convert-bench.sh)." % (F["conv.runs"], F["time.floor_kb"]))
    w("")
    w("| log | log bytes | GPX bytes | wall | peak RSS | max RssAnon polled | each run (peak RSS / RssAnon, kB) |")
    w("|---|---:|---:|---:|---:|---:|---|")
    for s in sizes:
        w("| %s points | %s B | %s B | %s s | %s kB | %s kB | %s |" % (
            n(i("conv%s.points" % s)), n(i("conv%s.log_bytes" % s)), n(i("conv%s.gpx_bytes" % s)), F["conv%s.wall_s" % s],
            n(i("conv%s.rss_kb" % s)), n(i("conv%s.anon_kb" % s)), F.get("conv%s.each" % s, "").replace(" ", ", ")))
    w("")
    for label, k, cap in (("peak RSS", "rss_kb", 6144), ("anonymous RSS", "anon_kb", 1024)):
        p = pct(i("conv%s.%s" % (sizes[-1], k)), i("conv%s.%s" % (sizes[0], k)))
        w("convert %s, %s vs %s points: %+.1f%% (flat within 2%%: %s; ≤ %s kB: %s)." % (
            label, n(i("conv%s.points" % sizes[-1])), n(i("conv%s.points" % sizes[0])), p, ok(abs(p) <= 2), n(cap),
            ok(max(i("conv%s.%s" % (s, k)) for s in sizes) <= cap)))
        w("")
    w("RssAnon is sampled every millisecond during the run (a 10,000-point conversion lasts a few of them).")
    w("")

    # ---- 3. The card
    hrs = i("paced.epochs") / 3600.0
    w("## 3. The card (the %s-minute real-time run)" % F["paced.minutes"])
    w("")
    w("Per hour = the figure for the %s-minute ride (%s epochs at 1 Hz) × %.4g. /proc/PID/io is read just before the "
      "stop (cairn's shutdown sync comes after it; the file sizes include it). write_bytes counts pages dirtied on "
      "the file system (%s). System calls: the second, strace'd pair (`strace -f -c -e trace=write,writev,pwrite64,"
      "fdatasync,fsync`) on the same replay; its write counts include the ?WATCH and stderr lines." % (
        F["paced.minutes"], n(i("paced.epochs")), 1 / hrs, F["meta.fs"]))
    w("")
    w("gpxlogger writes every fix; cairn keeps the fixes its rules trust and thins them by distance, so bytes per "
      "kept point compare formats, and bytes per hour compare what reaches the card.")
    w("")
    w("| per recorder | cairn record | gpxlogger | cairn record `--sync 60` |")
    w("|---|---:|---:|---:|")
    cp, gp, sp = i("paced.cairn.points"), i("paced.gpxl.points"), i("paced.cairn60.points")
    cb, gb, sb = i("paced.cairn.bytes"), i("paced.gpxl.bytes"), i("paced.cairn60.bytes")
    w("| points kept | %s | %s | %s |" % (n(cp), n(gp), n(sp)))
    w("| file bytes | %s B | %s B | %s B |" % (n(cb), n(gb), n(sb)))
    w("| bytes per kept point | %.1f B | %.1f B | %.1f B |" % (cb / cp, gb / gp, sb / sp))
    w("| file bytes per hour | %s B | %s B | %s B |" % (n(cb / hrs), n(gb / hrs), n(sb / hrs)))
    w("| bytes dirtied for the disk per hour (write_bytes) | %s B | %s B | %s B |" % (
        n(f("paced.cairn.s1.write_bytes") / hrs), n(f("paced.gpxl.s1.write_bytes") / hrs), n(f("paced.cairn60.s1.write_bytes") / hrs)))
    if "paced.cairn.log.data" in F:
        w("| log bytes without padding frames and header extension | %s B (%.1f B/point, %s B/hour) | |" % (
            n(i("paced.cairn.log.data")), i("paced.cairn.log.data") / cp, n(i("paced.cairn.log.data") / hrs)))
        w("| of the log: padding frames (type 255), header extension | %s B in %s frames, %s B | |" % (
            n(i("paced.cairn.log.padding")), F["paced.cairn.log.padding_frames"], n(i("paced.cairn.log.header_ext"))))
    else:
        w("| log bytes without padding | not computed: cairn verify exit %s | |" % F["paced.verify"])
    for k, label, unit in (("wchar", "bytes passed to write calls per hour (wchar)", " B"),
                           ("syscw", "write system calls per hour (syscw)", ""),
                           ("write_bytes", "bytes dirtied for the disk per hour (write_bytes)", " B")):
        w("| %s | %s%s | %s%s |" % (label, n(f("paced.cairn.s1." + k) / hrs), unit, n(f("paced.gpxl.s1." + k) / hrs), unit))
    if "paced.cairn.log.data" in F:
        w("| frame walk check: frames − padding frames = records counted by `cairn verify` | %d − %s = %d; verify: %s; "
          "%s B left unwalked | |" % (
            i("paced.cairn.log.frames"), F["paced.cairn.log.padding_frames"],
            i("paced.cairn.log.frames") - i("paced.cairn.log.padding_frames"), F["paced.verify_records"],
            F["paced.cairn.log.unwalked"]))
    w("| points kept by the strace'd recorder | %s | %s |" % (n(i("paced.cairn_tr.points")), n(i("paced.gpxl_tr.points"))))
    for k in ("fdatasync", "fsync", "write", "writev", "pwrite64"):
        w("| %s calls per hour (strace; %s in the run) | %s | %s |" % (
            k, "%s / %s" % (F["paced.cairn_tr.sys." + k], F["paced.gpxl_tr.sys." + k]),
            n(i("paced.cairn_tr.sys." + k) / hrs), n(i("paced.gpxl_tr.sys." + k) / hrs)))
    w("")

    # ---- 4. Binary
    size, stripped = i("bin.size"), i("bin.stripped")
    w("## 4. The binary and start-up")
    w("")
    w("| static cairn | bytes | MiB | ≤ 8,000,000 B | ≤ 8 MiB (8,388,608 B) |")
    w("|---|---:|---:|---|---|")
    w("| unstripped | %s B | %.2f MiB | | |" % (n(size), size / 1048576))
    w("| stripped (`strip` of a copy) | %s B | %.2f MiB | %s | %s |" % (n(stripped), stripped / 1048576,
                                                                        ok(stripped <= 8000000), ok(stripped <= 8388608)))
    w("")
    w("Start-up to the first gpsd request: a python listener on a free port; time.perf_counter from just before "
      "Popen to the arrival of the first bytes (the ?WATCH) on the accepted socket; a fresh --dir each run.")
    w("")
    w("| command | runs | median | max | min |")
    w("|---|---:|---:|---:|---:|")
    for r, cmd in (("cairn", "cairn record --gpsd 127.0.0.1:PORT --dir TMP --baro none"), ("gpxl", "gpxlogger -f TMP/x.gpx 127.0.0.1:PORT")):
        w("| `%s` | %s | %s ms | %s ms | %s ms |" % (cmd, F["start.%s.runs" % r], F["start.%s.median_ms" % r],
                                                  F["start.%s.max_ms" % r], F["start.%s.min_ms" % r]))
    w("")

    # ---- 5. callgrind
    w("## 5. Callgrind")
    w("")
    c = F["callgrind"]
    if c == "ok":
        w(open(path.rsplit("/", 1)[0] + "/callgrind.md").read().rstrip())
    elif c == "absent":
        w("Skipped: Tests/bench/callgrind.sh does not exist in this checkout.")
    elif c == "skipped":
        w("Skipped in a --quick run.")
    else:
        w("**Tests/bench/callgrind.sh failed (exit %s)**; its output is not included." % c.split(":")[1])
    print("\n".join(out))
PY
python3 "$work/peer.py" report "$work/report.py" "$facts" >"$work/results.md" || die "rendering the report failed"
cp "$work/results.md" "$out"
cat "$out"
say "results in $out ($(get meta.elapsed_s) s)"
exit $status
