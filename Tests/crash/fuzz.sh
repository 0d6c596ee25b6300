#!/usr/bin/env bash
# libFuzzer (with AddressSanitizer) on the log reader and the TPV decoding, for N minutes.
#   bash Tests/crash/fuzz.sh [MINUTES]        (default 10)
# Seeds: Tests/crash/fuzz-corpus (kept small, committed); the run's corpus grows in
# $FUZZ_WORK (default /tmp/cairn-fuzz). Prints libFuzzer's final stats; exit 1 on a crash
# (the input is left as crash-<sha1> in $FUZZ_WORK; rerun it with `FuzzCairn FILE`).
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
minutes=${1:-10}
scratch=${FUZZ_SCRATCH:-/tmp/build-fuzz}
work=${FUZZ_WORK:-/tmp/cairn-fuzz}
# Coverage flags explicitly: without them this toolchain instrumented almost nothing (3 counters).
swift build --scratch-path "$scratch" --sanitize=fuzzer --sanitize=address -Xswiftc -DFUZZING \
  -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp --product FuzzCairn 2>&1 \
  | grep -v -E "Cannot export local symbol|^\[" || true
bin="$scratch/debug/FuzzCairn"
[ -x "$bin" ] || { echo "fuzz: $bin was not built" >&2; exit 1; }
mkdir -p "$work/corpus"
cd "$work"
set +e
SWIFT_BACKTRACE=enable=no "$bin" -max_total_time=$((minutes * 60)) -print_final_stats=1 -max_len=70000 \
  -timeout=20 -rss_limit_mb=2048 "$work/corpus" "$OLDPWD/Tests/crash/fuzz-corpus" 2>&1 | tee "$work/fuzz.log" | grep -v -E "^#[0-9]+.*(NEW|REDUCE|pulse)" 
status=${PIPESTATUS[0]}
set -e
crashes=$(find "$work" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
grep -E "^stat::|DONE" "$work/fuzz.log" | tail -6
echo "fuzz: exit $status, $crashes crash/leak/timeout/oom inputs in $work"
[ "$status" = 0 ] && [ "$crashes" = 0 ]
