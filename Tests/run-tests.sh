#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine (as root): installs what is missing, builds
# the static release binary and checks it is static, then runs `swift test` (unit tests and the
# end-to-end tests, which drive that binary against a private gpsd). Then the board's build:
# deploy/build-aarch64.sh (Debian 13's Swift 6.0.3: aarch64 and x86_64, warning-free, and the
# .debs), and the end-to-end tests again against the aarch64 binary under qemu-user; then the
# packages on booted Debian 12 guests under qemu (deploy/board/): amd64 with real power cuts,
# arm64 (the board's own CPU) the ride. The guests' roots are built in the background meanwhile.
#
# `--fast`: the edit loop. The unit tests without the crash campaigns and the end-to-end
# suite (no static build, no aarch64, no format check): under a minute after a build.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = --fast ]; then
    if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
    # A fresh clone lacks the GPX schema (not committed) and maybe the readers the export tests
    # call: install-deps.sh fetches what is missing, once.
    [ -f Tests/Fixtures/schemas/gpx.xsd ] || bash Tests/tools/install-deps.sh
    exec swift test --disable-swift-testing --skip EndToEndTests --skip CrashCampaignTests --skip PowerLossModelTests
fi
[ $# -eq 0 ] || { echo "usage: bash Tests/run-tests.sh [--fast]" >&2; exit 64; }

bash Tests/tools/install-deps.sh
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi

# The board in a box's guest roots need no Swift: debootstrap them (cached in .build/board) while
# the rest builds and runs; the board's stage waits for them.
mkdir -p .build/board
board_roots_t0=$SECONDS
(
    for a in amd64 arm64; do
        bash deploy/board/make-root.sh "$a" ".build/board/$a" >".build/board/make-root-$a.log" 2>&1 \
            || { echo "make-root.sh $a failed: .build/board/make-root-$a.log"; exit 1; }
    done
    echo "$((SECONDS - board_roots_t0))" >.build/board/make-root.seconds
) >.build/board/make-root.status 2>&1 &
board_roots_pid=$!

# The formatter ships with the toolchain; .swift-format is its configuration. `swift format -i -r
# Sources Tests Package.swift` fixes what this reports.
echo "== swift format lint"
format_status=0
swift format lint --strict -r Sources Tests Package.swift || format_status=$?

echo "== static release build"
bash Tests/tools/build-static.sh

echo "== swift test"
export CAIRN_BIN="$PWD/.build/release/cairn"
set +e
swift test --disable-swift-testing 2>&1 | tee .build/swift-test.log
status=${PIPESTATUS[0]}
set -e

# The README's first command, as a user runs it (the static binary is built already).
echo "== the demo (bash Tests/demo.sh)"
demo_status=0
bash Tests/demo.sh > .build/demo.log 2>&1 || demo_status=$?
tail -4 .build/demo.log

# cairn deliver against rclone's sftp and webdav servers and moto's S3 on loopback, with faults
# (Tests/deliver/README.md).
echo "== deliver against loopback servers (Tests/deliver/campaign.py)"
set +e
python3 Tests/deliver/campaign.py --bin "$CAIRN_BIN" --json .build/deliver-campaign.json 2>&1 \
    | tee .build/deliver-campaign.log | grep -E "^(FAIL|deliver campaign)"
deliver_status=${PIPESTATUS[0]}
set -e

# No skipping: when the Debian archive cannot be reached, this fails (build-aarch64 says why).
x86_seconds=$SECONDS
echo "== aarch64: deploy/build-aarch64.sh (Debian 13, Swift 6.0.3)"
aarch64_status=0
bash deploy/build-aarch64.sh || aarch64_status=$?
build_seconds=$((SECONDS - x86_seconds))
e2e_status=1
if [ "$aarch64_status" = 0 ]; then
    echo "== aarch64: end-to-end tests under qemu-user ($PWD/.build/aarch64/cairn)"
    bash Tests/tools/aarch64-binfmt.sh .build/aarch64/cairn
    set +e
    # The fleet recipe's engines (DuckDB, PostGIS) are the host's: it ran once above, with x86_64.
    CAIRN_BIN="$PWD/.build/aarch64/cairn" swift test --disable-swift-testing --skip-build --filter EndToEndTests \
        --skip FleetEndToEndTests 2>&1 \
        | tee .build/swift-test-aarch64.log
    e2e_status=${PIPESTATUS[0]}
    set -e
fi
e2e_seconds=$((SECONDS - x86_seconds - build_seconds))
# The amd64 package in Debian 13 and 12 chroots: lintian, install, upgrade, remove, purge; then
# under systemd as PID 1 (Debian 12): started, stopped, removed. The arm64 package passes
# test-deb.sh under emulation too (about 10 minutes more the first time: not in every run).
deb_status=1
if [ "$aarch64_status" = 0 ]; then
    echo "== the amd64 package (deploy/debian/test-deb.sh, test-systemd.sh)"
    set +e
    {
        bash deploy/debian/test-deb.sh amd64 \
            && CAIRN_TEST_SUITE=bookworm bash deploy/debian/test-deb.sh amd64 \
            && bash deploy/debian/test-systemd.sh
    } 2>&1 | grep -v -E "^Created symlink|^debconf|posix_openpt"
    deb_status=${PIPESTATUS[0]}
    set -e
fi
deb_seconds=$((SECONDS - x86_seconds - build_seconds - e2e_seconds))
# The board in a box (deploy/board/run.sh, deploy/README.md): our packages on booted Debian 12
# guests under qemu (TCG): amd64 rides the recording through a serial gpsd and a BMP280 on
# i2c-stub, then takes 2 real power cuts on ext4 and 2 on vfat; arm64 (cortex-a53 x4, 512 MB)
# rides. It never skips: without the roots or the .debs it fails with the reason.
echo "== the board in a box (deploy/board/run.sh: amd64 ride + 2 ext4 + 2 vfat cuts; arm64 ride)"
board_status=0 board_why=""
roots_wait_t0=$SECONDS
if ! wait "$board_roots_pid"; then
    board_status=1 board_why="the guest roots: $(cat .build/board/make-root.status)"
fi
roots_wait_seconds=$((SECONDS - roots_wait_t0))
echo "board: guest roots built in the background in $(cat .build/board/make-root.seconds 2>/dev/null || echo ?) s; waited ${roots_wait_seconds} s for them"
if [ "$board_status" = 0 ] && [ "$aarch64_status" != 0 ]; then
    board_status=1 board_why="no packages: deploy/build-aarch64.sh failed"
fi
if [ "$board_status" = 0 ]; then
    bash deploy/board/run.sh --arch amd64 || { board_status=$? board_why="amd64: .build/board/run-amd64/results.json"; }
fi
if [ "$board_status" = 0 ]; then
    bash deploy/board/run.sh --arch arm64 --ride || { board_status=$? board_why="arm64: .build/board/run-arm64/results.json"; }
fi
board_seconds=$((SECONDS - x86_seconds - build_seconds - e2e_seconds - deb_seconds))

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
ran=yes
summary .build/swift-test.log tests || ran=no
if [ "$aarch64_status" != 0 ]; then
    echo "run-tests: deploy/build-aarch64.sh failed (exit $aarch64_status): no aarch64 end-to-end run" >&2
else
    summary .build/swift-test-aarch64.log "aarch64 end-to-end tests (qemu-user)" || ran=no
fi
if [ "$ran" = no ] && [ "$status" = 0 ] && [ "$e2e_status" = 0 ]; then echo "run-tests: no tests ran" >&2; exit 1; fi
echo "run-tests: wall time: x86_64 build and suite ${x86_seconds} s, build-aarch64.sh ${build_seconds} s, aarch64 end-to-end under qemu-user ${e2e_seconds} s, package test ${deb_seconds} s, board in a box ${board_seconds} s"
[ "$status" = 0 ] || exit "$status"
[ "$demo_status" = 0 ] || { echo "run-tests: the demo failed (exit $demo_status): .build/demo.log" >&2; exit 1; }
[ "$deliver_status" = 0 ] || { echo "run-tests: the deliver campaign failed (exit $deliver_status): .build/deliver-campaign.log" >&2; exit 1; }
[ "$format_status" = 0 ] || { echo "run-tests: swift format lint found the above (swift format -i -r Sources Tests Package.swift)" >&2; exit 1; }
[ "$aarch64_status" = 0 ] || exit "$aarch64_status"
[ "$e2e_status" = 0 ] || exit "$e2e_status"
[ "$deb_status" = 0 ] || { echo "run-tests: the amd64 package test failed" >&2; exit 1; }
[ "$board_status" = 0 ] || { echo "run-tests: the board in a box failed: $board_why" >&2; exit 1; }
