// The admin port's credential (docs/design.md "Admin API and console"): ADMIN_TOKEN, as a Bearer
// token (scripts) or as the password of HTTP Basic auth with any user name (so a browser can open
// the console and remember it). Compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { ROOT_ACTOR, setActor } from './actor.ts';
import { adminError } from './errors.ts';

/**
 * Both schemes, one WWW-Authenticate header each: a browser shows its password prompt for Basic, a
 * script sees Bearer is accepted. Chromium ignores a Basic challenge followed by `, Bearer` in the
 * same header (the console's browser test found it), so they are never joined.
 */
const CHALLENGE = ['Basic realm="marquee admin"', 'Bearer'];

const unauthorized = () =>
  adminError('UNAUTHORIZED', 'This admin path needs ADMIN_TOKEN, as a Bearer token or as the password of HTTP Basic auth.', {
    'WWW-Authenticate': CHALLENGE,
  });

/** The token offered by an Authorization header, or undefined when it offers none in either scheme. */
export function offeredToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^(\S+)\s+(\S+)\s*$/.exec(authorization);
  if (!match) return undefined;
  const [, scheme, credentials] = match as unknown as [string, string, string];
  if (scheme.toLowerCase() === 'bearer') return credentials;
  if (scheme.toLowerCase() !== 'basic') return undefined;
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? undefined : decoded.slice(colon + 1);
}

/** Equal digests of equal length: the comparison takes the same time whatever is offered. */
function sameToken(offered: string, expected: Buffer): boolean {
  return timingSafeEqual(createHash('sha256').update(offered, 'utf8').digest(), expected);
}

export function requireAdminToken(token: string): RequestHandler {
  const expected = createHash('sha256').update(token, 'utf8').digest();
  return function adminToken(req, res, next) {
    const offered = offeredToken(req.headers.authorization);
    if (offered !== undefined && sameToken(offered, expected)) {
      setActor(res, ROOT_ACTOR);
      return next();
    }
    next(unauthorized());
  };
}
