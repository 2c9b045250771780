// Gateway tests' world: organizations published through the real builder stages (projection +
// publish) into a store, keys in memory, a controllable clock, and the gateway on a loopback port.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'undici';
import { projectOrganization, resourcesOf } from '../../builder/projection/index.ts';
import { publishSnapshot, type PublishOutcome } from '../../builder/publish.ts';
import { InMemoryRateLimiter } from '../../gateway/access/in-memory-rate-limiter.ts';
import { createGateway, type Gateway, type GatewayDeps } from '../../gateway/app.ts';
import { InProcessChannel } from '../../snapshot/notifications.ts';
import type { OrganizationState } from '../../snapshot/manifest.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';
import { MemoryStore } from '../../snapshot/stores/memory.ts';
import { CountingKeyStore, issueKey } from './keys.ts';
import { assertContract } from './openapi-contract.ts';
import { RecordingLog } from './recording-log.ts';
import type { PlatformFixture } from './platform-fixture.ts';

export const API = '/api/integration/v1';
export const PUBLIC_BASE_URL = 'https://events.example.com';

/** Publishes the fixture's organization as the builder would, projected from its rows. */
export async function publishFixture(store: SnapshotStore, fixture: PlatformFixture, options: { state?: OrganizationState; now?: Date } = {}): Promise<PublishOutcome> {
  const projection = projectOrganization(fixture.data(), { publicBaseUrl: PUBLIC_BASE_URL });
  const state = options.state ?? 'active';
  return publishSnapshot(store, {
    organizationId: fixture.organization.id,
    organizationSlug: fixture.organization.slug,
    state,
    resources: state === 'active' ? resourcesOf(projection) : [],
    slugs: state === 'active' ? projection.slugs : {},
    trigger: 'manual',
    now: options.now ?? new Date('2026-01-01T00:00:00Z'),
  });
}

export { RecordingLog };

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
  json<T = unknown>(): T;
}

interface CallOptions {
  key?: string;
  method?: string;
  headers?: Record<string, string>;
}

export interface GatewayHarness {
  store: SnapshotStore;
  keys: CountingKeyStore;
  channel: InProcessChannel;
  log: RecordingLog;
  gateway: Gateway;
  /** The API clock, in ms since the epoch; tests move it. */
  clock: { now: number };
  origin: string;
  /** A request to `path` (below the host, e.g. `${API}/events`), with the key when given. */
  call(path: string, options?: CallOptions): Promise<Reply>;
  /** A key for the organization, created like `keys create`. */
  keyFor(organizationId: string, origins?: string[]): Promise<string>;
  close(): Promise<void>;
}

export async function startHarness(options: { store?: SnapshotStore; now?: string; deps?: Partial<GatewayDeps> } = {}): Promise<GatewayHarness> {
  const store = options.store ?? new MemoryStore();
  const keys = new CountingKeyStore();
  const channel = new InProcessChannel();
  const log = new RecordingLog();
  const clock = { now: Date.parse(options.now ?? '2026-03-01T12:00:00Z') };
  const gateway = createGateway({
    snapshots: store,
    keys,
    // Generous limits: these tests are about content, not rate limiting.
    rateLimiter: new InMemoryRateLimiter({ limit: 1_000_000 }),
    authFailures: new InMemoryRateLimiter({ limit: 1_000_000 }),
    clock: () => clock.now,
    channel,
    log,
    ...options.deps,
  });
  await gateway.ready;
  const server = createServer(gateway.app);
  await listen(server);
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A Client sends the path exactly as given: no URL normalization of "..", "%2e%2e" or "%2F".
  const client = new Client(origin);
  return {
    store,
    keys,
    channel,
    log,
    gateway,
    clock,
    origin,
    call: (path, callOptions = {}) => call(client, path, callOptions),
    keyFor: async (organizationId, origins = []) => (await issueKey(keys, { organizationId, origins })).secret,
    close: async () => {
      await client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
    },
  };
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
}

async function call(client: Client, path: string, { key, method = 'GET', headers = {} }: CallOptions): Promise<Reply> {
  const response = await client.request({
    path,
    method: method as 'GET',
    headers: { ...(key === undefined ? {} : { 'x-api-key': key }), ...headers },
  });
  const body = await response.body.text();
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  // Every answer, whatever the test expects of it, must be one the published contract describes
  // (schemas/openapi.json). Outside the API base and OPTIONS preflights are not described there,
  // and the check passes them by.
  assertContract({ method, path, status: response.statusCode, headers: flat, body });
  return { status: response.statusCode, headers: flat, body, json: <T>() => JSON.parse(body) as T };
}

/**
 * An organization with something in every resource, relative to the harness's default clock
 * (2026-03-01T12:00Z): a past, an ongoing and two upcoming events (one with a registration window
 * and a programme with speakers and sponsors), a draft and a cancelled one, hidden people.
 */
export function acmeFixture(fixture: PlatformFixture): AcmeWorld {
  fixture.teamMember({ fullName: 'Visible Member', sortOrder: 1 });
  fixture.teamMember({ fullName: 'Hidden Member', showOnWebsite: false });
  const ada = fixture.speaker({ name: 'Ada Lovelace' });
  const grace = fixture.speaker({ name: 'Grace Hopper' });
  fixture.speaker({ name: 'Invited Only', invitationStatus: 'invited' });
  const sponsor = fixture.sponsor({ name: 'Initech', isOrganizationSponsor: true });
  const past = fixture.event({ name: 'Winter Meetup', slug: 'winter', startsAt: '2026-01-10T09:00:00Z', endsAt: '2026-01-10T17:00:00Z' });
  const ongoing = fixture.event({ name: 'Spring Hackathon', slug: 'hackathon', startsAt: '2026-02-28T09:00:00Z', endsAt: '2026-03-02T17:00:00Z' });
  const conference = fixture.event({
    name: 'Acme Conf',
    slug: 'acme-conf',
    startsAt: '2026-05-01T07:00:00Z',
    endsAt: '2026-05-01T16:00:00Z',
    registrationStartsAt: '2026-03-10T00:00:00Z',
    registrationEndsAt: '2026-04-20T00:00:00Z',
    capacity: 100,
  });
  const workshop = fixture.event({ name: 'Workshop', slug: 'workshop', startsAt: '2026-06-01T07:00:00Z', endsAt: '2026-06-01T16:00:00Z' });
  const draft = fixture.event({ name: 'Secret Draft', slug: 'secret', status: 'draft', startsAt: '2026-07-01T07:00:00Z', endsAt: '2026-07-01T16:00:00Z' });
  fixture.event({ name: 'Cancelled', slug: 'cancelled', status: 'cancelled', startsAt: '2026-07-02T07:00:00Z', endsAt: '2026-07-02T16:00:00Z' });
  const keynote = fixture.session(conference, { name: 'Keynote', startsAt: '2026-05-01T07:00:00Z', endsAt: '2026-05-01T08:00:00Z' });
  const talk = fixture.session(conference, { name: 'Talk', startsAt: '2026-05-01T08:00:00Z', endsAt: '2026-05-01T09:00:00Z' });
  fixture.bill(keynote, grace, 0);
  fixture.bill(talk, ada, 0);
  fixture.bill(talk, grace, 1);
  fixture.place(conference, sponsor, { tier: 'Gold', sortOrder: 1 });
  return { past, ongoing, conference, workshop, draft };
}

export interface AcmeWorld {
  past: { id: string; slug: string };
  ongoing: { id: string; slug: string };
  conference: { id: string; slug: string };
  workshop: { id: string; slug: string };
  draft: { id: string; slug: string };
}
