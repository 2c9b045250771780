#!/bin/sh
# `npm run check`: the inner loop before a commit — the three static checks of `npm test` (Biome
# format and lint, knip, tsc strict) and every unit test, in under a minute on two cores. tsc, the
# longest, runs beside the others and incrementally (its state in .test-output/tsc.tsbuildinfo).
# Exits non-zero when anything failed; `npm run test:changed` then runs the integration tests of
# what changed, `npm test` everything.
set -eu
cd "$(dirname "$0")/.."
sh scripts/ensure-deps.sh
mkdir -p .test-output
status=0
node_modules/.bin/tsc --noEmit --incremental --tsBuildInfoFile .test-output/tsc.tsbuildinfo >.test-output/tsc.log 2>&1 &
tsc=$!
node_modules/.bin/biome ci --reporter=summary || status=1
node_modules/.bin/knip || status=1
node_modules/.bin/vitest run --project unit || status=1
if wait "$tsc"; then
  echo "tsc --noEmit: no errors"
else
  cat .test-output/tsc.log
  status=1
fi
[ "$status" = 0 ] && echo "check: passed" || echo "check: FAILED"
exit "$status"
