// Errors the HTTP parser raises before a request reaches the API, answered like every other error:
// problem+json with CORS headers (so page JavaScript can read `errorCode`) and no-store, rather
// than Node's bodiless 400/408/417/431. Written straight to the socket, because no request object
// exists: an unknown or lower-case method, a malformed request line or header, a header block over
// the limit (431), a request not received within the headers or request timeout (408). `Expect`
// with anything is answered 417 the same way: the API takes no request bodies to continue with.
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { CORS_HEADERS } from './access/cors.ts';
import { type ApiError, expectationFailed, malformedRequest, requestHeadersTooLarge, requestTimeout } from './errors.ts';
import { problemBytes } from './problem.ts';

function errorFor(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') return requestHeadersTooLarge();
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return requestTimeout();
  return malformedRequest();
}

function headerLines(apiError: ApiError, length: number): string {
  const lines = [`HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status] ?? ''}`];
  for (let i = 0; i < CORS_HEADERS.length; i += 2) lines.push(`${CORS_HEADERS[i]}: ${CORS_HEADERS[i + 1]}`);
  for (const [name, value] of Object.entries(apiError.headers)) lines.push(`${name}: ${value}`);
  lines.push('Content-Type: application/problem+json; charset=utf-8', 'Cache-Control: no-store', `Content-Length: ${length}`, 'Connection: close');
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Wires the parser's errors and `Expect` into the server. */
export function answerProtocolErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way (a timeout mid-response) cannot get a second status line.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const apiError = errorFor(error.code);
    const body = problemBytes(apiError, null);
    // Destroyed once flushed: a client that never reads would otherwise hold a half-closed socket.
    socket.end(Buffer.concat([Buffer.from(headerLines(apiError, body.length), 'latin1'), body]), () => socket.destroy());
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const apiError = expectationFailed();
    const body = problemBytes(apiError, (req.url ?? '').split('?')[0] ?? null);
    res.shouldKeepAlive = false;
    res.writeHead(apiError.status, [
      ...CORS_HEADERS,
      'Content-Type',
      'application/problem+json; charset=utf-8',
      'Cache-Control',
      'no-store',
      'Content-Length',
      String(body.length),
    ]);
    res.end(body);
  });
}
