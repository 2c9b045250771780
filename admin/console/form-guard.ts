// No other site can make an operator's browser change anything (docs/design.md "Admin API and
// console"): every console form carries a token derived from the credentials the page was
// opened with, and a POST must come from the console's own origin. The browser resends HTTP
// Basic credentials on any site's form post; it does not let that site read the token or forge
// `Origin` and `Sec-Fetch-Site`.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

export interface FormGuard {
  /** The token the forms of a page opened by `req` carry. */
  tokenFor(req: Request): string;
  /** Why a form POST is refused, or undefined when it is the console's own. */
  refusal(req: Request): string | undefined;
}

/** `secret`: a per-process secret by default, so a token dies with the process that issued it. */
export function createFormGuard(secret: Buffer = randomBytes(32)): FormGuard {
  // Bound to the Authorization header: a token seen with one credential is worthless with another.
  const tokenFor = (req: Request) =>
    createHmac('sha256', secret)
      .update(req.headers.authorization ?? '')
      .digest('base64url');
  return {
    tokenFor,
    refusal(req) {
      const origin = originRefusal(req);
      if (origin) return origin;
      const sent = (req.body as Record<string, unknown> | undefined)?._csrf;
      if (typeof sent !== 'string' || !sameText(sent, tokenFor(req))) return 'the form has no valid CSRF token (open the page again and resubmit)';
      return undefined;
    },
  };
}

function originRefusal(req: Request): string | undefined {
  const site = req.get('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin' ? undefined : `the form was sent from another site (Sec-Fetch-Site: ${site})`;
  const origin = req.get('origin');
  if (origin === undefined) return 'the form was sent without an Origin header';
  const own = `${req.protocol}://${req.get('host') ?? ''}`;
  return origin === own ? undefined : `the form was sent from ${origin}, not from ${own}`;
}

function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}
