#!/bin/sh
# `npm test`: installs what the suite needs, runs the static checks (format and lint, unused code,
# types), then the suites (unit, then integration) on this machine's Node and on Node 26, and ends
# with a line per run and one plain line "N passed, N failed" over both: vitest's tests plus one
# per static check. Any failure exits non-zero; the
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

# The suites on this machine's Node, then on the current LTS (Node 26, installed into .tools/ from
# npm when missing: scripts/ensure-node.sh). MARQUEE_TEST_ONE_NODE=1 skips the second run while
# working; CI never sets it.
suites() {
  report=$1
  shift
  rm -f "$report"
  echo "suites on node $(node --version)" >&2
  node_modules/.bin/vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || true
}
status=0
suites .test-output/vitest.json "$@"
first="node $(node --version)=.test-output/vitest.json"
second=""
if [ "${MARQUEE_TEST_ONE_NODE:-}" != 1 ]; then
  lts=$(sh scripts/ensure-node.sh)
  (
    PATH="$lts:$PATH"
    export PATH
    suites .test-output/vitest-lts.json "$@"
  )
  second="node $("$lts/node" --version)=.test-output/vitest-lts.json"
fi
# The vitest arguments are spent: the positional parameters become the runs, one each.
set -- "$first"
if [ -n "$second" ]; then set -- "$@" "$second"; fi
node scripts/summarize-tests.mjs "$checks_passed" "$checks_failed" "$@" || status=$?
exit "$status"
