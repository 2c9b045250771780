// A loopback HTTP proxy that counts the requests passing through it by method, for the benchmarks
// that must say how many PUTs a build sends to the bucket. Deliberately light, unlike
// test/support/recording-proxy.ts: bodies stream through untouched and nothing is kept but counts.
import { Agent, createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  /** e.g. http://127.0.0.1:41235 */
  origin: string;
  /** Requests answered so far, by method; a GET that lists a bucket counts as LIST. */
  counts(): Record<string, number>;
  /** Answers with a status of 400 or more (a HEAD 404 for an absent key is one). */
  refused(): number;
  reset(): void;
  close(): Promise<void>;
}

/** Forwards every request to `target` (an http://host:port origin), counting it. */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  // Kept-alive upstream connections: tens of thousands of PUTs on fresh connections would leave
  // as many sockets in TIME_WAIT and measure the kernel's port allocation instead of the store.
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let counts = new Map<string, number>();
  let refused = 0;
  const server: Server = createServer((req, res) => {
    const kind = kindOf(req);
    const forwarded = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.rawHeaders, agent }, (answer) => {
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      if ((answer.statusCode ?? 0) >= 400) refused++;
      // Raw pairs both ways: the Host the client signed (SigV4) reaches the store unchanged.
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    forwarded.on('error', (error) => res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`proxy: ${error.message}`));
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => Object.fromEntries(counts),
    refused: () => refused,
    reset: () => {
      counts = new Map();
      refused = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

function kindOf(req: IncomingMessage): string {
  const method = req.method ?? '?';
  return method === 'GET' && /[?&]list-type=/.test(req.url ?? '') ? 'LIST' : method;
}
