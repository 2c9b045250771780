#!/bin/sh
# Installs the npm dependencies when they are missing or older than the lock file, so that
# `npm start` and `npm test` work on a fresh clone with nothing typed first.
set -eu
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "marquee: installing npm dependencies (npm ci)…" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
