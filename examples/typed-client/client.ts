// A typed client for the integration API, for an organization site's server (a Next.js server
// component or route handler, an Express handler, any Node 18+ code). Copy this file and
// `api.d.ts` into your project:
//
//   npm install openapi-fetch
//   npx openapi-typescript https://<gateway>/openapi.json -o api.d.ts
//
// Keep the key on the server: a key without allowed origins is refused from a browser anyway.
import createClient from 'openapi-fetch';
import type { components, paths } from './api.d.ts';

export type Organization = components['schemas']['Organization'];
export type EventSummary = components['schemas']['EventSummary'];
export type Changes = components['schemas']['Changes'];

/** One client per gateway and key, e.g. createMarqueeClient('https://api.example.org', process.env.MARQUEE_KEY!). */
export function createMarqueeClient(gatewayUrl: string, apiKey: string) {
  return createClient<paths>({
    baseUrl: `${gatewayUrl.replace(/\/+$/, '')}/api/integration/v1`,
    headers: { Authorization: `Bearer ${apiKey}` },
  });
}

export type MarqueeClient = ReturnType<typeof createMarqueeClient>;

/** A non-2xx answer. Branch on `errorCode` (API_KEY_INVALID, RATE_LIMITED, EVENT_NOT_FOUND, …). */
export class MarqueeError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string | undefined,
  ) {
    super(`integration API answered ${status} ${errorCode ?? ''}`.trimEnd());
  }
}

/**
 * The body of a 200, or a MarqueeError. openapi-fetch types `error` as the documented problem
 * body, but it holds whatever came back: '' for a 304, plain text from a proxy's error page.
 */
function unwrap<T>({ data, error, response }: { data?: T; error?: unknown; response: Response }): T {
  if (data !== undefined) return data;
  const errorCode = typeof error === 'object' && error !== null && 'errorCode' in error ? String(error.errorCode) : undefined;
  throw new MarqueeError(response.status, errorCode);
}

/** What a home page needs: the organization and its next ten events. */
export async function loadHomePage(client: MarqueeClient): Promise<{ organization: Organization; upcoming: EventSummary[]; totalUpcoming: number }> {
  const [organization, events] = await Promise.all([
    client.GET('/organization').then(unwrap),
    client.GET('/events', { params: { query: { timing: 'upcoming', pageSize: 10 } } }).then(unwrap),
  ]);
  return { organization, upcoming: events.items, totalUpcoming: events.totalCount };
}

/** A body kept with its ETag, to revalidate instead of downloading it again. */
export interface Cached<T> {
  etag: string;
  body: T;
}

/**
 * Conditional revalidation: send the kept ETag in If-None-Match. 304 (no body) means unchanged:
 * keep the cached body. 200 brings the new body and its new ETag. Works for every GET, e.g.
 *   revalidate(cached, (etag) => client.GET('/organization', { params: { header: { 'If-None-Match': etag } } }))
 */
export async function revalidate<T>(
  cached: Cached<T> | undefined,
  get: (ifNoneMatch: string | undefined) => Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<Cached<T> & { status: 'unchanged' | 'updated' }> {
  const answer = await get(cached?.etag);
  // openapi-fetch does not count 304 as success: `data` is undefined and `error` is ''.
  if (answer.response.status === 304 && cached) return { ...cached, status: 'unchanged' };
  return { etag: answer.response.headers.get('ETag') ?? '', body: unwrap(answer), status: 'updated' };
}

/** The organization, revalidated against what the site already has (if anything). */
export function fetchOrganization(client: MarqueeClient, cached?: Cached<Organization>) {
  return revalidate(cached, (etag) => client.GET('/organization', { params: { header: { 'If-None-Match': etag } } }));
}

/**
 * What changed since the snapshot the site last synced: `since` is the `snapshotId` of the last
 * answer; without it, every path with its ETag (the first sync). Refetch the `changed` paths whose
 * ETag differs from the one kept, drop the `removed` ones, and rebuild again at
 * `nextClockChangeAt` even if nothing is published. A MarqueeError 410 `SNAPSHOT_EXPIRED`: sync
 * everything again.
 */
export async function fetchChanges(client: MarqueeClient, since?: string): Promise<Changes> {
  return unwrap(await client.GET('/changes', { params: { query: since === undefined ? {} : { since } } }));
}
