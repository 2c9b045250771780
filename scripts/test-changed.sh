#!/bin/sh
# `npm run test:changed [-- REV]`: the test files that import, directly or not, a file changed and
# not committed yet, or changed since REV when given (e.g. origin/main) — vitest --changed, on this
# machine's Node, every project. An integration test that runs bin/marquee reaches the product
# through dist/, which vitest cannot see: a change to the product selects the tests that import the
# changed module, not every test that starts the process; `npm test` runs them all.
set -eu
cd "$(dirname "$0")/.."
sh scripts/ensure-deps.sh
sh scripts/ensure-build.sh
sh scripts/ensure-test-services.sh
if [ "$#" -gt 0 ]; then
  rev=$1
  shift
  exec node_modules/.bin/vitest run --passWithNoTests --changed "$rev" "$@"
fi
exec node_modules/.bin/vitest run --passWithNoTests --changed
