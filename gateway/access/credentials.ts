// The API key a request carries (docs/api.md §5.2): `Authorization: Bearer <key>` or
// `X-Api-Key: <key>`, and the refusals of everything ambiguous.
import type { Request } from 'express';

export type Credential = { ok: true; key: string } | { ok: false; detail: string };

const MISSING = 'No API key was sent: use Authorization: Bearer <key> or X-Api-Key: <key>.';
const AMBIGUOUS = 'Authorization and X-Api-Key carry different keys; send one key.';
const REPEATED = 'The request carries the key header more than once, with different values; send one key.';
const NOT_BEARER = 'The Authorization header must be "Bearer <key>".';
const BEARER = /^bearer +(\S+)$/i;

/**
 * The key from `Authorization: Bearer` (scheme case-insensitive, RFC 9110 §11.1) or
 * `X-Api-Key`. Both with different values is refused (docs/design.md: never authenticate ambiguous
 * credentials); equal values are fine. An Authorization header of another scheme is refused
 * rather than ignored, for the same reason.
 */
export function credentialOf(req: Request): Credential {
  // Node keeps only the first of repeated Authorization headers in req.headers (and joins repeated
  // X-Api-Key values with ", "), so a second key would go unseen: the raw headers tell.
  if (hasDifferingRepeats(req.rawHeaders, 'authorization') || hasDifferingRepeats(req.rawHeaders, 'x-api-key')) {
    return { ok: false, detail: REPEATED };
  }
  const authorization = req.headers.authorization;
  const apiKey = req.headers['x-api-key'];
  let bearer: string | undefined;
  if (authorization !== undefined) {
    bearer = BEARER.exec(authorization)?.[1];
    if (bearer === undefined) return { ok: false, detail: NOT_BEARER };
  }
  const headerKey = typeof apiKey === 'string' ? apiKey : undefined;
  if (bearer !== undefined && headerKey !== undefined && bearer !== headerKey) return { ok: false, detail: AMBIGUOUS };
  const key = bearer ?? headerKey;
  return key === undefined ? { ok: false, detail: MISSING } : { ok: true, key };
}

/**
 * Whether the header `name` (lower case) was sent more than once with different values, in any
 * case of its name. One pass over the raw name/value list, which is a few entries long; values are
 * compared only when the name repeats.
 */
function hasDifferingRepeats(raw: readonly string[], name: string): boolean {
  let first: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const header = raw[i]!;
    if (header.length !== name.length || header.toLowerCase() !== name) continue;
    const value = raw[i + 1]!;
    if (first === undefined) first = value;
    else if (value !== first) return true;
  }
  return false;
}
