// The one error type of the admin API: what an operator's request got wrong, with the status and
// errorCode of its problem+json answer (admin/problem.ts is the only place that answers one,
// written as every problem is: snapshot/problem.ts).
import { HttpProblem } from '../snapshot/problem.ts';

/**
 * Each error code with the status and title it is answered with: read by every answer (adminError)
 * and by the admin API's OpenAPI document (admin/api-document.ts), so the two cannot disagree.
 */
export const ADMIN_ERRORS = {
  BAD_REQUEST: { status: 400, title: 'Bad request' },
  UNAUTHORIZED: { status: 401, title: 'Unauthorized' },
  ADMIN_FORBIDDEN: { status: 403, title: 'Forbidden for this role' },
  /** The console's alone: a form that is not the console's own (another site's, a token missing or stale); no API route answers it. */
  FORM_REFUSED: { status: 403, title: 'Form refused' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  ORGANIZATION_NOT_FOUND: { status: 404, title: 'Organization not found' },
  KEY_NOT_FOUND: { status: 404, title: 'Key not found' },
  SNAPSHOT_NOT_FOUND: { status: 404, title: 'Not found' },
  BUILD_NOT_FOUND: { status: 404, title: 'Build not found' },
  WEBHOOK_NOT_FOUND: { status: 404, title: 'Webhook endpoint not found' },
  MESSAGE_NOT_FOUND: { status: 404, title: 'Webhook message not found' },
  ADMIN_NOT_FOUND: { status: 404, title: 'Admin credential not found' },
  VERIFICATION_NOT_FOUND: { status: 404, title: 'Verification not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  ADMIN_NAME_TAKEN: { status: 409, title: 'Admin credential name taken' },
  HISTORY_BROKEN: { status: 409, title: 'History does not verify' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  /** Too many failed logins from the client's address (login-throttle.ts). */
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type AdminErrorCode = keyof typeof ADMIN_ERRORS;

/** Its detail is meant for the operator: it names the thing at fault. A list header value is sent as that many headers (a browser reads one challenge per WWW-Authenticate). */
export class AdminError extends HttpProblem<AdminErrorCode> {
  override name = 'AdminError';
}

/** The answer for `code`, with its status and title from ADMIN_ERRORS. */
export function adminError(code: AdminErrorCode, detail: string, headers?: Readonly<Record<string, string | readonly string[]>>): AdminError {
  const { status, title } = ADMIN_ERRORS[code];
  return new AdminError(status, code, title, detail, headers);
}

export const badRequest = (detail: string) => adminError('BAD_REQUEST', detail);
export const organizationNotFound = (idOrSlug: string) => adminError('ORGANIZATION_NOT_FOUND', `no organization with id or slug ${JSON.stringify(idOrSlug)}`);
export const keyNotFound = (keyId: string) => adminError('KEY_NOT_FOUND', `no key has the id ${JSON.stringify(keyId)}`);
export const buildNotFound = (runId: string) => adminError('BUILD_NOT_FOUND', `no build run ${JSON.stringify(runId)} among the runs this process keeps`);
export const notFound = () => adminError('NOT_FOUND', 'No admin resource at this path.');
