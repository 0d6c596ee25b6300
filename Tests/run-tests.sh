#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine (as root): installs what is missing, builds
# the static release binary and checks it is static, then runs `swift test` (unit tests and the
# end-to-end tests, which drive that binary against a private gpsd).
set -euo pipefail
cd "$(dirname "$0")/.."

bash Tests/tools/install-deps.sh
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi

echo "== static release build"
bash Tests/tools/build-static.sh

echo "== swift test"
export CAIRN_BIN="$PWD/.build/release/cairn"
set +e
swift test --disable-swift-testing 2>&1 | tee .build/swift-test.log
status=${PIPESTATUS[0]}
set -e
echo "== summary"
grep -E "error:|: error|failed \(" .build/swift-test.log | head -40 || true
# The closing line of the test runner (N tests, M failures), and the plain form of it.
last=$(grep -E "Executed [0-9]+ tests" .build/swift-test.log | tail -1 || true)
echo "$last"
echo "$last" | awk '{for (i = 1; i <= NF; i++) {if ($i == "Executed") n = $(i+1); if ($i == "with") f = $(i+1)}}
  END {if (n != "") printf "tests: %d passed, %d failed\n", n - f, f}'
if [ "$status" = 0 ] && [ -z "$last" ]; then echo "run-tests: no tests ran" >&2; exit 1; fi
exit "$status"
