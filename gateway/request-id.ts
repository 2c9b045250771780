// The request id (X-Request-Id) of every gateway response: the one a client or proxy sent when it
// is sane, otherwise a new one. It is in every problem body's `instance` and on every log line
// about the request, so a client's report and an operator's log meet on it.
import { randomFillSync } from 'node:crypto';

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
 * The sent id when sane, else a new random UUID (version 4): unguessable and unique across
 * processes. A per-process counter would be cheaper still but would tell every client how many
 * requests the gateway served between two of its own, other organizations' included.
 */
export function requestIdFor(sent: string | string[] | undefined): string {
  return typeof sent === 'string' && SANE_ID.test(sent) && !KEY_LIKE.test(sent) ? sent : newRequestId();
}

/** Random bytes for this many ids are drawn at a time: one call into the CSPRNG per 256 requests. */
const IDS_PER_DRAW = 256;
const random = Buffer.alloc(16 * IDS_PER_DRAW);
let used = random.length;
const text = Buffer.alloc(36);
const HEX = Buffer.from('0123456789abcdef', 'latin1');

/**
 * A UUID v4 written into one buffer and read out as one string. crypto.randomUUID joins twenty
 * short strings per id, about 600 bytes of garbage: on the hot path, where every request that
 * sends no id gets one, that was a visible share of the collector's work.
 */
function newRequestId(): string {
  if (used === random.length) {
    randomFillSync(random);
    used = 0;
  }
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = 0x2d;
    let byte = random[used + i]!;
    // The version (4) and the RFC 9562 variant.
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    text[at++] = HEX[byte >> 4]!;
    text[at++] = HEX[byte & 0x0f]!;
  }
  used += 16;
  return text.toString('latin1');
}
