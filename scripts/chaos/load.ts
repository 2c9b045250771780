// The campaign's steady load: open-loop, `rate` requests a second whatever the answers (a gateway
// that stops answering does not slow the load down), each from the next key of the rotation to a
// route of its organization (scripts/soak/traffic.ts chooses them), the gateways in turn. Now and
// then a revoked key is tried on purpose. Every request is written down as it went (history.ts
// RequestRecord); nothing is judged here: the body's ids are traced to their organizations with
// the platform's id → owner map, for the checkers to read. Every answer's Marquee-Snapshot-Id is
// kept: an unpinned answer names its gateway's current snapshot, which judges the pins of the
// sites (sites.ts) that share the rate with this load.
import { setTimeout as sleep } from 'node:timers/promises';
import type { KeyRing, SoakKey } from '../soak/keys.ts';
import type { SoakPlatform } from '../soak/platform.ts';
import { chooseRequest } from '../soak/traffic.ts';
import { API } from '../../test/support/http-fuzz.ts';
import type { RequestRecord, UsageAnswer } from './history.ts';

/** A request not answered within this is recorded unanswered (a paused gateway, a black hole). */
const REQUEST_TIMEOUT_MS = 15_000;
const REVOKED_PROBE_SHARE = 0.03;
/** The request and response header naming a snapshot (docs/api.md §10). */
const SNAPSHOT_ID_HEADER = 'Marquee-Snapshot-Id';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

export interface LoadOptions {
  rate: number;
  gateways: Array<{ name: string; url: string }>;
  /** Stops sending; requests under way are still recorded. */
  signal: AbortSignal;
}

/** Sends until `signal` aborts; resolves once every request sent is recorded. */
export async function runLoad(platform: SoakPlatform, ring: KeyRing, options: LoadOptions, requests: RequestRecord[]): Promise<void> {
  const underWay = new Set<Promise<void>>();
  const started = performance.now();
  let sent = 0;
  while (!options.signal.aborted) {
    const due = started + (sent * 1000) / options.rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    if (options.signal.aborted) break;
    const gateway = options.gateways[sent % options.gateways.length]!;
    const key = ring.revoked.length > 0 && Math.random() < REVOKED_PROBE_SHARE ? ring.revoked[Math.floor(Math.random() * ring.revoked.length)]! : ring.take();
    sent++;
    const request = send(platform, gateway, key).then((record) => {
      requests.push(record);
    });
    underWay.add(request);
    void request.finally(() => underWay.delete(request));
  }
  await Promise.all(underWay);
}

function send(platform: SoakPlatform, gateway: { name: string; url: string }, key: SoakKey): Promise<RequestRecord> {
  const chosen = chooseRequest(platform, key);
  return sendRecorded(platform, gateway, key, chosen.path, chosen.route).then(({ record }) => record);
}

/**
 * One request as the campaign records it, pinned to `pin` when given (docs/api.md §10), and the
 * body when there was an answer (sites.ts reads more of it). `route`: the soak's name for it
 * ('organization' makes the profile's id read).
 */
export async function sendRecorded(
  platform: SoakPlatform,
  gateway: { name: string; url: string },
  key: SoakKey,
  path: string,
  route: string,
  pin?: string,
): Promise<{ record: RequestRecord; body: string | undefined }> {
  const organization = platform.organizations[key.organization]!;
  const record: RequestRecord = {
    gateway: gateway.name,
    keyId: key.id,
    organizationId: organization.id,
    path,
    ...(pin === undefined ? {} : { pin }),
    sentAt: performance.now(),
    answeredAt: undefined,
    status: undefined,
  };
  try {
    const headers: Record<string, string> = { authorization: `Bearer ${key.secret}`, ...(pin === undefined ? {} : { [SNAPSHOT_ID_HEADER]: pin }) };
    const response = await fetch(`${gateway.url}${path}`, { headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const body = await response.text();
    record.answeredAt = performance.now();
    record.status = response.status;
    const etag = response.headers.get('etag');
    const retryAfter = response.headers.get('retry-after');
    const snapshotId = response.headers.get(SNAPSHOT_ID_HEADER);
    if (etag !== null) record.etag = etag;
    if (retryAfter !== null) record.retryAfter = retryAfter;
    if (snapshotId !== null) record.snapshotId = snapshotId;
    Object.assign(record, readBody(platform, route, response.status, body));
    return { record, body };
  } catch {
    // No answer: refused, reset, or timed out. answeredAt stays undefined.
    return { record, body: undefined };
  }
}

/** An error's errorCode and detail, as its problem body (docs/api.md §7) gives them; nothing for a body that is none. */
export function problemOf(body: string): Pick<RequestRecord, 'errorCode' | 'detail'> {
  let problem: unknown;
  try {
    problem = JSON.parse(body);
  } catch {
    return {};
  }
  const { errorCode, detail } = (problem ?? {}) as { errorCode?: unknown; detail?: unknown };
  return { ...(typeof errorCode === 'string' ? { errorCode } : {}), ...(typeof detail === 'string' ? { detail } : {}) };
}

/** What the checkers read from a body: an error's code and detail, or the organizations a 200's ids belong to. */
function readBody(platform: SoakPlatform, route: string, status: number, body: string): Pick<RequestRecord, 'errorCode' | 'detail' | 'bodyOrganizations' | 'profileOf'> {
  if (status !== 200) return problemOf(body);
  const owners = new Set<string>();
  for (const [id] of body.matchAll(UUID)) {
    const owner = platform.owners.get(id.toLowerCase());
    owners.add(owner === undefined ? `unknown:${id}` : platform.organizations[owner]!.id);
  }
  const result: ReturnType<typeof readBody> = { bodyOrganizations: [...owners] };
  if (route === 'organization') {
    try {
      result.profileOf = String((JSON.parse(body) as { id?: unknown }).id);
    } catch {
      result.profileOf = 'not JSON';
    }
  }
  return result;
}

/**
 * Every key asked once for its organization at every gateway, a few at a time; how many were asked.
 * Not in the history's requests, but each answer is in `answers`: its gateway counts it in the key's usage.
 */
export async function warmUp(gateways: Array<{ name: string; url: string }>, keys: readonly SoakKey[], answers: UsageAnswer[]): Promise<number> {
  const pairs = gateways.flatMap((gateway) => keys.map((key) => ({ gateway, key })));
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < pairs.length) {
        const { gateway, key } = pairs[next++]!;
        answers.push((await askCounted(gateway, key, `${API}/organization`, REQUEST_TIMEOUT_MS)).answer);
      }
    }),
  );
  return pairs.length;
}

/** One request whose answer matters only to usage per key: what its gateway would count it as (history.ts UsageAnswer), and the ETag. */
export async function askCounted(
  gateway: { name: string; url: string },
  key: { id: string; secret: string },
  path: string,
  timeoutMs: number,
): Promise<{ answer: UsageAnswer; etag: string | undefined }> {
  const sentAt = performance.now();
  try {
    const response = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${key.secret}` }, signal: AbortSignal.timeout(timeoutMs) });
    const body = await response.text();
    const problem = response.status >= 400 ? problemOf(body) : {};
    return {
      answer: { gateway: gateway.name, keyId: key.id, sentAt, answeredAt: performance.now(), status: response.status, ...problem },
      etag: response.headers.get('etag') ?? undefined,
    };
  } catch {
    return { answer: { gateway: gateway.name, keyId: key.id, sentAt, answeredAt: undefined, status: undefined }, etag: undefined };
  }
}
