// The one place an admin request's error becomes its answer: problem+json with an errorCode, as
// on the public API (snapshot/problem.ts writes both). An operator's mistake that a shared module
// reports as an OperatorError (keys/key-admin.ts's KeyCommandError, a snapshot history has not)
// is a 4xx carrying its message, which names the thing; a backend that cannot be reached is a
// 503; anything else is our fault: 500, and one log line with the stack.
import type { ErrorRequestHandler } from 'express';
import { SnapshotNotFoundError } from '../builder/history/history.ts';
import { HistoryBreakError } from './snapshot-admin.ts';
import { OrganizationNotFoundError } from '../builder/platform/organizations.ts';
import { DatabaseTimeoutError, PlatformDatabaseError } from '../records/database/sql.ts';
import { OperatorError } from '../runtime/errors.ts';
import type { Log } from '../runtime/log.ts';
import { causedBy, sendProblem } from '../snapshot/problem.ts';
import { StoreUnavailableError } from '../snapshot/store.ts';
import { AdminCredentialNotFoundError, AdminNameTakenError } from './credentials/credential-admin.ts';
import { ADMIN_ERRORS, AdminError, adminError, keyNotFound, organizationNotFound } from './errors.ts';
import { KeyNotFoundError } from './keys/key-admin.ts';
import { WebhookMessageNotFoundError, WebhookNotFoundError } from './webhook-admin.ts';

const RETRY_AFTER = { 'Retry-After': '5' };

export function adminProblemHandler({ log }: { log: Log }): ErrorRequestHandler {
  return function adminProblem(error: unknown, req, res, next) {
    const problem = adminProblemOf(error);
    if (problem === undefined) log.error('admin request failed', { method: req.method, path: req.path, err: error });
    if (res.headersSent) return next(error);
    const answer = problem ?? adminError('INTERNAL_ERROR', 'The admin request failed; the reason is in the log.');
    sendProblem(res, answer, req.originalUrl.split('?')[0] ?? null);
  };
}

/**
 * What an operator is told of an error, by the admin API (as problem+json) and the console (as a
 * page): undefined for our own faults, which get a 500 and a log line.
 */
export function adminProblemOf(error: unknown): AdminError | undefined {
  if (error instanceof AdminError) return error;
  // Named without the database: the CLI's message says where it looked, an API answer need not.
  if (error instanceof OrganizationNotFoundError) return organizationNotFound(error.idOrSlug);
  if (error instanceof KeyNotFoundError) return keyNotFound(error.keyId);
  if (error instanceof SnapshotNotFoundError) return adminError('SNAPSHOT_NOT_FOUND', error.message);
  if (error instanceof HistoryBreakError) return adminError('HISTORY_BROKEN', error.message);
  if (error instanceof WebhookNotFoundError) return adminError('WEBHOOK_NOT_FOUND', error.message);
  if (error instanceof WebhookMessageNotFoundError) return adminError('MESSAGE_NOT_FOUND', error.message);
  if (error instanceof AdminCredentialNotFoundError) return adminError('ADMIN_NOT_FOUND', error.message);
  if (error instanceof AdminNameTakenError) return adminError('ADMIN_NAME_TAKEN', error.message);
  // start's embedded database held by another client, or restarting after a statement overran
  // (records/database/embedded-supervisor.ts): answered within seconds, never left hanging.
  if (error instanceof DatabaseTimeoutError) return adminError('SERVICE_UNAVAILABLE', error.message, RETRY_AFTER);
  // The platform database is down or not set up: not the request's fault.
  if (error instanceof PlatformDatabaseError) return adminError('SERVICE_UNAVAILABLE', error.message, RETRY_AFTER);
  if (error instanceof OperatorError) return adminError('BAD_REQUEST', error.message);
  if (causedBy(error, StoreUnavailableError)) {
    return adminError('SERVICE_UNAVAILABLE', 'The snapshot store cannot be reached right now; try again shortly.', RETRY_AFTER);
  }
  // express.json()'s refusals (malformed JSON, too large) carry their status: 413 for a body too
  // large is still a BAD_REQUEST, with the status HTTP has for it.
  const status = (error as { status?: unknown; type?: unknown } | undefined)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500 && typeof (error as { type?: unknown }).type === 'string') {
    return new AdminError(status, 'BAD_REQUEST', ADMIN_ERRORS.BAD_REQUEST.title, `the request body could not be read: ${(error as Error).message}`);
  }
  return undefined;
}
