// Errors the HTTP parser raises before a request reaches the API, answered like every other error:
// problem+json with CORS headers (so page JavaScript can read `errorCode`) and no-store, rather
// than Node's bodiless 400/408/417/431. Written straight to the socket, because no request object
// exists: an unknown or lower-case method, a malformed request line or header, a header block over
// the limit (431), a request not received within the headers or request timeout (408). `Expect`
// with anything is answered 417 the same way: the API takes no request bodies to continue with.
// Two more that Node would otherwise answer on its own: an HTTP/1.1 request without Host (Node's
// bare 400, RFC 9112 §3.2) and CONNECT (Node closes the connection unanswered; the gateway is no
// proxy, so 405 like any other method it does not serve). Each answer carries a request id like
// every other (X-Request-Id and `instance`), and is counted in the metrics under the route
// `protocol`; none is logged, being the client's error (gateway/problem.ts says why).
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { STANDING_HEADERS } from './standing-headers.ts';
import { type ApiError, badRequest, expectationFailed, malformedRequest, methodNotAllowed, requestHeadersTooLarge, requestTimeout } from './errors.ts';
import type { GatewayMetrics } from './metrics.ts';
import { problemBytes, problemHeaders } from '../snapshot/problem.ts';
import { problemInstance } from './problem.ts';
import { REQUEST_ID_HEADER, requestIdFor } from './request-id.ts';
import { PROTOCOL } from './route-label.ts';

function errorFor(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') return requestHeadersTooLarge();
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return requestTimeout();
  return malformedRequest();
}

/** Every header of an error answer, the standing ones (CORS, nosniff) first, as writeHead takes them. */
function errorHeaders(apiError: ApiError, requestId: string, length: number): string[] {
  return [...STANDING_HEADERS, REQUEST_ID_HEADER, requestId, ...problemHeaders(apiError, length)];
}

/** The status line and header block of an error answer written straight to a socket. */
function headerLines(apiError: ApiError, requestId: string, length: number): string {
  const headers = [...errorHeaders(apiError, requestId, length), 'Connection', 'close'];
  const lines = [`HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status] ?? ''}`];
  for (let i = 0; i < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Wires the parser's errors and `Expect` into the server; `metrics` counts the answers. */
export function answerProtocolErrors(server: Server, metrics?: GatewayMetrics): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way (a timeout mid-response) cannot get a second status line.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    answerOnSocket(socket, errorFor(error.code), metrics);
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => answerAndClose(req, res, expectationFailed(), metrics));
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => answerOnSocket(socket, methodNotAllowed('GET, HEAD, OPTIONS'), metrics));
}

/**
 * Answers 400 an HTTP/1.1 request without Host, when the server was created with
 * `requireHostHeader: false` so that it reaches this; true when it did.
 */
export function rejectMissingHost(req: IncomingMessage, res: ServerResponse, metrics?: GatewayMetrics): boolean {
  if (req.headers.host !== undefined || req.httpVersion !== '1.1') return false;
  answerAndClose(req, res, badRequest('An HTTP/1.1 request must carry a Host header.'), metrics);
  return true;
}

/** No request was parsed, so no id was sent: always a new one. */
function answerOnSocket(socket: Duplex, apiError: ApiError, metrics: GatewayMetrics | undefined): void {
  const requestId = requestIdFor(undefined);
  const body = problemBytes(apiError, problemInstance(null, requestId));
  // Destroyed once flushed: a client that never reads would otherwise hold a half-closed socket.
  socket.end(Buffer.concat([Buffer.from(headerLines(apiError, requestId, body.length), 'latin1'), body]), () => socket.destroy());
  metrics?.served(PROTOCOL, apiError.status, undefined);
}

function answerAndClose(req: IncomingMessage, res: ServerResponse, apiError: ApiError, metrics: GatewayMetrics | undefined): void {
  const requestId = requestIdFor(req.headers['x-request-id']);
  const body = problemBytes(apiError, problemInstance((req.url ?? '').split('?')[0] ?? null, requestId));
  res.shouldKeepAlive = false;
  res.writeHead(apiError.status, errorHeaders(apiError, requestId, body.length));
  res.end(body);
  metrics?.served(PROTOCOL, apiError.status, undefined);
}
