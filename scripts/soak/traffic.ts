// What the soak asks for and what each answer must be. Requests cover every route of docs/api.md
// §4 (the event list with its timings and pages, event details by id and by slug, their sessions,
// speakers and sponsors, and now and then a draft, which must be 404). The oracle: a documented
// status the request could get; never a 5xx; a 200 body with no id of another organization (every
// id in it must be the key's organization's, as the fuzz script's oracle has it) and the very
// resource asked for; 304 only to an If-None-Match; 401 only for a key being or already revoked,
// and nothing else for one whose revocation had returned before the request was sent; 404 only for
// a draft or an event the soak published or unpublished.
import { API } from '../../test/support/http-fuzz.ts';
import type { SoakKey } from './keys.ts';
import { pick, type SoakEvent, type SoakOrganization, type SoakPlatform } from './platform.ts';

export type Verdict = 'ok' | 'server error' | 'wrong organization' | 'revoked key served' | 'unexpected status' | 'bad body' | 'no answer';

export interface SoakRequest {
  route: string;
  path: string;
  key: SoakKey;
  organization: SoakOrganization;
  event?: SoakEvent;
  /** The draft probe: must be 404. */
  draft?: boolean;
  /** For the event list: what the body must echo. */
  page?: { page: number; pageSize: number };
  ifNoneMatch?: string;
  /** A probe with a revoked key. */
  probe?: boolean;
}

export interface Answer {
  status: number;
  etag: string | undefined;
  body: string;
}

const TIMINGS = ['', 'timing=upcoming&', 'timing=past&', 'timing=ongoing&', 'timing=all&'];
const PAGE_SIZES = [1, 5, 10, 20, 50, 100];

/** Route → weight and path, for one organization; an event route is skipped for one without events. */
const ROUTES: Array<{ route: string; weight: number; path(organization: SoakOrganization): Omit<SoakRequest, 'key' | 'organization' | 'route'> | undefined }> = [
  { route: 'organization', weight: 10, path: () => ({ path: `${API}/organization` }) },
  { route: 'team', weight: 8, path: () => ({ path: `${API}/team` }) },
  { route: 'speakers', weight: 8, path: () => ({ path: `${API}/speakers` }) },
  { route: 'sponsors', weight: 8, path: () => ({ path: `${API}/sponsors` }) },
  { route: 'events (list)', weight: 16, path: eventList },
  { route: 'event by id', weight: 10, path: (organization) => ofEvent(organization, (event) => event.id) },
  { route: 'event by slug', weight: 10, path: (organization) => ofEvent(organization, (event) => event.slug) },
  { route: 'event sessions', weight: 8, path: (organization) => ofEvent(organization, (event) => `${pick([event.id, event.slug])}/sessions`) },
  { route: 'event speakers', weight: 8, path: (organization) => ofEvent(organization, (event) => `${pick([event.id, event.slug])}/speakers`) },
  { route: 'event sponsors', weight: 8, path: (organization) => ofEvent(organization, (event) => `${pick([event.id, event.slug])}/sponsors`) },
  { route: 'draft event (404)', weight: 2, path: draftEvent },
];
const TOTAL_WEIGHT = ROUTES.reduce((sum, route) => sum + route.weight, 0);

/** A request for the key's organization on a route chosen by weight. */
export function chooseRequest(platform: SoakPlatform, key: SoakKey): SoakRequest {
  const organization = platform.organizations[key.organization]!;
  for (;;) {
    let roll = Math.random() * TOTAL_WEIGHT;
    const chosen = ROUTES.find((route) => (roll -= route.weight) < 0) ?? ROUTES[0]!;
    const request = chosen.path(organization);
    if (request) return { ...request, route: chosen.route, key, organization };
  }
}

/** A page of one timing, sometimes one past the last (200 with no items, §4.1 rule 4). */
function eventList(organization: SoakOrganization): Omit<SoakRequest, 'key' | 'organization' | 'route'> {
  const pageSize = pick(PAGE_SIZES)!;
  const page = 1 + Math.floor(Math.random() * (Math.ceil(organization.events.length / pageSize) + 1));
  return { path: `${API}/events?${pick(TIMINGS)}page=${page}&pageSize=${pageSize}`, page: { page, pageSize } };
}

