// The API key a request carries (docs/api.md §5.2): `Authorization: Bearer <key>` or
// `X-Api-Key: <key>`, and the refusals of everything ambiguous.
import type { Request } from 'express';

export type Credential = { ok: true; key: string } | { ok: false; detail: string };

const MISSING = 'No API key was sent: use Authorization: Bearer <key> or X-Api-Key: <key>.';
const AMBIGUOUS = 'Authorization and X-Api-Key carry different keys; send one key.';
const NOT_BEARER = 'The Authorization header must be "Bearer <key>".';
const BEARER = /^bearer +(\S+)$/i;

/**
 * The key from `Authorization: Bearer` (scheme case-insensitive, RFC 9110 §11.1) or
 * `X-Api-Key`. Both with different values is refused (docs/design.md: never authenticate ambiguous
 * credentials); equal values are fine. An Authorization header of another scheme is refused
 * rather than ignored, for the same reason.
 */
export function credentialOf(req: Request): Credential {
  const authorization = req.headers.authorization;
  const apiKey = req.headers['x-api-key'];
  let bearer: string | undefined;
  if (authorization !== undefined) {
    bearer = BEARER.exec(authorization)?.[1];
    if (bearer === undefined) return { ok: false, detail: NOT_BEARER };
  }
  // Node joins repeated X-Api-Key headers with ", ", which then fails the key format.
  const headerKey = typeof apiKey === 'string' ? apiKey : undefined;
  if (bearer !== undefined && headerKey !== undefined && bearer !== headerKey) return { ok: false, detail: AMBIGUOUS };
  const key = bearer ?? headerKey;
  return key === undefined ? { ok: false, detail: MISSING } : { ok: true, key };
}
