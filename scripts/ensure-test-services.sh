#!/bin/sh
# Installs the programs the integration tests, benchmarks, soak and fuzz runs start by themselves
# (Debian packages): PostgreSQL 15 server binaries, Redis, nginx (the HTTP cache standing in for a
# CDN), Chromium, systemd-analyze, Prometheus (promtool and the server, for the shipped rules), and
# wrk (the gateway benchmarks' load generator), and nginx's brotli_static module (the gateway
# benchmark's static reference serves .br files with it; without it, only gzip). Needs root with apt when something is missing;
# otherwise it stops with one line naming the command that installs it.
#
#   sh scripts/ensure-test-services.sh                      # everything `npm test` needs
#   sh scripts/ensure-test-services.sh postgres redis nginx # only these (the benchmarks' scripts)
#   sh scripts/ensure-test-services.sh wrk nginx-brotli     # never needed by the tests
set -eu
[ "$#" -gt 0 ] || set -- postgres redis nginx chromium systemd prometheus
missing=""
for service in "$@"; do
  case $service in
  postgres) [ -x /usr/lib/postgresql/15/bin/initdb ] || missing="$missing postgresql-15" ;;
  redis) [ -x /usr/bin/redis-server ] || missing="$missing redis-server" ;;
  nginx) [ -x /usr/sbin/nginx ] || missing="$missing nginx-light" ;;
  chromium) [ -x /usr/bin/chromium ] || missing="$missing chromium" ;;
  # The release test checks the systemd units of deploy/ with systemd-analyze verify.
  systemd) command -v systemd-analyze >/dev/null 2>&1 || missing="$missing systemd" ;;
  # The monitoring tests check deploy/prometheus/ with promtool and run the server against a fleet.
  prometheus) [ -x /usr/bin/promtool ] && [ -x /usr/bin/prometheus ] || missing="$missing prometheus" ;;
  wrk) command -v wrk >/dev/null 2>&1 || missing="$missing wrk" ;;
  # Loaded only by the configuration that names it (bench/nginx-static.ts): the tests' nginx never loads it.
  nginx-brotli) [ -f /usr/lib/nginx/modules/ngx_http_brotli_static_module.so ] || missing="$missing libnginx-mod-http-brotli-static" ;;
  *)
    echo "ensure-test-services.sh: unknown service $service (postgres, redis, nginx, chromium, systemd, prometheus, wrk, nginx-brotli)" >&2
    exit 2
    ;;
  esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "marquee: this needs:$missing — install them with: sudo apt-get install$missing" >&2
  exit 1
fi
echo "marquee: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
