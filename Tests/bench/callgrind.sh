#!/usr/bin/env bash
# Instructions per fix on the record path (gpsd JSON line -> libgps -> fix rules -> log), counted
# by valgrind's callgrind on CairnBench. Instruction counts are deterministic, so a change to the
# path shows as an exact difference, unlike CPU time.
#
# A 2 h synthetic ride is replayed through a private gpsd and its JSON captured once; CairnBench
# then runs on the first N and the first 2N lines, and (Ir_2N - Ir_N) / (fixes_2N - fixes_N) is
# the cost of one more fix with start-up (loader, runtime, file reading) cancelled out.
# Usage: Tests/bench/callgrind.sh [N]      (default 3000 lines; the ride has ~7200)
# Results: Tests/bench/callgrind-results.md     Build directory: $SCRATCH (default .build)
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-3000}
case $n in '' | *[!0-9]* | 0) echo "usage: $0 [N]  (N: a positive number of lines)" >&2; exit 64 ;; esac
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
bash Tests/tools/install-deps.sh >/dev/null
# Only this benchmark needs valgrind, so install-deps.sh does not carry it.
if ! command -v valgrind >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind </dev/null >/dev/null
fi
scratch=${SCRATCH:-.build}
work=$(mktemp -d)
rp= gp=
trap 'kill $rp $gp 2>/dev/null || true; rm -rf "$work"' EXIT
die() { echo "callgrind.sh: $*" >&2; exit 1; }

if ! swift build -c release --scratch-path "$scratch" --product CairnBench >"$work/build.log" 2>&1; then
  cat "$work/build.log" >&2; die "build failed"
fi
# Without its DWARF: valgrind 3.19 cannot read the DWARF 5 that clang writes for the C shims
# (it gives up on the whole binary); function names come from the symbol table.
cp "$(swift build -c release --scratch-path "$scratch" --show-bin-path)/CairnBench" "$work/CairnBench"
strip --strip-debug "$work/CairnBench"
bench=$work/CairnBench

# The capture: gpsd's JSON for the ride, as `cairn record` would read it from the socket.
python3 Tests/tools/make-ride.py 2 "$work/ride.nmea"
python3 Tests/tools/gpsd-replay.py "$work/ride.nmea" --port 0 --wait-client 60 >"$work/replay.out" 2>"$work/replay.err" &
rp=$!
for _ in $(seq 300); do grep -q '^READY' "$work/replay.out" && break; sleep 0.1; done
port=$(awk '/^READY/ {print $2}' "$work/replay.out")
[ -n "$port" ] || { cat "$work/replay.err" >&2; die "gpsd-replay did not become ready"; }
gpspipe -w "127.0.0.1:$port" >"$work/raw.jsonl" 2>"$work/gpspipe.err" &
gp=$!
for _ in $(seq 6000); do grep -q '^DONE' "$work/replay.out" && break; sleep 0.1; done
grep -q '^DONE' "$work/replay.out" || { cat "$work/replay.err" >&2; die "the replay did not finish"; }
wait $rp || { cat "$work/replay.err" >&2; die "gpsd-replay failed"; }
rp=
# gpsd is gone now, so gpspipe ends by itself; killing it could lose its buffered tail.
for _ in $(seq 100); do kill -0 $gp 2>/dev/null || break; sleep 0.1; done
kill $gp 2>/dev/null || true
wait $gp 2>/dev/null || true
gp=
# The pty name and gpsd's start times are the only bytes that differ between replays; fixing
# them makes the capture byte-identical, so its checksum says "same input".
sed -E 's#"/dev/pts/[0-9]+"#"/dev/pts/0"#g; s#"activated":"[^"]*"#"activated":"2025-06-01T00:00:00.000Z"#g' \
  "$work/raw.jsonl" >"$work/capture.jsonl"
total=$(wc -l <"$work/capture.jsonl")
tpv=$(grep -c '^{"class":"TPV"' "$work/capture.jsonl" || true)
[ "$total" -ge $((2 * n)) ] || die "the capture has $total lines, fewer than 2N = $((2 * n))"
sha=$(sha256sum <"$work/capture.jsonl" | cut -c1-16)

