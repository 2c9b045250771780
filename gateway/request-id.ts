// The request id (X-Request-Id) of every gateway response: the one a client or proxy sent when it
// is sane, otherwise a new one. It is in every problem body's `instance` and on every log line
// about the request, so a client's report and an operator's log meet on it.
import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * What a sent id may be: short, and only characters that are safe in a header, a log line and a
 * URI fragment. Anything else (a repeated header, which Node joins with ", ", included) is
 * replaced, never echoed: the id goes back to the client and into the logs.
 */
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/**
 * An API key (records/keys/format.ts: mqk_…) is made of those characters too, and a confused
 * client may send one as its request id: it would be logged with every failure, so it is replaced.
 */
const KEY_LIKE = /mqk_/i;

/**
 * The sent id when sane, else a random UUID: unguessable and unique across processes, and about
 * 0.1 µs (Node draws UUIDs from a cached batch of random bytes). A per-process counter would be
 * cheaper still but would tell every client how many requests the gateway served between two of
 * its own, other organizations' included.
 */
export function requestIdFor(sent: string | string[] | undefined): string {
  return typeof sent === 'string' && SANE_ID.test(sent) && !KEY_LIKE.test(sent) ? sent : randomUUID();
}
