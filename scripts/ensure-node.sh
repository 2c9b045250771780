#!/bin/sh
# Prints the directory holding a `node` of the given version (default: the current LTS, 26), the
# official binary as npm's node-<platform>-<arch> package ships it, installed into this project's
# .tools/ when missing — from the npm registry, never downloaded from anywhere else. `npm test`
# runs the suite once more on it (scripts/test.sh).
set -eu
cd "$(dirname "$0")/.."
version=${1:-26.10.0}
package="node-$(node -p 'process.platform + "-" + process.arch')"
dir=.tools/node-$version
bin="$dir/node_modules/$package/bin"
if [ ! -x "$bin/node" ]; then
  echo "marquee: installing Node.js $version ($package@$version from npm) into $dir…" >&2
  npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$package@$version" >&2
fi
echo "$(pwd)/$bin"
