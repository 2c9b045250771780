// The one place an admin request's error becomes its answer: RFC 7807 application/problem+json
// with an errorCode, as on the public API. An operator's mistake that a shared module reports as
// an OperatorError (keys/key-admin.ts's KeyCommandError, history's missing snapshot) is a 4xx carrying its
// message, which names the thing; anything else is our fault: 500, and one log line with the stack.
import type { ErrorRequestHandler } from 'express';
import { OperatorError } from '../snapshot/errors.ts';
import type { Log } from '../snapshot/log.ts';
import { StoreUnavailableError } from '../snapshot/store.ts';
import { AdminError } from './errors.ts';

const PROBLEM_TYPE_BASE = 'https://marquee.example/problems/';

/** OperatorErrors of the shared modules that mean "no such thing", by name (history's is not exported). */
const NOT_FOUND_NAMES = new Set(['SnapshotNotFoundError']);
/** OperatorErrors that mean a backend is down, not that the request was wrong. */
const UNAVAILABLE_NAMES = new Set(['PlatformDatabaseError']);

export function adminProblemHandler({ log }: { log: Log }): ErrorRequestHandler {
  return function adminProblem(error: unknown, req, res, next) {
    const problem = asAdminError(error);
    if (problem === undefined) log.error('admin request failed', { method: req.method, path: req.path, err: error });
    if (res.headersSent) return next(error);
    const answer = problem ?? new AdminError(500, 'INTERNAL_ERROR', 'Internal error', 'The admin request failed; the reason is in the log.');
    const body = {
      type: PROBLEM_TYPE_BASE + answer.errorCode.toLowerCase().replaceAll('_', '-'),
      title: answer.title,
      status: answer.status,
      detail: answer.detail,
      instance: req.originalUrl.split('?')[0] ?? null,
      errorCode: answer.errorCode,
    };
    res.status(answer.status).set(answer.headers).set('Cache-Control', 'no-store').type('application/problem+json').send(JSON.stringify(body));
  };
}

function asAdminError(error: unknown): AdminError | undefined {
  if (error instanceof AdminError) return error;
  if (error instanceof OperatorError) {
    if (NOT_FOUND_NAMES.has(error.name)) return new AdminError(404, 'SNAPSHOT_NOT_FOUND', 'Not found', error.message);
    if (UNAVAILABLE_NAMES.has(error.name)) return new AdminError(503, 'SERVICE_UNAVAILABLE', 'Service unavailable', error.message, { 'Retry-After': '5' });
    return new AdminError(400, 'BAD_REQUEST', 'Bad request', error.message);
  }
  if (causedBy(error, StoreUnavailableError)) {
    return new AdminError(503, 'SERVICE_UNAVAILABLE', 'Service unavailable', 'The snapshot store cannot be reached right now; try again shortly.', { 'Retry-After': '5' });
  }
  // express.json()'s refusals (malformed JSON, too large) carry their status.
  const status = (error as { status?: unknown; type?: unknown } | undefined)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500 && typeof (error as { type?: unknown }).type === 'string') {
    return new AdminError(status, 'BAD_REQUEST', 'Bad request', `the request body could not be read: ${(error as Error).message}`);
  }
  return undefined;
}

function causedBy(error: unknown, type: new (...args: never[]) => Error): boolean {
  const seen = new Set<unknown>();
  for (let current: unknown = error; current instanceof Error && !seen.has(current); current = (current as Error).cause) {
    if (current instanceof type) return true;
    seen.add(current);
  }
  return false;
}
