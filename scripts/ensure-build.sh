#!/bin/sh
# Compiles the product into dist/ (tsconfig.build.json) when dist/ is missing or older than any
# source it is built from, so that `npm start`, `npm test` and the tests that run bin/marquee never
# run stale JavaScript. An up-to-date dist/ costs one `find`. Concurrent callers (several test
# runs) take turns under a lock, and a new build replaces dist/ by rename, so a process running
# the old one never sees a half-written tree.
#
# `npm install` in a clone runs it as package.json's `dependencies` script: npm runs that one
# after it changed node_modules/ in the project itself, and never for a package installed from the
# release tarball, which ships dist/ compiled and no scripts/. As `prepare`, it was an install
# script of the tarball too: npm warned about it on every install of the release (a script it would
# not run, naming a file the package does not have).
set -eu
cd "$(dirname "$0")/.."
stamp=dist/.build-stamp

current() {
  [ -f "$stamp" ] && [ -z "$(find bin admin builder gateway records snapshot runtime templates tsconfig.json tsconfig.build.json package-lock.json \
    \( -name '*.ts' -o -name '*.json' -o -name '*.njk' -o -name '*.html' -o -name '*.css' \) -newer "$stamp" 2>/dev/null | head -n 1)" ]
}

current && exit 0

if [ ! -x node_modules/.bin/tsc ]; then
  # Installed without devDependencies (a production image built elsewhere): use dist/ as shipped.
  [ -f dist/bin/cli.js ] && exit 0
  echo "marquee: dist/ is missing and TypeScript is not installed; run npm ci (with devDependencies), then npm run build" >&2
  exit 1
fi

lock=.dist-build.lock
waited=0
while ! mkdir "$lock" 2>/dev/null; do
  # A build killed mid-way leaves its lock behind: take it over after two minutes.
  if [ "$waited" -ge 600 ]; then rm -rf "$lock"; continue; fi
  sleep 0.2
  waited=$((waited + 1))
done
trap 'rm -rf "$lock" dist.next' EXIT
current && exit 0

echo "marquee: compiling into dist/ (tsc -p tsconfig.build.json)…" >&2
rm -rf dist.next
# Stamped before compiling: a source edited while tsc runs is newer than the stamp, so the next
# call builds again rather than taking that source for compiled.
mkdir dist.next
touch dist.next/.build-stamp
# Exit status 2 is TypeScript's "type errors, JavaScript written anyway": the type check is the
# test command's job (and fails it); a build that could not write its output (1) stops here.
status=0
node_modules/.bin/tsc -p tsconfig.build.json --outDir dist.next || status=$?
if [ "$status" = 2 ]; then
  echo "marquee: dist/ compiled despite the type errors above (npm run typecheck reports them)" >&2
elif [ "$status" != 0 ]; then
  exit "$status"
fi
rm -rf dist.previous
[ -d dist ] && mv dist dist.previous
mv dist.next dist
rm -rf dist.previous
