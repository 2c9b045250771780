#!/bin/sh
# Installs the npm dependencies when they are missing or older than the lock file, so that
# `npm start` and `npm test` work on a fresh clone with nothing typed first.
#
# `npm install`, not `npm ci`: the registry these machines reach serves only the native binaries of
# this platform (Biome's, the parser under knip), so the lock file cannot list the other platforms'
# optional packages, and `npm ci` refuses any lock that lacks them. `npm install` installs exactly
# the locked versions all the same and leaves the lock file as it is.
set -eu
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "marquee: installing npm dependencies (npm install from the lock file)…" >&2
  npm install --no-audit --no-fund --loglevel=error >&2
fi
