// Gateway tests' world: organizations published through the real builder stages (projection +
// publish) into a store, keys in memory, a controllable clock, and the gateway on a loopback port.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { Client } from 'undici';
import { projectOrganization, resourcesOf } from '../../builder/projection/index.ts';
import { publishSnapshot, type PublishOutcome } from '../../builder/publish.ts';
import { InMemoryRateLimiter } from '../../gateway/access/in-memory-rate-limiter.ts';
import { createGateway, type Gateway, type GatewayDeps } from '../../gateway/app.ts';
import { openRedisAccess, openRedisKeyStore } from '../../gateway/access/redis-access.ts';
import type { KeyVerdicts } from '../../gateway/access/key-verdicts.ts';
import type { KeyStore } from '../../records/keys/key-store.ts';
import { InProcessChannel, type PublishChannel } from '../../snapshot/notifications.ts';
import type { Coding } from '../../snapshot/codings.ts';
import type { OrganizationState } from '../../snapshot/manifest.ts';
import { RedisPublishChannel } from '../../snapshot/redis-channel.ts';
import type { SnapshotSource, SnapshotStore } from '../../snapshot/store.ts';
import { CdnSource } from '../../snapshot/stores/cdn-source.ts';
import { DirectoryStore } from '../../snapshot/stores/directory.ts';
import { MemoryStore } from '../../snapshot/stores/memory.ts';
import { S3Store } from '../../snapshot/stores/s3.ts';
import { CountingKeyStore, issueKey, temporaryKeyFile } from './keys.ts';
import type { ProductionBackends } from './production-backends.ts';
import { assertContract } from './openapi-contract.ts';
import { RecordingLog } from './recording-log.ts';
import type { PlatformFixture } from './platform-fixture.ts';

export const API = '/api/integration/v1';
export const PUBLIC_BASE_URL = 'https://events.example.com';

/** Publishes the fixture's organization as the builder would, projected from its rows. */
/** `codings`: the coded forms stored beside the objects worth them (SNAPSHOT_CODINGS); absent: a build's default. */
export async function publishFixture(
  store: SnapshotStore,
  fixture: PlatformFixture,
  options: { state?: OrganizationState; now?: Date; codings?: readonly Coding[] } = {},
): Promise<PublishOutcome> {
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
    ...(options.codings !== undefined ? { codings: options.codings } : {}),
  });
}

export { RecordingLog };

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
  json<T = unknown>(): T;
}

export interface CallOptions {
  key?: string;
  method?: string;
  headers?: Record<string, string>;
}

