// The admin port's credentials (docs/design.md "Admin API and console", "Who did what"):
// ADMIN_TOKEN, the break-glass owner `root`, or a named admin credential (`mqa_…`, with its role),
// either as a Bearer token (scripts) or as the password of HTTP Basic auth with any user name (so a
// browser can open the console and remember it). The check sets the request's actor; what the
// actor's role may do is decided by the route (api-routes.ts, the console's declarations).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { type Actor, ROOT_ACTOR } from '../records/actor.ts';
import { type LoginThrottle, unauthorized } from './login-throttle.ts';
import { setActor } from './request-actor.ts';

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

/** The actor a named credential's secret stands for now; undefined when none (admin/credentials/credential-admin.ts). */
export type CredentialCheck = (secret: string) => Promise<Actor | undefined>;

/**
 * ADMIN_TOKEN first (no I/O); then, when the process keeps named credentials (`named`: builder and
 * start, which hold the platform database), a look-up of the offered secret. A look-up that fails
 * (database down) is answered as such, not as a wrong credential. Failures go to `failures`
 * (login-throttle.ts), which answers a wrong credential 401, or 429 once its address sent too many;
 * it is asked only once the credential is known to be wrong, so a valid one always gets in.
 */
export function requireAdminCredential({ token, named, failures }: { token: string; named?: CredentialCheck; failures?: LoginThrottle }): RequestHandler {
  const expected = createHash('sha256').update(token, 'utf8').digest();
  return async function adminCredential(req, res, next) {
    const offered = offeredToken(req.headers.authorization);
    if (offered === undefined) {
      failures?.missing();
      return next(unauthorized());
    }
    if (sameToken(offered, expected)) {
      setActor(res, ROOT_ACTOR);
      return next();
    }
    const actor = await named?.(offered);
    if (actor === undefined) return next(failures?.wrong(req, res) ?? unauthorized());
    setActor(res, actor);
    next();
  };
}
