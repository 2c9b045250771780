#!/bin/sh
# `npm test`: installs what the suite needs, runs the static checks (format and lint, unused code,
# types), then the suites (unit, then integration) on this machine's Node (the compatibility
# scope, below) and on Node 26 (everything), and ends
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

# The suites run on two Node lines (docs/development.md, "Two Node lines"): the current LTS (Node
# 26, installed into .tools/ from npm when missing: scripts/ensure-node.sh) runs every suite; the
# machine's Node, when it is another line (20, past its end of life), runs the compatibility scope
# (MARQUEE_TEST_SCOPE=compatibility in vitest.config.ts): every unit test but those of the repository's text, the contract suites
# against the real servers and a smoke test of each process. A run given vitest arguments (files,
# -t) runs what they select on both lines. MARQUEE_TEST_ONE_NODE=1 runs every suite on the
# machine's Node only, while working; CI never sets it.
suites() {
  report=$1
  shift
  rm -f "$report"
  MARQUEE_FILE_TIMES=$(echo "$report" | sed 's/vitest/file-times/')
  export MARQUEE_FILE_TIMES
  echo "suites on node $(node --version)${MARQUEE_TEST_SCOPE:+ ($MARQUEE_TEST_SCOPE scope)}" >&2
  started=$(date +%s)
  node_modules/.bin/vitest run --reporter=default --reporter=json --reporter=./test/support/file-times.ts --outputFile.json="$report" "$@" || true
  echo "suites on node $(node --version): $(($(date +%s) - started)) s" >&2
}
status=0
first=""
second=""
if [ "${MARQUEE_TEST_ONE_NODE:-}" = 1 ]; then
  suites .test-output/vitest.json "$@"
  first="node $(node --version)=.test-output/vitest.json"
else
  lts=$(sh scripts/ensure-node.sh)
  machine=$(node -p 'process.versions.node.split(".")[0]')
  if [ "$("$lts/node" -p 'process.versions.node.split(".")[0]')" != "$machine" ]; then
    if [ "$#" -eq 0 ]; then
      (
        MARQUEE_TEST_SCOPE=compatibility
        export MARQUEE_TEST_SCOPE
        suites .test-output/vitest.json
      )
      first="node $(node --version) (compatibility scope)=.test-output/vitest.json"
    else
      suites .test-output/vitest.json "$@"
      first="node $(node --version)=.test-output/vitest.json"
    fi
  fi
  (
    PATH="$lts:$PATH"
    export PATH
    suites .test-output/vitest-lts.json "$@"
  )
  second="node $("$lts/node" --version)=.test-output/vitest-lts.json"
fi
# The vitest arguments are spent: the positional parameters become the runs, one each.
set --
if [ -n "$first" ]; then set -- "$first"; fi
if [ -n "$second" ]; then set -- "$@" "$second"; fi
node scripts/summarize-tests.mjs "$checks_passed" "$checks_failed" "$@" || status=$?
exit "$status"