valgrind=$(command -v valgrind)
# A fixed environment (env -i): the loader's work depends on it. Deterministic hashing keeps
# Swift's per-process hash seed out of the count, and no address randomisation (setarch -R) keeps
# libc's parsing of /proc/self/maps at start-up from varying by a few dozen instructions.
norand=(setarch "$(uname -m)" -R)
"${norand[@]}" true 2>/dev/null || norand=()
# Output directories of equal length: the path's length changes the count a little.
callgrind() {  # callgrind LINES TAG OUTDIR -> $work/cg.TAG (profile), $work/bench.TAG (CairnBench's line)
  env -i SWIFT_DETERMINISTIC_HASHING=1 "${norand[@]}" "$valgrind" --tool=callgrind --callgrind-out-file="$work/cg.$2" \
    "$bench" "$work/capture.jsonl" "$work/$3" "$1" >"$work/bench.$2" 2>"$work/valgrind.$2" \
    || { cat "$work/valgrind.$2" >&2; die "CairnBench failed under valgrind ($1 lines)"; }
}
callgrind "$n" n out1
callgrind $((2 * n)) 2n out2
callgrind "$n" n-again out3
ir() { awk '/^summary:/ {print $2}' "$work/cg.$1"; }
field() { tr ' ' '\n' <"$work/bench.$1" | awk -F= -v k="$2" '$1 == k {print $2}'; }
repeat="A second run of the N lines gave the same Ir exactly."
if [ "$(ir n)" != "$(ir n-again)" ]; then
  [ ${#norand[@]} -eq 0 ] || die "not deterministic: the N run gave $(ir n) then $(ir n-again) Ir"
  repeat="A second run of the N lines differed by $(($(ir n-again) - $(ir n))) Ir (setarch -R was not available: start-up varies with address randomisation)."
fi

for tag in n 2n; do
  for incl in yes no; do
    callgrind_annotate --inclusive=$incl --threshold=100 --auto=no "$work/cg.$tag" 2>/dev/null | swift demangle --simplified >"$work/annot.$tag.$incl"
  done
done

# Per-function tables from the 2N run, with each function's marginal cost per fix (2N - N).
# Callgrind splits a function by the source file of its blocks (inlined code, <compiler-generated>),
# so entries are merged by name: self costs add up, inclusive costs (nested) take the largest.
tables=$(python3 - "$work" "$(field n fixes)" "$(field 2n fixes)" <<'EOF'
import os, re, sys
work, fixes_n, fixes_2n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
row = re.compile(r'^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$')
def load(tag, incl):
    costs, objs = {}, {}
    lines = open(os.path.join(work, 'annot.%s.%s' % (tag, incl)), errors='replace').read().split('\n')
    start = next(i for i, l in enumerate(lines) if l.rstrip().endswith('file:function')) + 2
    for line in lines[start:]:
        m = row.match(line)
        if not m:
            break
        ir, rest = int(m.group(1).replace(',', '')), m.group(2)
        obj = re.search(r'\s\[(/[^\]]*)\]$', rest)
        if obj:
            rest = rest[:obj.start()]
        fn = rest.split(':', 1)[1] if ':' in rest else rest
        fn = re.sub(r"'\d+$", '', fn)  # callgrind's recursion-depth suffix
        costs[fn] = costs.get(fn, 0) + ir if incl == 'no' else max(costs.get(fn, 0), ir)
        if obj:
            objs[fn] = os.path.basename(obj.group(1))
    return costs, objs
def table(incl, title):
    big, objs = load('2n', incl)
    small, _ = load('n', incl)
    total = int(open(os.path.join(work, 'cg.2n')).read().split('\nsummary: ')[1].split()[0])
    if incl == 'yes':  # the loader's and libc's frames above main say nothing
        top = big.get('CairnBench_main', total)
        big = {fn: ir for fn, ir in big.items() if ir <= top}
    out = ['### Top functions by %s cost (2N run)' % title, '',
           '| Ir | % of run | Ir per fix (2N − N) | function | object |', '|---:|---:|---:|---|---|']
    for fn, ir in sorted(big.items(), key=lambda kv: -kv[1])[:12]:
        per = (ir - small.get(fn, 0)) / (fixes_2n - fixes_n)
        name = fn if len(fn) <= 90 else fn[:87] + '...'
        out.append('| %s | %.1f %% | %s | `%s` | %s |' % (format(ir, ','), 100 * ir / total,
                   format(round(per), ','), name.replace('|', '\\|'), objs.get(fn, '')))
    return '\n'.join(out)
def stages():
    # Inclusive per-fix cost of the path's stages; a stage whose function is gone is left out.
    big, _ = load('2n', 'yes')
    small, _ = load('n', 'yes')
    def per(name):
        names = [fn for fn in big if fn.removeprefix('specialized ') == name]
        if not names:
            return None
        return max((big[fn] - small.get(fn, 0)) / (fixes_2n - fixes_n) for fn in names)
    whole = per('CairnBench_main')
    out = ['### Where one fix goes (inclusive, marginal)', '',
           '| stage | function | Ir per fix | share |', '|---|---|---:|---:|']
    for stage, name in [('one line, all of it', 'CairnBench_main'),
                        ('decode', 'static GpsdSource.decode(line:state:)'),
                        ('— strict-JSON gate', 'static GpsdLine.isStrictJSONObject(_:)'),
                        ('— libgps', 'gps_unpack'),
                        ('rules, and the log appends they emit', 'TripRecorder.report(_:wallClockMs:emit:)'),
                        ('— log appends', 'TripLog.apply(_:monoMs:)'),
                        ('log syncs (every 5 s)', 'TripLog.tick(monoMs:)')]:
        v = per(name)
        if v is not None:
            out.append('| %s | `%s` | %s | %.1f %% |' % (stage, name, format(round(v), ','), 100 * v / whole))
    return '\n'.join(out)
print(stages())
print()
print(table('yes', 'inclusive'))
print()
print(table('no', 'self'))
EOF
)

ir_n=$(ir n) ir_2n=$(ir 2n)
fixes_n=$(field n fixes) fixes_2n=$(field 2n fixes)
kept_n=$(field n kept) kept_2n=$(field 2n kept)
[ "$fixes_2n" -gt "$fixes_n" ] || die "no fixes between line $n and line $((2 * n))"
div() { awk -v a="$1" -v b="$2" 'BEGIN {if (b == 0) print "-"; else printf "%.0f", a / b}'; }
per_fix=$(div $((ir_2n - ir_n)) $((fixes_2n - fixes_n)))
per_kept=$(div $((ir_2n - ir_n)) $((kept_2n - kept_n)))
startup=$(awk -v a="$ir_n" -v f="$fixes_n" -v p="$per_fix" 'BEGIN {printf "%.0f", a - f * p}')
rev=$(git rev-parse --short HEAD 2>/dev/null || echo "unknown")
if [ -n "$(git status --porcelain -- Sources Package.swift 2>/dev/null)" ]; then rev="$rev with uncommitted changes in Sources/"; fi
fmt() { echo "$1" | sed -E ':a; s/^([0-9]+)([0-9]{3})/\1,\2/; ta'; }
row() { printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$@"; }
{
  echo "## Instructions per fix (callgrind)"
  echo
  echo "$(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m); $(gpsd -V 2>&1 | head -n1); $("$valgrind" --version); $(swift --version 2>&1 | head -n1); commit $rev."
  echo
  echo "Input: a 2 h synthetic ride (\`make-ride.py 2\`, 1 Hz) replayed through a private gpsd and captured with"
  echo "\`gpspipe -w\`: $total lines, $tpv TPV (sha256 $sha…, pty name and start times normalised). CairnBench"
  echo "runs each line as \`cairn record --clock fix --activity ride\` does (strict-JSON gate, libgps \`gps_unpack\`,"
  echo "\`TripRecorder\` with \`FixRules\`, \`TripLog\` with 512-byte padding, a sync every 5 s of ride time),"
  echo "then closes the trip. Ir counts user-space instructions only: the kernel's write and fdatasync are not in it."
  echo
  echo "| run | lines | fixes decoded | points kept | bytes written | syncs | Ir |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  row "N" "$(field n lines)" "$fixes_n" "$kept_n" "$(field n bytes)" "$(field n syncs)" "$(fmt "$ir_n")"
  row "2N" "$(field 2n lines)" "$fixes_2n" "$kept_2n" "$(field 2n bytes)" "$(field 2n syncs)" "$(fmt "$ir_2n")"
  echo
  echo "**$(fmt "$per_fix") instructions per fix** (marginal: (Ir_2N − Ir_N) / (fixes_2N − fixes_N) ="
  echo "$(fmt $((ir_2n - ir_n))) / $((fixes_2n - fixes_n))); **$(fmt "$per_kept") per kept point** (the same instructions over"
  echo "the $((kept_2n - kept_n)) points kept between N and 2N). Start-up and the stop path ≈ $(fmt "$startup") Ir. $repeat"
  echo
  echo "$tables"
  echo
  if grep -qE ':0x[0-9a-f]+ \[[^]]*libgps' "$work/annot.2n.no"; then
    echo "\`0x…\` entries in libgps are its static functions (Debian ships the library without their symbols)."
    echo
  fi
  echo "Reproduce: \`bash Tests/bench/callgrind.sh $n\` (as root on Debian 12; \`SCRATCH=DIR\` picks the build directory)."
} | tee Tests/bench/callgrind-results.md
