// Problem details (RFC 9457, application/problem+json): the one way both HTTP surfaces — the
// public API (gateway/problem.ts) and the admin port (admin/problem.ts) — answer an error, with
// docs/api.md §7's fields plus `errorCode`. This module writes the body and the headers and walks
// an error's causes; each surface keeps only its policy (which errors it shows, what it logs and
// counts). It lives here, below both, because a problem body is part of the contract both sides
// share (schemas/problem-details.schema.json).
import type { ServerResponse } from 'node:http';
import { canonicalJson } from './canonical.ts';
import { keyOrderOf } from './key-order.ts';
import type { ProblemDetails } from './schema-types.ts';

/** `type` URIs name the errorCode, so a client can branch on either (docs/api.md §7). */
const PROBLEM_TYPE_BASE = 'https://marquee.example/problems/';
const PROBLEM_ORDER = keyOrderOf('problem-details');

/**
 * An error a client is shown as it is: its status, errorCode and title, and a detail written for
 * whoever sent the request (never an internal message). Each surface narrows the codes it uses.
 */
export class HttpProblem<Code extends string = string> extends Error {
  override name = 'HttpProblem';

  constructor(
    readonly status: number,
    readonly errorCode: Code,
    readonly title: string,
    /** Safe to show the client: it names what was wrong with the request, never our internals. */
    readonly detail: string,
    /** Extra response headers (Retry-After, Allow, rate-limit headers); a list is sent as that many headers. */
    readonly headers: Readonly<Record<string, string | readonly string[]>> = {},
    /** Members the problem's type adds to the body (RFC 9457 §3.2), each listed in schemas/problem-details.schema.json. */
    readonly extensions: Readonly<Pick<ProblemDetails, 'currentSnapshotId'>> = {},
  ) {
    super(`${errorCode}: ${detail}`);
  }
}

/** The problem+json body; `instance` is the path asked for (or null), as the surface writes it. */
export function problemBytes(problem: HttpProblem, instance: string | null): Buffer {
  const body: ProblemDetails = {
    type: PROBLEM_TYPE_BASE + problem.errorCode.toLowerCase().replaceAll('_', '-'),
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    instance,
    errorCode: problem.errorCode,
    ...problem.extensions,
  };
  return Buffer.from(canonicalJson(body, PROBLEM_ORDER), 'utf8');
}

const PROBLEM_MEDIA_TYPE = 'application/problem+json; charset=utf-8';

/**
 * The headers of a problem answer, besides those set before it (CORS, a request id): its media
 * type, no-store (an error is no representation to cache), its own headers (a list is sent as that
 * many headers) and the length.
 */
function headersOf(problem: HttpProblem, length: number): Array<readonly [string, string | readonly string[]]> {
  return [['Content-Type', PROBLEM_MEDIA_TYPE], ['Cache-Control', 'no-store'], ...Object.entries(problem.headers), ['Content-Length', String(length)]];
}

/**
 * Answers with the problem: its status, its headers (set on the response, so those set before
 * stay) and the body (Node sends none for HEAD; the headers match GET's).
 */
export function sendProblem(res: ServerResponse, problem: HttpProblem, instance: string | null): void {
  const bytes = problemBytes(problem, instance);
  res.statusCode = problem.status;
  for (const [name, value] of headersOf(problem, bytes.length)) res.setHeader(name, value as string | string[]);
  res.end(bytes);
}

/** The same headers as name/value pairs, for a response written without a ServerResponse (gateway/protocol-errors.ts writes to the socket). */
export function problemHeaders(problem: HttpProblem, length: number): string[] {
  return headersOf(problem, length).flatMap(([name, value]) => (typeof value === 'string' ? [name, value] : value.flatMap((one) => [name, one])));
}

/** Whether `error` is a `type`, or was caused by one (a wrapper adding context keeps it as its cause). */
export function causedBy(error: unknown, type: abstract new (...args: never[]) => Error): boolean {
  const seen = new Set<unknown>();
  for (let current: unknown = error; current instanceof Error && !seen.has(current); current = (current as Error).cause) {
    if (current instanceof type) return true;
    seen.add(current);
  }
  return false;
}
