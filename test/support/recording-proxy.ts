// A transparent loopback HTTP proxy that records what passes through: the request a client really
// sent (method, path, headers) and the status the server really answered. Used where the client
// hides the wire, as a browser does when it revalidates its cache: the page sees 200, and only
// the wire shows whether the server sent 304.
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Exchange {
  method: string;
  path: string;
  requestHeaders: IncomingHttpHeaders;
  status: number;
  responseHeaders: IncomingHttpHeaders;
  /** The response body as UTF-8 text; '' when none was sent. */
  body: string;
}

export interface RecordingProxy {
  /** e.g. http://127.0.0.1:41235 */
  origin: string;
  /** Every completed exchange, in the order the responses ended. */
  readonly exchanges: Exchange[];
  close(): Promise<void>;
}

/** Forwards every request to `target` (an http://host:port origin) and records it. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const exchanges: Exchange[] = [];
  const server: Server = createServer((req, res) => {
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        // Raw pairs: names, order and repetitions as the client sent them.
        headers: req.rawHeaders,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () =>
          exchanges.push({
            method: req.method ?? '',
            path: req.url ?? '',
            requestHeaders: req.headers,
            status: answer.statusCode ?? 0,
            responseHeaders: answer.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    forwarded.on('error', (error) => {
      res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`proxy: ${error.message}`);
    });
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
