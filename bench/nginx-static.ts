// nginx serving files as they are, each beside its precompressed forms (`NAME.gz`, and `NAME.br`
// when Debian's brotli_static module is installed): the fastest a server can answer a request for
// bytes it holds, the reference bench/gateway.ts sets the gateway's `GET /organization` against
// (docs/design.md "Coded bodies"). Tuned as a static origin is: sendfile, open file
// descriptors cached, no access log, keep-alive connections never closed by a request count (nginx
// closes one after 1,000 requests by default, which Node's server never does).
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { daemon } from '../test/support/daemon.ts';
import { nginxConf } from '../test/support/nginx-conf.ts';
import { freePort } from '../test/support/ports.ts';

const BIN = '/usr/sbin/nginx';
/** Debian's libnginx-mod-http-brotli-static (`sh scripts/ensure-test-services.sh nginx-brotli`). */
const BROTLI_STATIC_MODULE = '/usr/lib/nginx/modules/ngx_http_brotli_static_module.so';

export interface StaticFiles {
  /** http://127.0.0.1:port: each file is at /NAME. */
  url: string;
  /** Whether `.br` files are served (the module is installed). */
  brotli: boolean;
  /** The worker's pid, the process that answers (the master only starts it). */
  workerPid(): number;
  stop(): Promise<void>;
}

/**
 * `files`: name → its bytes (`''`) and its precompressed forms by suffix (`.gz`, `.br`), if any; a
 * `.br` form is written only when the module that serves it is installed.
 */
export async function startStaticFiles(files: Record<string, { '': Uint8Array; '.gz'?: Uint8Array; '.br'?: Uint8Array }>): Promise<StaticFiles> {
  if (!existsSync(BIN)) throw new Error(`nginx is not installed: ${BIN} is missing (sh scripts/ensure-test-services.sh nginx)`);
  const brotli = existsSync(BROTLI_STATIC_MODULE);
  const prefix = await mkdtemp(path.join(tmpdir(), 'marquee-nginx-static-'));
  const root = path.join(prefix, 'root');
  await mkdir(path.join(prefix, 'logs'));
  await mkdir(root);
  for (const [name, forms] of Object.entries(files)) {
    for (const [suffix, bytes] of Object.entries(forms)) if (bytes && (suffix !== '.br' || brotli)) await writeFile(path.join(root, `${name}${suffix}`), bytes);
  }
  const port = await freePort();
  const conf = path.join(prefix, 'nginx.conf');
  await writeFile(
    conf,
    nginxConf(prefix, {
      errorLevel: 'warn',
      workerConnections: 512,
      modules: brotli ? [BROTLI_STATIC_MODULE] : [],
      http: `  sendfile on;
  tcp_nopush on;
  open_file_cache max=64 inactive=60s;
  keepalive_requests 1000000000;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location / {
      default_type application/json;
      gzip_static on;
${brotli ? '      brotli_static on;\n' : ''}    }
  }
`,
    }),
  );
  const server = daemon('nginx (static files)', BIN, ['-p', prefix, '-c', conf], port);
  await server.start();
  return {
    url: `http://127.0.0.1:${port}`,
    brotli,
    workerPid() {
      const master = Number(readFileSync(path.join(prefix, 'nginx.pid'), 'utf8'));
      const [worker] = readFileSync(`/proc/${master}/task/${master}/children`, 'utf8').trim().split(' ').map(Number);
      if (!worker) throw new Error(`nginx ${master} has no worker`);
      return worker;
    },
    async stop() {
      await server.stop('SIGTERM');
      await rm(prefix, { recursive: true, force: true });
    },
  };
}
