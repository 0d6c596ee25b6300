#!/usr/bin/env bash
# Runs the fix rules and a raw keep-every-fix recorder over the generated rides and writes the
# results table to Tests/bench/rules-results.md. The suite tunes on seeds 1-8; the report is on
# 50 others (9-58), so it judges rules that never saw its rides.
# Usage: Tests/bench/rules-report.sh [SEEDS] [FIRST_SEED]
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
CAIRN_SCENARIO_SEEDS=${1:-50} CAIRN_SCENARIO_FIRST_SEED=${2:-9} CAIRN_RULES_REPORT="$PWD/Tests/bench/rules-results.new.md" \
  swift test --disable-swift-testing --filter ScenarioTests.testRulesMeetTheTargetsOnEveryScenario
# The earlier rules' figures stay below the new table.
{ cat Tests/bench/rules-results.new.md; sed -n '/^## Before/,$p' Tests/bench/rules-results.md; } > Tests/bench/rules-results.tmp
rm Tests/bench/rules-results.new.md
mv Tests/bench/rules-results.tmp Tests/bench/rules-results.md
cat Tests/bench/rules-results.md
