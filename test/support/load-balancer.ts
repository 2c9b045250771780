// A real load balancer in front of several gateways: nginx (Debian's nginx-light) with an
// `upstream` of their ports, unprivileged paths under a temporary directory, on a free loopback
// port. Configured as nginx is commonly run in front of an HTTP service: HTTP/1.1 keep-alive
// connections to the upstreams, round robin, and a request whose upstream refused the connection
// (or closed it before answering) tried once more on the next one (`proxy_next_upstream error
// timeout`, nginx's default); a refused upstream is left out for a second (`fail_timeout`); idle
// connections are dropped before the gateways drop them (`keepalive_timeout`). nginx
// without its commercial part has no active health checks: it cannot probe /readyz, only learn
// from refused connections (docs/operation.md "Health" says what that means for a drain).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { daemon } from './daemon.ts';
import { freePort } from './ports.ts';
import { nginxConf } from './nginx-conf.ts';

const BIN = '/usr/sbin/nginx';

export interface TestLoadBalancer {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** nginx's error log so far: why it answered 502 or tried the next upstream. */
  errorLog(): Promise<string>;
  stop(): Promise<void>;
}

export interface LoadBalancerOptions {
  /** `off`: a request whose upstream failed is answered 502, not tried on the next (a balancer that never retries). */
  retry?: 'next-upstream' | 'off';
}

/** `upstreams`: the gateways' ports on loopback. */
export async function startLoadBalancer(upstreams: readonly number[], options: LoadBalancerOptions = {}): Promise<TestLoadBalancer> {
  if (!existsSync(BIN)) throw new Error(`nginx is not installed: ${BIN} is missing (Debian package nginx-light)`);
  const prefix = await mkdtemp(path.join(tmpdir(), 'marquee-balancer-'));
  await mkdir(path.join(prefix, 'logs'));
  const port = await freePort();
  const conf = path.join(prefix, 'nginx.conf');
  await writeFile(
    conf,
    nginxConf(prefix, {
      errorLevel: 'info',
      workerConnections: 1024,
      http: `  upstream gateways {
${upstreams.map((upstream) => `    server 127.0.0.1:${upstream} max_fails=1 fail_timeout=1s;`).join('\n')}
    keepalive 32;
    # Below the gateways' HTTP_KEEP_ALIVE_TIMEOUT (5 s): a connection the gateway closes as idle
    # while nginx sends on it counts as that gateway failing, and with the other one restarting,
    # nginx has no upstream left and answers 502 (seen here before this line).
    keepalive_timeout 4s;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_next_upstream ${options.retry === 'off' ? 'off' : 'error timeout'};
      proxy_connect_timeout 2s;
      proxy_read_timeout 10s;
    }
  }
`,
    }),
  );
  const server = daemon('nginx', BIN, ['-p', prefix, '-c', conf], port);
  await server.start();
  return {
    url: `http://127.0.0.1:${port}`,
    errorLog: () => readFile(path.join(prefix, 'logs', 'error.log'), 'utf8').catch(() => ''),
    async stop() {
      await server.stop('SIGTERM');
      await rm(prefix, { recursive: true, force: true });
    },
  };
}
