#!/bin/sh
# `npm test`: installs what the suite needs, runs the static checks (format and lint, unused code,
# types), then the suites once (unit, then integration), and ends with one plain line
# "N passed, N failed": vitest's tests plus one per static check. Any failure exits non-zero; the
# suites run even when a static check failed, so one run reports everything.
set -eu
cd "$(dirname "$0")/.."
sh scripts/ensure-deps.sh
sh scripts/ensure-build.sh
sh scripts/ensure-test-services.sh
mkdir -p .test-output

checks_passed=0
checks_failed=0
check() {
  name=$1
  shift
  echo "check: $name" >&2
  if "$@"; then
    checks_passed=$((checks_passed + 1))
  else
    echo "check failed: $name" >&2
    checks_failed=$((checks_failed + 1))
  fi
}
check 'format and lint (biome ci)' node_modules/.bin/biome ci --reporter=summary
check 'unused files, exports and dependencies (knip)' node_modules/.bin/knip
check 'types (tsc --noEmit, strict)' node_modules/.bin/tsc --noEmit

report=.test-output/vitest.json
rm -f "$report"
status=0
node_modules/.bin/vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
node scripts/summarize-tests.mjs "$report" "$checks_passed" "$checks_failed" || status=$?
exit "$status"