export interface GatewayHarness {
  /** Where the harness's snapshots are published: memory (or the test's own store), or S3 in the production project. */
  store: SnapshotStore;
  /** For a child process publishing into `store` (publish-in-child.ts): a directory or s3://bucket/prefix; undefined for memory. */
  storeLocation: string | undefined;
  /** The environment such a child needs (S3 endpoint and credentials). */
  storeEnv: Record<string, string>;
  keys: KeyStore;
  /** Another view of the same keys, as the CLI (another process) has: the key file opened again, or a second Redis connection. */
  otherKeys(): Promise<KeyStore>;
  channel: PublishChannel;
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

export interface HarnessOptions {
  /** The test's own store (a faulty one, say); otherwise memory, or S3 through the CDN in the production project. */
  store?: SnapshotStore;
  /** A store another process can publish into (a directory when embedded): see `storeLocation`. */
  shared?: boolean;
  now?: string;
  /**
   * Requests per key in a minute. Unset: so many that no test meets the limit, with the keys in
   * memory. Set: the product's own key store and limit for the backends under test (the key file
   * and the in-process limiter, or Redis), as an operator runs them.
   */
  keyLimit?: number;
  deps?: Partial<GatewayDeps>;
}

/**
 * The real gateway (createGateway) on a loopback port. On the embedded parts by default; in the
 * `integration-production` project (test/support/production-backends.ts) on S3 read through the
 * CDN, with keys, rate limits and the publish channel in Redis. What a test passes in `deps` wins.
 */
export async function startHarness(options: HarnessOptions = {}): Promise<GatewayHarness> {
  const production = inject('productionBackends');
  const log = new RecordingLog();
  const closers: Array<() => Promise<void>> = [];
  const parts = production ? await productionParts(production, options, log, closers) : await embeddedParts(options, closers);
  const clock = { now: Date.parse(options.now ?? '2026-03-01T12:00:00Z') };
  const gateway = createGateway({
    snapshots: parts.snapshots,
    keys: parts.keys,
    ...(parts.keyVerdicts ? { keyVerdicts: parts.keyVerdicts } : {}),
    rateLimiter: new InMemoryRateLimiter({ limit: options.keyLimit ?? 1_000_000 }),
    authFailures: new InMemoryRateLimiter({ limit: 1_000_000 }),
    clock: () => clock.now,
    channel: parts.channel,
    log,
    ...options.deps,
  });
  await gateway.ready;
  const server = createServer(gateway.app);
  await listen(server);
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new Client(origin);
  return {
    store: parts.store,
    storeLocation: parts.storeLocation,
    storeEnv: parts.storeEnv,
    keys: parts.keys,
    otherKeys: parts.otherKeys,
    channel: parts.channel,
    log,
    gateway,
    clock,
    origin,
    call: (path, callOptions = {}) => call(client, path, callOptions),
    keyFor: async (organizationId, origins = []) => (await issueKey(parts.keys, { organizationId, origins })).secret,
    close: async () => {
      await client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
      for (const close of closers.reverse()) await close();
    },
  };
}

interface HarnessParts {
  store: SnapshotStore;
  storeLocation: string | undefined;
  storeEnv: Record<string, string>;
  snapshots: SnapshotSource;
  keys: KeyStore;
  keyVerdicts?: KeyVerdicts;
  otherKeys(): Promise<KeyStore>;
  channel: PublishChannel;
}

async function embeddedParts(options: HarnessOptions, closers: Array<() => Promise<void>>): Promise<HarnessParts> {
  let store = options.store ?? new MemoryStore();
  let storeLocation: string | undefined;
  if (options.shared && !options.store) {
    storeLocation = await mkdtemp(join(tmpdir(), 'marquee-harness-store-'));
    store = new DirectoryStore(storeLocation);
    const dir = storeLocation;
    closers.push(() => rm(dir, { recursive: true, force: true }));
  }
  const channel = new InProcessChannel();
  if (options.keyLimit === undefined) {
    const keys = new CountingKeyStore();
    return { store, storeLocation, storeEnv: {}, snapshots: store, keys, otherKeys: async () => keys, channel };
  }
  const file = await temporaryKeyFile();
  closers.push(() => file.remove());
  return { store, storeLocation, storeEnv: {}, snapshots: store, keys: file.open(), otherKeys: async () => file.open(), channel };
}

async function productionParts(backends: ProductionBackends, options: HarnessOptions, log: RecordingLog, closers: Array<() => Promise<void>>): Promise<HarnessParts> {
  const run = randomUUID();
  const prefix = `harness/${run}`;
  const s3 = options.store ? undefined : new S3Store({ bucket: backends.bucket, prefix, endpoint: backends.s3Endpoint });
  const store = options.store ?? s3!;
  let snapshots: SnapshotSource = store;
  if (s3) {
    const cdn = new CdnSource(s3, `${backends.cdnBucketUrl}/${prefix}`);
    closers.push(() => cdn.close());
    snapshots = cdn;
  }
  const namespace = `harness:${run}:`;
  const access = await openRedisAccess({ url: backends.redisUrl, log, namespace, limit: options.keyLimit ?? 1_000_000 });
  closers.push(() => access.close());
  const channel = new RedisPublishChannel(backends.redisUrl, { log, name: `${namespace}published` });
  closers.push(() => channel.close());
  return {
    store,
    storeLocation: s3 ? `s3://${backends.bucket}/${prefix}` : undefined,
    // A child publisher announces as a builder with REDIS_URL does: gateways that hear announcements rely on them.
    storeEnv: { S3_ENDPOINT: backends.s3Endpoint, PUBLISH_CHANNEL_URL: backends.redisUrl, PUBLISH_CHANNEL_NAME: `${namespace}published` },
    snapshots,
    keys: access.keys,
    keyVerdicts: access.verdicts,
    otherKeys: async () => {
      const other = await openRedisKeyStore({ url: backends.redisUrl, namespace });
      closers.push(() => other.close());
      return other.keys;
    },
    channel,
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
