#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine (as root): installs what is missing, builds
# the static release binary and checks it is static, then runs `swift test` (unit tests and the
# end-to-end tests, which drive that binary against a private gpsd), the demo and the delivery
# campaign. Then the board's build: deploy/build-aarch64.sh (Debian 13's Swift 6.0.3: aarch64
# and x86_64, warning-free, and the .debs); the aarch64 binary's read side byte for byte against
# the x86_64 one's and delivery's end-to-end class under qemu-user; the packages in chroots; then
# the board in a box (deploy/board/): the packages on booted Debian 12 guests under qemu, amd64
# with real power cuts, arm64 (the board's own CPU) the ride.
#
# Each stage is timed against its budget; the table is printed at the end and kept in
# .build/ci-stages.md (and appended to $CAIRN_CACHE/ci-history.tsv). What takes minutes to make
# and does not change with cairn's sources is cached outside the checkout, in $CAIRN_CACHE
# (default /var/cache/cairn), each keyed by its inputs (.ci/README.md): the Debian 13
# build root, the package-test roots, the board's guest roots.
#
# `--fast`: the edit loop: the unit tests without the slow tier (classes named *CampaignTests)
# and the end-to-end tier (*EndToEndTests); no static build, no aarch64, no format check.
set -euo pipefail
cd "$(dirname "$0")/.."

# The test tiers, by class name (swift test --skip and --filter take regular expressions).
slow_tier='CampaignTests'
e2e_tier='EndToEndTests'
# Classes that time the recorder to the second (a stop during a sync): run alone after the
# parallel pass, so that three other tests' load never stands in for the recorder's own delay.
realtime_tier='StopLatencyEndToEndTests'
# The end-to-end classes run again against the aarch64 binary under qemu-user: what neither the
# booted arm64 guest (recording, from the package's unit) nor Tests/tools/cross-arch.sh (every
# read-side command, byte for byte) runs on aarch64: delivery's processes (.ci/README.md).
arch_tier='DeliverEndToEndTests'

if [ "${1:-}" = --fast ]; then
    if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
    # A fresh clone lacks the GPX schema (not committed) and maybe the readers the export tests
    # call: install-deps.sh fetches what is missing, once.
    [ -f Tests/Fixtures/schemas/gpx.xsd ] || bash Tests/tools/install-deps.sh
    exec swift test --disable-swift-testing --skip "$e2e_tier" --skip "$slow_tier"
