#!/bin/sh
# Installs the npm dependencies when they are missing or older than the lock file, so that
# `npm start` and `npm test` work on a fresh clone with nothing typed first.
#
# `npm install`, not `npm ci`: the registry these machines reach serves only the native binaries of
# this platform (Biome's, the parser under knip), so the lock file cannot list the other platforms'
# optional packages, and `npm ci` refuses any lock that lacks them. `npm install` installs exactly
# the locked versions all the same.
set -eu
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "marquee: installing npm dependencies (npm install from the lock file)…" >&2
  # npm install adds the other platforms' optional packages it cannot fetch here to the lock file;
  # the committed lock is put back as it was (mtime included, so it is not taken for newer than
  # what was just installed), and a checkout stays clean.
  cp -p package-lock.json .package-lock.committed
  trap 'mv -f .package-lock.committed package-lock.json' EXIT
  npm install --no-audit --no-fund --loglevel=error >&2
fi
