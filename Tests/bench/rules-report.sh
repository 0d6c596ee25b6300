#!/usr/bin/env bash
# Runs the fix rules and a raw keep-every-fix recorder over the generated rides and writes the
# results table to Tests/bench/rules-results.md. The suite tunes on seeds 1-8; the report is on
# 50 others (9-58), so it judges rules that never saw its rides.
# Usage: Tests/bench/rules-report.sh [SEEDS] [FIRST_SEED] [BEFORE_REV]
# With BEFORE_REV (a commit), the rules of that commit are judged too, on the same seeds with
# this generator (so rides added since are judged on them as well), and their table is added as
# the first "## Before" section: last round's figures beside this round's.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
seeds=${1:-50}
first=${2:-9}
before=${3:-}
CAIRN_SCENARIO_SEEDS=$seeds CAIRN_SCENARIO_FIRST_SEED=$first CAIRN_RULES_REPORT="$PWD/Tests/bench/rules-results.new.md" \
  swift test --disable-swift-testing --filter ScenarioTests.testRulesMeetTheTargetsOnEveryScenario || true
test -s Tests/bench/rules-results.new.md
section=""
if [ -n "$before" ]; then
  old=$(mktemp -d)
  git archive "$before" | tar -x -C "$old"
  cp Tests/CairnCoreTests/ScenarioGenerator.swift Tests/CairnCoreTests/ScenarioTests.swift "$old/Tests/CairnCoreTests/"
  # (Its own targets may fail on the new rides: the table is written before they are judged.)
  (cd "$old" && CAIRN_SCENARIO_SEEDS=$seeds CAIRN_SCENARIO_FIRST_SEED=$first CAIRN_RULES_REPORT="$old/before.md" \
    swift test --disable-swift-testing --filter ScenarioTests.testRulesMeetTheTargetsOnEveryScenario >/dev/null 2>&1 || true)
  section=$(printf '## Before: the rules of %s, the same seeds and generator\n\n%s\n' "$(git rev-parse --short "$before")" "$(tail -n +3 "$old/before.md")")
  rm -rf "$old"
fi
# The earlier rules' figures stay below the new table.
{
  cat Tests/bench/rules-results.new.md
  if [ -n "$section" ]; then printf '\n%s\n\n' "$section"; fi
  sed -n '/^## Before/,$p' Tests/bench/rules-results.md
} > Tests/bench/rules-results.tmp
rm Tests/bench/rules-results.new.md
mv Tests/bench/rules-results.tmp Tests/bench/rules-results.md
cat Tests/bench/rules-results.md
