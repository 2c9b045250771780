// A real HTTP cache in front of an origin, standing in for the CDN of production: nginx (Debian's
// nginx-light) as a caching reverse proxy, unprivileged paths under a temporary directory, on a
// free loopback port. It stores what the origin's Cache-Control allows (immutable objects: HIT;
// no-cache pointers: REVALIDATED by ETag) and says which in X-Cache-Status. Either the tests' own
// configuration (startHttpCache) or the shipped deploy/nginx/marquee-cdn.conf (startShippedCdn).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { daemon } from './daemon.ts';
import { freePort } from './ports.ts';
import { nginxConf, shippedCdnSite } from './nginx-conf.ts';

const BIN = '/usr/sbin/nginx';

export interface TestHttpCache {
  /** e.g. http://127.0.0.1:41234: paths below it are the origin's paths. */
  url: string;
  halt(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** `origin`: http://host:port of the server to cache (s3rver). */
export async function startHttpCache(origin: string): Promise<TestHttpCache> {
  if (!existsSync(BIN)) throw new Error(`nginx is not installed: ${BIN} is missing (Debian package nginx-light)`);
  const prefix = await mkdtemp(path.join(tmpdir(), 'marquee-nginx-'));
  await mkdir(path.join(prefix, 'cache'));
  await mkdir(path.join(prefix, 'logs'));
  const port = await freePort();
  const upstream = new URL(origin);
  const conf = path.join(prefix, 'nginx.conf');
  await writeFile(
    conf,
    nginxConf(prefix, {
      errorLevel: 'warn',
      workerConnections: 512,
      http: `  proxy_cache_path ${prefix}/cache keys_zone=snap:1m max_size=64m inactive=10m use_temp_path=off;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://${upstream.host};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_cache snap;
      proxy_cache_revalidate on;
      # No cache lock: nginx makes a request waiting for another's fill poll the cache every 500 ms,
      # which would add up to half a second to every publish seen by a second gateway. A CDN
      # collapses such requests without that pause; here both simply reach the origin.
      proxy_cache_lock off;
      proxy_cache_use_stale updating error timeout;
      proxy_connect_timeout 2s;
      proxy_read_timeout 5s;
      add_header X-Cache-Status $upstream_cache_status always;
    }
  }
`,
    }),
  );
  return runNginx(prefix, conf, port);
}

const SHIPPED_CDN = new URL('../../deploy/nginx/marquee-cdn.conf', import.meta.url);

/**
 * The shipped deploy/nginx/marquee-cdn.conf in front of an s3rver (`store`: its host:port; `bucket`:
 * the bucket it serves), with only the machine's parts changed (nginx-conf.ts shippedCdnSite),
 * included in an http context as Debian's nginx.conf includes a conf.d file. `http`: what else that
 * context holds, such as an operator's gzip settings. Paths below `url` are the bucket's keys.
 */
export async function startShippedCdn(store: string, bucket: string, options: { http?: string } = {}): Promise<TestHttpCache> {
  if (!existsSync(BIN)) throw new Error(`nginx is not installed: ${BIN} is missing (Debian package nginx-light)`);
  const prefix = await mkdtemp(path.join(tmpdir(), 'marquee-shipped-cdn-'));
  await mkdir(path.join(prefix, 'logs'));
  const port = await freePort();
  const site = shippedCdnSite(await readFile(SHIPPED_CDN, 'utf8'), { store, bucket, port, cacheDirectory: path.join(prefix, 'cache') });
  await writeFile(path.join(prefix, 'marquee-cdn.conf'), site);
  const conf = path.join(prefix, 'nginx.conf');
  await writeFile(
    conf,
    nginxConf(prefix, {
      errorLevel: 'warn',
      workerConnections: 256,
      http: `${options.http ?? ''}  include ${prefix}/marquee-cdn.conf;
`,
    }),
  );
  return runNginx(prefix, conf, port);
}

/** nginx with `conf`, started; stopping it removes `prefix`. */
async function runNginx(prefix: string, conf: string, port: number): Promise<TestHttpCache> {
  const server = daemon('nginx', BIN, ['-p', prefix, '-c', conf], port);
  const start = () => server.start();
  // SIGTERM: nginx's fast shutdown, which stops its worker too.
  const halt = () => server.stop('SIGTERM');
  await start();
  return {
    url: `http://127.0.0.1:${port}`,
    halt,
    resume: start,
    async stop() {
      await halt();
      await rm(prefix, { recursive: true, force: true });
    },
  };
}
