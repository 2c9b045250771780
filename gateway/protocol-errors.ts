// Errors the HTTP parser raises before a request reaches the API, answered like every other error:
// problem+json with CORS headers (so page JavaScript can read `errorCode`) and no-store, rather
// than Node's bodiless 400/408/417/431. Written straight to the socket, because no request object
// exists: an unknown or lower-case method, a malformed request line or header, a header block over
// the limit (431), a request not received within the headers or request timeout (408). `Expect`
// with anything is answered 417 the same way: the API takes no request bodies to continue with.
// Two more that Node would otherwise answer on its own: an HTTP/1.1 request without Host (Node's
// bare 400, RFC 9112 §3.2) and CONNECT (Node closes the connection unanswered; the gateway is no
// proxy, so 405 like any other method it does not serve).
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { CORS_HEADERS } from './access/cors.ts';
import { type ApiError, badRequest, expectationFailed, malformedRequest, methodNotAllowed, requestHeadersTooLarge, requestTimeout } from './errors.ts';
import { problemBytes, problemHeaders } from './problem.ts';

function errorFor(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') return requestHeadersTooLarge();
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return requestTimeout();
  return malformedRequest();
}

/** Every header of an error answer, CORS first, as writeHead takes them. */
function errorHeaders(apiError: ApiError, length: number): string[] {
  return [...CORS_HEADERS, ...problemHeaders(apiError, length)];
}

/** The status line and header block of an error answer written straight to a socket. */
function headerLines(apiError: ApiError, length: number): string {
  const headers = [...errorHeaders(apiError, length), 'Connection', 'close'];
  const lines = [`HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status] ?? ''}`];
  for (let i = 0; i < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
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
    answerOnSocket(socket, errorFor(error.code));
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => answerAndClose(req, res, expectationFailed()));
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => answerOnSocket(socket, methodNotAllowed('GET, HEAD, OPTIONS')));
}

/**
 * Answers 400 an HTTP/1.1 request without Host, when the server was created with
 * `requireHostHeader: false` so that it reaches this; true when it did.
 */
export function rejectMissingHost(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.headers.host !== undefined || req.httpVersion !== '1.1') return false;
  answerAndClose(req, res, badRequest('An HTTP/1.1 request must carry a Host header.'));
  return true;
}

function answerOnSocket(socket: Duplex, apiError: ApiError): void {
  const body = problemBytes(apiError, null);
  // Destroyed once flushed: a client that never reads would otherwise hold a half-closed socket.
  socket.end(Buffer.concat([Buffer.from(headerLines(apiError, body.length), 'latin1'), body]), () => socket.destroy());
}

function answerAndClose(req: IncomingMessage, res: ServerResponse, apiError: ApiError): void {
  const body = problemBytes(apiError, (req.url ?? '').split('?')[0] ?? null);
  res.shouldKeepAlive = false;
  res.writeHead(apiError.status, errorHeaders(apiError, body.length));
  res.end(body);
}