fi
[ $# -eq 0 ] || { echo "usage: bash Tests/run-tests.sh [--fast]" >&2; exit 64; }

export CAIRN_CACHE=${CAIRN_CACHE:-/var/cache/cairn}
# The end-to-end tests' folders off the card's file system (Harness.offCardDir) live in RAM:
# an earlier run's go (a run going on beside this one keeps its own, younger than two hours).
find /dev/shm -maxdepth 1 -name 'cairn-e2e-*' -mmin +120 -exec rm -rf {} + 2>/dev/null || true
mkdir -p .build "$CAIRN_CACHE"
run_t0=$SECONDS

# Every stage: its name, seconds, budget (seconds, on a 2-core machine with warm caches) and
# exit status, one line each in .build/ci-stages.tsv (stages in the background write there too).
# A stage over its budget is named at the end; it does not fail the run.
stages=.build/ci-stages.tsv
: >"$stages"
# How busy the machine's cores were over a stage (from /proc/stat, every process, the background
# root-making included): a stage that leaves a core idle is one that could share the machine.
cpu_ticks() { awk '$1 == "cpu" {t = 0; for (i = 2; i <= NF; i++) t += $i; print $5 + $6, t}' /proc/stat; }
stage() {  # NAME BUDGET COMMAND [ARGS...]: runs it, times it; the run goes on whatever it returns
    local name=$1 budget=$2 t0=$SECONDS rc=0 idle0 all0 idle1 all1
    shift 2
    echo "== $name"
    read -r idle0 all0 < <(cpu_ticks)
    "$@" || rc=$?
    read -r idle1 all1 < <(cpu_ticks)
    local busy=$(( all1 > all0 ? 100 - 100 * (idle1 - idle0) / (all1 - all0) : 0 ))
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" $((SECONDS - t0)) "$budget" "$rc" "$busy" >>"$stages"
    echo "== $name: $((SECONDS - t0)) s (budget $budget s; cores $busy % busy)$([ "$rc" = 0 ] || echo "; FAILED, exit $rc")"
    return 0
}
not_run() {  # NAME BUDGET WHY: a stage that could not run counts as failed, with the reason
    echo "== $1: not run: $3" >&2
    printf '%s\t0\t%s\tnot run: %s\t0\n' "$1" "$2" "$3" >>"$stages"
}
stage_ok() {  # NAME: whether that stage ran and passed
    awk -F'\t' -v n="$1" '$1 == n && $4 == "0" {ok = 1} END {exit !ok}' "$stages"
}

stage "install what is missing" 120 bash Tests/tools/install-deps.sh
stage_ok "install what is missing" || { echo "run-tests: install-deps.sh failed" >&2; exit 1; }
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi

# The board in a box's guest roots need no Swift: made (or found in the cache) in the background
# while the rest builds and runs; the board's stages wait for them.
# .build/make-root.status says how they ended: "ok", or what failed.
roots_t0=$SECONDS
rm -f .build/make-root.status
(
    why=ok
    for a in amd64 arm64; do
        bash deploy/board/make-root.sh "$a" "$CAIRN_CACHE/board/$a" >".build/make-root-$a.log" 2>&1 \
            || { why="make-root.sh $a failed: .build/make-root-$a.log"; break; }
    done
    echo "$why" >.build/make-root.status.new && mv .build/make-root.status.new .build/make-root.status
) >/dev/null 2>&1 &

# The formatter ships with the toolchain; .swift-format is its configuration. `swift format -i -r
# Sources Tests Package.swift` fixes what this reports.
stage "swift format lint" 60 swift format lint --strict -r Sources Tests Package.swift
# Every relative link and path named in the Markdown, the units and the scripts exists.
stage "links" 30 python3 Tests/tools/check-links.py

stage "static release build (x86_64)" 300 bash Tests/tools/build-static.sh
export CAIRN_BIN="$PWD/.build/release/cairn"
# The unit tier (and the slow tier) four test processes at once on the 2 cores: it is CPU-bound
# (about 90 % of both cores). Then the end-to-end tier eight at once: it mostly waits on gpsd
# replays, rclone and real-time bounds (233 tests: 4:00 with four at once, 2:11 with eight, the
# cores about 30 % busy either way, 2026-12-07), and run apart from the unit tier no CPU-bound
# test stands in for a recorder's delay. Every test runs in a process of its own, with its own
# folders and free ports, as it always has. The results, one line per test with its time, land
# in .build/swift-test-*.xml.
swift_test_x86() {
    rm -f .build/swift-test-unit.xml .build/swift-test-e2e.xml .build/swift-test-realtime.xml
    local rc=0
    swift test --disable-swift-testing --parallel --num-workers 4 --skip "$e2e_tier" \
        --xunit-output .build/swift-test-unit.xml 2>&1 | tee .build/swift-test.log || rc=1
    swift test --disable-swift-testing --skip-build --parallel --num-workers 8 --filter "$e2e_tier" --skip "$realtime_tier" \
        --xunit-output .build/swift-test-e2e.xml 2>&1 | tee -a .build/swift-test.log || rc=1
    swift test --disable-swift-testing --skip-build --parallel --num-workers 1 --filter "$realtime_tier" \
        --xunit-output .build/swift-test-realtime.xml 2>&1 | tee -a .build/swift-test.log || rc=1
    return $rc
}
if stage_ok "static release build (x86_64)"; then
    stage "swift test (x86_64: unit, end-to-end)" 1500 swift_test_x86
    # Every system call through CairnSystem: the debug objects swift test built, read by nm.
    stage "system calls" 30 python3 Tests/tools/check-syscalls.py
    # The README's first command, as a user runs it (the static binary is built already).
    demo() { bash Tests/demo.sh >.build/demo.log 2>&1; local rc=$?; tail -4 .build/demo.log; return $rc; }
    stage "the demo" 180 demo
    # cairn deliver against rclone's sftp and webdav servers and moto's S3 on loopback, with faults
    # (Tests/deliver/README.md).
    campaign() {
            python3 Tests/deliver/campaign.py --bin "$CAIRN_BIN" --json .build/deliver-campaign.json 2>&1 \
            | tee .build/deliver-campaign.log | grep -E "^(FAIL|deliver campaign)"
    }
    stage "deliver campaign" 480 campaign
else
    for s in "swift test (x86_64: unit, end-to-end)" "system calls" "the demo" "deliver campaign"; do
        not_run "$s" 0 "the static build failed"
    done
fi

# No skipping: when the Debian archive cannot be reached, this fails (build-aarch64 says why).
stage "aarch64 and packages build (Swift 6.0.3)" 420 bash deploy/build-aarch64.sh

# Then the aarch64 checks and the package tests, then the board. They run one after the other:
# each has bounds in real time (qemu-user's delivery tests, systemd in a namespace, the guests'
# boots), and on a loaded 2-core machine delivery's tests missed theirs (.ci/README.md).
# The board in a box (deploy/board/run.sh, deploy/README.md): our packages on booted Debian 12
# guests under qemu (TCG): amd64 rides the recording through a serial gpsd and a BMP280 on
# i2c-stub, then takes 2 real power cuts on ext4 and 2 on vfat, and shows the status LED on a
# uinput keyboard's caps lock; arm64 (cortex-a53 x4, 512 MB) rides. It never skips: without the roots or the .debs it fails with the reason.
board_line() {
    local wait_t0=$SECONDS
    while [ ! -f .build/make-root.status ]; do sleep 2; done
    if [ "$(cat .build/make-root.status)" != ok ]; then
        not_run "board: amd64 ride and power cuts" 720 "the guest roots: $(cat .build/make-root.status)"
        not_run "board: arm64 ride" 420 "the guest roots: $(cat .build/make-root.status)"
        not_run "board: amd64 devices (LED, home delivery, button)" 360 "the guest roots: $(cat .build/make-root.status)"
        return
    fi
    echo "board: guest roots ready; waited $((SECONDS - wait_t0)) s for them"
    if ! stage_ok "aarch64 and packages build (Swift 6.0.3)"; then
        not_run "board: amd64 ride and power cuts" 720 "no packages: deploy/build-aarch64.sh failed"
        not_run "board: arm64 ride" 420 "no packages: deploy/build-aarch64.sh failed"
        not_run "board: amd64 devices (LED, home delivery, button)" 360 "no packages: deploy/build-aarch64.sh failed"
        return
    fi
    stage "board: amd64 ride and power cuts" 720 bash deploy/board/run.sh --arch amd64
    stage "board: arm64 ride" 420 bash deploy/board/run.sh --arch arm64 --ride
    stage "board: amd64 devices (LED, home delivery, button)" 360 bash deploy/board/run.sh --arch amd64 --led \
        --out .build/board/run-amd64-led --roots-from .build/board/run-amd64
}
package_line() {
    if ! stage_ok "aarch64 and packages build (Swift 6.0.3)"; then
        not_run "aarch64 under qemu-user (cross-arch, deliver)" 300 "deploy/build-aarch64.sh failed"
        not_run "the amd64 package (test-deb, test-systemd)" 240 "deploy/build-aarch64.sh failed"
        return
    fi
    # The aarch64 binary's read side against the x86_64 one's, byte for byte, over the log
    # fixtures and the demo's ride; then the end-to-end classes of the arch tier under qemu-user.
    aarch64_e2e() {
        bash Tests/tools/aarch64-binfmt.sh .build/aarch64/cairn \
            && bash Tests/tools/cross-arch.sh --a .build/release/cairn --b .build/aarch64/cairn \
            && CAIRN_BIN="$PWD/.build/aarch64/cairn" swift test --disable-swift-testing --skip-build \
                --filter "$arch_tier" 2>&1 | tee .build/swift-test-aarch64.log
    }
    stage "aarch64 under qemu-user (cross-arch, deliver)" 300 aarch64_e2e
    # The amd64 package in Debian 13 and 12 chroots: lintian, install, upgrade, remove, purge;
    # then under systemd as PID 1 (Debian 12): started, stopped, removed.
    packages() {
        {
            bash deploy/debian/test-deb.sh amd64 \
                && CAIRN_TEST_SUITE=bookworm bash deploy/debian/test-deb.sh amd64 \
                && bash deploy/debian/test-systemd.sh
        } 2>&1 | grep -v -E "^Created symlink|^debconf|posix_openpt"
    }
    stage "the amd64 package (test-deb, test-systemd)" 240 packages
}
package_line
board_line

echo "== summary"
# The closing line of the test runner (N tests, M failures), and the plain form of it.
summary() {  # log, label
    grep -E "error:|: error|failed \(" "$1" | head -40 || true
    local last
    last=$(grep -E "Executed [0-9]+ tests" "$1" | tail -1 || true)
    echo "$last"
    # "Executed 67 tests, with 1 test skipped and 0 failures": failures are the number before
    # "failure(s)", skips the number before "test(s) skipped".
    echo "$last" | awk -v label="$2" '{for (i = 1; i <= NF; i++) {if ($i == "Executed") n = $(i+1);
        if ($i ~ /^failures?$/) f = $(i-1); if ($i == "skipped") s = $(i-2)}}
      END {if (n != "") {printf "%s: %d passed, %d failed", label, n - f - s, f; if (s > 0) printf ", %d skipped", s; printf "\n"}}'
    [ -n "$last" ]
}
ran=no
[ -f .build/swift-test-aarch64.log ] && summary .build/swift-test-aarch64.log "aarch64 (qemu-user)" >/dev/null && ran=yes
[ -f .build/swift-test-aarch64.log ] && summary .build/swift-test-aarch64.log "aarch64 (qemu-user)"
# The x86_64 suite ran in parallel: its counts come from its xunit file.
xunit_summary() {  # files (comma-separated), label
    python3 - "$1" "$2" <<'PY'
import sys, xml.etree.ElementTree as ET
cases = [c for f in sys.argv[1].split(",") for c in ET.parse(f).getroot().iter("testcase")]
bad = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
skipped = [c for c in cases if c.find("skipped") is not None]
for c in bad:
    print("failed: %s.%s" % (c.get("classname"), c.get("name")))
line = "%s: %d passed, %d failed" % (sys.argv[2], len(cases) - len(bad) - len(skipped), len(bad))
print(line + (", %d skipped" % len(skipped) if skipped else ""))
sys.exit(0 if cases else 1)
PY
}
[ -f .build/swift-test-unit.xml ] && [ -f .build/swift-test-e2e.xml ] && [ -f .build/swift-test-realtime.xml ] \
    && xunit_summary .build/swift-test-unit.xml,.build/swift-test-e2e.xml,.build/swift-test-realtime.xml tests && ran=yes

