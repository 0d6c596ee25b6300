#!/usr/bin/env bash
# The full crash-test campaign (issue 4; Tests/crash/RESULTS.md), one command:
#   bash Tests/crash/run-campaign.sh [--quick]
# A1-A5 and C in-process at the protocol's trial counts (release build with testability),
# B kill -9 x 1000 of the real recorder, D1 the strace audit, the edge-fault end-to-end tests,
# and FUZZ_MINUTES (default 10) of libFuzzer. Figures go to $OUT (default /tmp/cairn-campaign);
# copy them into Tests/crash/RESULTS.md. Exit 1 if any must-be-0 figure is not 0.
set -uo pipefail
cd "$(dirname "$0")/../.."
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
out=${OUT:-/tmp/cairn-campaign}
scratch=${SCRATCH:-/tmp/build-campaign}
quick=no; [ "${1:-}" = --quick ] && quick=yes
mkdir -p "$out"
fail=0
t0=$(date +%s)

echo "== build (release, static binary for B and D1; release test build for A and C)"
swift build -c release --product cairn --static-swift-stdlib -Xswiftc -static-executable --scratch-path "$scratch-static" 2>&1 \
  | grep -E "error|Compiling|Build" | tail -2
bin="$scratch-static/release/cairn"
[ -x "$bin" ] || { echo "campaign: no binary" >&2; exit 1; }

echo "== A1-A5, C: in-process (CAIRN_CRASH_FULL=1)"
if [ "$quick" = yes ]; then full=0; else full=1; fi
CAIRN_CRASH_FULL=$full swift test -c release -Xswiftc -enable-testing --scratch-path "$scratch" \
  --filter 'CrashCampaignTests|PowerLossModelCampaignTests|TripLogFaultTests' 2>&1 | tee "$out/inprocess.log" | grep -E "FIGURE|error:|Executed .* tests" 
grep -q "with 0 failures" "$out/inprocess.log" || fail=1

echo "== B: kill -9"
trials=1000; [ "$quick" = yes ] && trials=40
python3 Tests/crash/kill9.py --bin "$bin" --trials "$trials" --jobs 2 --json "$out/kill9.json" | tail -25 || fail=1

echo "== D1: strace audit"
python3 Tests/crash/audit.py --bin "$bin" --seconds $([ "$quick" = yes ] && echo 15 || echo 65) --json "$out/audit.json" || fail=1

echo "== edge faults (end to end)"
CAIRN_BIN="$bin" swift test --scratch-path "$scratch-debug" --filter 'FaultEndToEndTests|DurabilityEndToEndTests' 2>&1 \
  | tee "$out/faults.log" | grep -E "error:|passed \(|failed \(|skipped" || true
grep -q "Executed .* with 0 failures" "$out/faults.log" || fail=1

echo "== fuzz"
FUZZ_WORK="$out/fuzz" bash Tests/crash/fuzz.sh "${FUZZ_MINUTES:-$([ "$quick" = yes ] && echo 1 || echo 10)}" | tail -12 || fail=1

echo "campaign: $(( $(date +%s) - t0 )) s, figures in $out; $([ $fail = 0 ] && echo 'all must-be-0 figures are 0' || echo 'FAILURES')"
exit $fail
