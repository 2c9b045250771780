// The one error type of the admin API: what an operator's request got wrong, with the status and
// errorCode of its problem+json answer (admin/problem.ts is the only place that answers one,
// written as every problem is: snapshot/problem.ts).
import { HttpProblem } from '../snapshot/problem.ts';

export type AdminErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'ORGANIZATION_NOT_FOUND'
  | 'KEY_NOT_FOUND'
  | 'SNAPSHOT_NOT_FOUND'
  | 'BUILD_NOT_FOUND'
  | 'WEBHOOK_NOT_FOUND'
  | 'MESSAGE_NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE';

/** Its detail is meant for the operator: it names the thing at fault. A list header value is sent as that many headers (a browser reads one challenge per WWW-Authenticate). */
export class AdminError extends HttpProblem<AdminErrorCode> {
  override name = 'AdminError';
}

export const badRequest = (detail: string) => new AdminError(400, 'BAD_REQUEST', 'Bad request', detail);
export const organizationNotFound = (idOrSlug: string) =>
  new AdminError(404, 'ORGANIZATION_NOT_FOUND', 'Organization not found', `no organization with id or slug ${JSON.stringify(idOrSlug)}`);
export const keyNotFound = (keyId: string) => new AdminError(404, 'KEY_NOT_FOUND', 'Key not found', `no key has the id ${JSON.stringify(keyId)}`);
export const buildNotFound = (runId: string) =>
  new AdminError(404, 'BUILD_NOT_FOUND', 'Build not found', `no build run ${JSON.stringify(runId)} among the runs this process keeps`);
export const notFound = () => new AdminError(404, 'NOT_FOUND', 'Not found', 'No admin resource at this path.');
