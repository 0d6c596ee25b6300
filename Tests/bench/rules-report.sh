#!/usr/bin/env bash
# Runs the fix rules and a raw keep-every-fix recorder over the generated rides (30 seeds each)
# and writes the results table to Tests/bench/rules-results.md.
# Usage: Tests/bench/rules-report.sh [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
CAIRN_SCENARIO_SEEDS=${1:-30} CAIRN_RULES_REPORT="$PWD/Tests/bench/rules-results.md" \
  swift test --disable-swift-testing --filter ScenarioTests.testRulesMeetTheTargetsOnEveryScenario
cat Tests/bench/rules-results.md
