// One attempt at one delivery (docs/design.md "Webhooks", delivery): a POST of the message's exact
// bytes with the Standard Webhooks headers, signed now; success is a 2xx within the timeout. No
// redirect is followed (a 3xx is a failure: the receiver is misconfigured, and following would let
// it send us anywhere), the connection goes only to a public address (destinations.ts), and at most
// RESPONSE_READ_BYTES of the answer are read before the connection is cut, so a hostile receiver
// can cost a builder neither time nor memory.
import { Agent, type Dispatcher } from 'undici';
import { describeError } from '../../runtime/errors.ts';
import { checkAddressHost, type DestinationPolicy, parseDestination, publicLookup } from './destinations.ts';
import { signatureHeader } from './signatures.ts';
import type { AttemptRecord, ClaimedDelivery } from './webhook-store.ts';

/** A receiver has this long to answer in full. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Of a response, this much is read; the rest is cut off. */
const RESPONSE_READ_BYTES = 64 * 1024;

export interface Attempt extends AttemptRecord {
  delivered: boolean;
}

/** The agent deliveries go through: resolves only to public addresses, one connection per receiver at a time is plenty. */
export function deliveryAgent(policy: DestinationPolicy): Agent {
  return new Agent({
    connect: { lookup: publicLookup(policy), timeout: DELIVERY_TIMEOUT_MS },
    headersTimeout: DELIVERY_TIMEOUT_MS,
    bodyTimeout: DELIVERY_TIMEOUT_MS,
    connections: 4,
  });
}

/** Never throws: every way an attempt can fail is an attempt record saying which. */
export async function attemptDelivery(agent: Dispatcher, policy: DestinationPolicy, delivery: ClaimedDelivery, now: () => number = Date.now): Promise<Attempt> {
  const started = performance.now();
  const took = () => performance.now() - started;
  let url: URL;
  try {
    url = parseDestination(delivery.url, policy);
    checkAddressHost(url, policy);
  } catch (error) {
    return { delivered: false, status: null, error: describeError(error), durationMs: took(), response: null };
  }
  const timestamp = Math.floor(now() / 1000);
  const signal = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  try {
    const response = await agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Marquee-Webhooks/1',
        'webhook-id': delivery.messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(delivery.secrets, delivery.messageId, timestamp, delivery.body),
      },
      body: delivery.body,
      signal,
    });
    const text = await readBounded(response.body);
    const status = response.statusCode;
    const delivered = status >= 200 && status < 300;
    const error = delivered ? null : status >= 300 && status < 400 ? `answered ${status} (redirects are not followed)` : `answered ${status}`;
    return { delivered, status, error, durationMs: took(), response: text };
  } catch (error) {
    const why = signal.aborted ? `no complete answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : describeError(error);
    return { delivered: false, status: null, error: why, durationMs: took(), response: null };
  }
}

/** Reads up to RESPONSE_READ_BYTES as text and cuts the rest off. */
async function readBounded(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    const bytes = chunk as Buffer;
    chunks.push(bytes.subarray(0, RESPONSE_READ_BYTES - length));
    length += bytes.length;
    if (length >= RESPONSE_READ_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
