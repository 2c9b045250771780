#!/bin/sh
# `npm test`: installs what the suite needs, runs it once (unit, then integration), and ends with
# one plain line "N passed, N failed" counted from vitest's JSON report.
set -eu
cd "$(dirname "$0")/.."
sh scripts/ensure-deps.sh
sh scripts/ensure-build.sh
sh scripts/ensure-test-services.sh
mkdir -p .test-output
report=.test-output/vitest.json
rm -f "$report"
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
node scripts/summarize-tests.mjs "$report" || status=$?
exit "$status"
