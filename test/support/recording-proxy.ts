// A transparent loopback HTTP proxy that records what passes through: the request a client really
// sent (method, path, headers) and the status the server really answered. Used where the client
// hides the wire, as a browser does when it revalidates its cache: the page sees 200, and only
// the wire shows whether the server sent 304, or a browser decodes a coded body.
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CODINGS, type Coding, decode } from '../../snapshot/codings.ts';

interface Exchange {
  method: string;
  path: string;
  requestHeaders: IncomingHttpHeaders;
  status: number;
  responseHeaders: IncomingHttpHeaders;
  /** The response body as UTF-8 text, decoded when it came in a coding of the API (br, gzip); '' when none was sent. */
  body: string;
  /** The response body's bytes as they travelled, coded or not. */
  bytes: Buffer;
}

/**
 * `bytes` as text, undoing a Content-Encoding of the API's; any other coding is left as it came.
 * Bytes that do not decode are named as such (the test's checks then fail on them), never thrown
 * from the proxy's own event handler.
 */
function textOf(bytes: Buffer, coding: string | undefined): string {
  const known = CODINGS.find((candidate) => candidate === coding) as Coding | undefined;
  if (known === undefined || bytes.length === 0) return bytes.toString('utf8');
  try {
    return decode(known, bytes).toString('utf8');
  } catch (error) {
    return `(${bytes.length} bytes that are not ${known}: ${(error as Error).message})`;
  }
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
        answer.on('end', () => {
          const bytes = Buffer.concat(chunks);
          exchanges.push({
            method: req.method ?? '',
            path: req.url ?? '',
            requestHeaders: req.headers,
            status: answer.statusCode ?? 0,
            responseHeaders: answer.headers,
            body: textOf(bytes, answer.headers['content-encoding']),
            bytes,
          });
        });
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
