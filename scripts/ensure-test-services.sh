#!/bin/sh
# Installs what the integration tests start by themselves (Debian packages): PostgreSQL 15 server
# binaries, Redis, nginx (the HTTP cache standing in for a CDN), Chromium and systemd-analyze. Needs root with apt when something is missing.
set -eu
missing=""
[ -x /usr/lib/postgresql/15/bin/initdb ] || missing="$missing postgresql-15"
[ -x /usr/bin/redis-server ] || missing="$missing redis-server"
[ -x /usr/sbin/nginx ] || missing="$missing nginx-light"
[ -x /usr/bin/chromium ] || missing="$missing chromium"
# The release test checks the systemd units of deploy/ with systemd-analyze verify.
command -v systemd-analyze >/dev/null 2>&1 || missing="$missing systemd"
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
