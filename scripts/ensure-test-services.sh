#!/bin/sh
# Installs what the integration tests start by themselves: PostgreSQL 15 server binaries,
# redis-server and Chromium (Debian packages). Needs root with apt when something is missing.
set -eu
missing=""
[ -x /usr/lib/postgresql/15/bin/initdb ] || missing="$missing postgresql-15"
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
[ -x /usr/bin/chromium ] || missing="$missing chromium"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "marquee: the tests need:$missing — install them (Debian: apt-get install$missing) and run again" >&2
  exit 1
fi
echo "marquee: installing test services:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
# Debian starts no services in this environment, but stop any that a package started anyway:
# the tests start their own servers on loopback ports of their choosing.
if command -v service >/dev/null 2>&1; then service redis-server stop >/dev/null 2>&1 || true; fi