function ofEvent(organization: SoakOrganization, tail: (event: SoakEvent) => string): Omit<SoakRequest, 'key' | 'organization' | 'route'> | undefined {
  const event = pick(organization.events);
  return event && { path: `${API}/events/${tail(event)}`, event };
}

function draftEvent(organization: SoakOrganization): Omit<SoakRequest, 'key' | 'organization' | 'route'> | undefined {
  const event = pick(organization.drafts);
  return event && { path: `${API}/events/${pick([event.id, event.slug])}`, event, draft: true };
}

/** What is wrong with the answer ('ok' and no detail when nothing is). `sentAt`: performance.now() when it was sent. */
export function judge(platform: SoakPlatform, request: SoakRequest, answer: Answer, sentAt: number): { verdict: Verdict; detail?: string } {
  const { status } = answer;
  const revokedBefore = request.key.revokedAt !== undefined && sentAt >= request.key.revokedAt;
  if (status >= 500) return { verdict: 'server error', detail: answer.body.slice(0, 200) };
  if (revokedBefore && status !== 401) return { verdict: status === 200 || status === 304 ? 'revoked key served' : 'unexpected status', detail: 'revoked key' };
  switch (status) {
    case 200:
      return judgeBody(platform, request, answer);
    case 304:
      return request.ifNoneMatch !== undefined && answer.etag === request.ifNoneMatch
        ? { verdict: 'ok' }
        : { verdict: 'unexpected status', detail: `304 to If-None-Match ${request.ifNoneMatch}` };
    case 401:
      // Revoked, or being revoked while this request was on its way.
      if (request.key.revokingSince === undefined) return { verdict: 'unexpected status', detail: 'a valid key refused' };
      return hasCode(answer, 'API_KEY_INVALID');
    case 404:
      if (!request.draft && !request.event?.churned) return { verdict: 'unexpected status', detail: 'a published event not found' };
      return hasCode(answer, 'EVENT_NOT_FOUND');
    default:
      return { verdict: 'unexpected status', detail: answer.body.slice(0, 200) };
  }
}

function hasCode(answer: Answer, errorCode: string): { verdict: Verdict; detail?: string } {
  return answer.body.includes(`"errorCode":"${errorCode}"`) ? { verdict: 'ok' } : { verdict: 'bad body', detail: `not ${errorCode}: ${answer.body.slice(0, 200)}` };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Every id in the body the organization's own, and the body the resource asked for. */
function judgeBody(platform: SoakPlatform, request: SoakRequest, answer: Answer): { verdict: Verdict; detail?: string } {
  if (request.draft) return { verdict: 'unexpected status', detail: 'a draft event answered 200' };
  for (const [id] of answer.body.matchAll(UUID)) {
    const owner = platform.owners.get(id.toLowerCase());
    if (owner !== request.organization.index) {
      const whose = owner === undefined ? 'an id of no organization' : `organization ${platform.organizations[owner]!.id}'s id`;
      return { verdict: 'wrong organization', detail: `${whose} ${id} in an answer to ${request.organization.id}'s key` };
    }
  }
  let body: { id?: unknown; page?: unknown; pageSize?: unknown; items?: unknown };
  try {
    body = JSON.parse(answer.body) as typeof body;
  } catch {
    return { verdict: 'bad body', detail: `not JSON: ${answer.body.slice(0, 80)}` };
  }
  if (answer.etag === undefined) return { verdict: 'bad body', detail: '200 without ETag' };
  if (request.route === 'organization' && body.id !== request.organization.id) return { verdict: 'wrong organization', detail: `organization ${String(body.id)}` };
  if ((request.route === 'event by id' || request.route === 'event by slug') && body.id !== request.event!.id) {
    return { verdict: 'wrong organization', detail: `event ${String(body.id)} for ${request.event!.id}` };
  }
  if (request.page && (body.page !== request.page.page || body.pageSize !== request.page.pageSize || !Array.isArray(body.items))) {
    return { verdict: 'bad body', detail: `page ${String(body.page)}/${String(body.pageSize)} for ${request.page.page}/${request.page.pageSize}` };
  }
  return { verdict: 'ok' };
}