# The stage table: printed, kept in .build/ci-stages.md, appended to the cache's history.
total=$((SECONDS - run_t0))
failed=() over=()
while IFS=$'\t' read -r name secs budget rc _busy; do
    [ "$rc" = 0 ] || failed+=("$name ($rc)")
    [ "$secs" -le "$budget" ] || over+=("$name ($secs s > $budget s)")
done <"$stages"
[ "$total" -le 2700 ] || over+=("the whole run ($total s > 2700 s)")
{
    echo "| stage | seconds | budget | cores busy | result |"
    echo "|---|---:|---:|---:|---|"
    awk -F'\t' '{r = ($4 == "0") ? "ok" : "FAILED (" $4 ")"; if ($2 + 0 > $3 + 0) r = r ", over budget";
                  printf "| %s | %d | %d | %d %% | %s |\n", $1, $2, $3, $5, r}' "$stages"
    echo "| **the whole run** | **$total** | 2700 | | $([ "$total" -le 2700 ] && echo ok || echo "over budget") |"
} | tee .build/ci-stages.md
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
awk -F'\t' -v at="$(date -u +%FT%TZ)" -v c="$commit" -v OFS='\t' '{print at, c, $0}' "$stages" >>"$CAIRN_CACHE/ci-history.tsv"
for o in "${over[@]}"; do echo "run-tests: over its budget: $o" >&2; done

if [ "$ran" = no ]; then echo "run-tests: no tests ran" >&2; exit 1; fi
if [ ${#failed[@]} -gt 0 ]; then
    for f in "${failed[@]}"; do echo "run-tests: FAILED: $f" >&2; done
    exit 1
fi
echo "run-tests: every stage passed in $total s"
