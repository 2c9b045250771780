// The examples of the OpenAPI document: what the real gateway answered for the sample dataset at
// one fixed instant. The sample platform (builder/platform/sample-rows.ts) is seeded into an
// in-memory PGlite, built by the real builder (read → project → validate → publish) into an
// in-memory snapshot store, and asked over loopback HTTP with real keys; so every example went
// through exactly the code that serves production requests. The sample's times and the gateway's
// clock are the same fixed instant, so `timing` and `isRegistrationOpen` — and thus every byte
// of the examples — are the same on every run.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { buildOrganizations } from '../../builder/build.ts';
import { DEFAULT_PUBLIC_BASE_URL } from '../../builder/defaults.ts';
import { migrate } from '../../builder/platform/migrations.ts';
import { SAMPLE, seedSample } from '../../builder/platform/sample.ts';
import { SqlPlatformSource } from '../../builder/platform/source.ts';
import { openPglite } from '../../records/database/pglite.ts';
import { InMemoryRateLimiter } from '../../gateway/access/in-memory-rate-limiter.ts';
import { createGateway, type Gateway } from '../../gateway/app.ts';
import { InMemoryKeyStore } from '../../records/keys/memory-store.ts';
import type { Log } from '../../runtime/log.ts';
import { manifestPrefix, objectKey, objectPrefix, pointerKey } from '../../snapshot/layout.ts';
import { API_BASE, resourcePath } from '../../snapshot/resource-catalog.ts';
import { readManifest, readPointer } from '../../snapshot/reader.ts';
import { SchemaSet } from '../../snapshot/schemas.ts';
import { type SnapshotSource, StoreUnavailableError, type Version, type VersionedBytes } from '../../snapshot/store.ts';
import { MemoryStore } from '../../snapshot/stores/memory.ts';

/** Every sample organization but Pacific, whose key then shows what a key of a not yet published organization gets. */
const SAMPLE_BUILT = [SAMPLE.organizations.nordic.id, SAMPLE.organizations.harbor.id, SAMPLE.organizations.oldTown.id];

/** The instant the sample is placed around and the examples are answered at. */
export const EXAMPLE_INSTANT = '2026-05-01T12:00:00Z';
/** The page that Nordic's browser key is allowed on, and a page that is not. */
const NORDIC_SITE = 'https://www.nordicdev.example.org';
const OTHER_SITE = 'https://elsewhere.example';

type KeyName = 'nordic' | 'nordicSite' | 'harbor' | 'pacific';

interface ExampleRequest {
  /** Below the API base, with the query. */
  path: string;
  /** Whose key is sent (X-Api-Key); none when absent. */
  key?: KeyName;
  method?: string;
  origin?: string;
  /** Sent to the gateway that allows one request per key a minute, after one that used it up. */
  overLimit?: true;
  /** Sent to a gateway that cannot reach the storage of the key's organization, and never could. */
  storageDown?: true;
  /** Marquee-Snapshot-Id: the snapshot the request pins. */
  pin?: string;
  /** Accept-Encoding; none unless given, so that every other example is the JSON as it is. */
  acceptEncoding?: string;
}

/** Every request an example is taken from, by the name the document uses. */
export const EXAMPLE_REQUESTS = {
  organization: { path: '/organization', key: 'nordic' },
  team: { path: '/team', key: 'nordic' },
  speakers: { path: '/speakers', key: 'nordic' },
  sponsors: { path: '/sponsors', key: 'nordic' },
  events: { path: '/events?pageSize=2', key: 'nordic' },
  event: { path: `/events/${SAMPLE.events.nordicSummit.slug}`, key: 'nordic' },
  eventSessions: { path: `/events/${SAMPLE.events.nordicSummit.slug}/sessions`, key: 'nordic' },
  eventSpeakers: { path: `/events/${SAMPLE.events.nordicSummit.slug}/speakers`, key: 'nordic' },
  eventSponsors: { path: `/events/${SAMPLE.events.nordicSummit.slug}/sponsors`, key: 'nordic' },
  // The initial sync (every path with its tag), a since that names no snapshot, and one the store does not keep.
  changes: { path: '/changes', key: 'nordic' },
  invalidSince: { path: '/changes?since=yesterday', key: 'nordic' },
  sinceExpired: { path: '/changes?since=20260401T080000000Z-0123456789ab', key: 'nordic' },
  invalidParameter: { path: '/events?pageSize=500', key: 'nordic' },
  invalidPathEncoding: { path: '/events/summit-2027%E0%A4', key: 'nordic' },
  keyMissing: { path: '/organization' },
  organizationSuspended: { path: '/organization', key: 'harbor' },
  originNotAllowed: { path: '/events', key: 'nordicSite', origin: OTHER_SITE },
  eventNotFound: { path: `/events/${SAMPLE.events.springDraft.slug}`, key: 'nordic' },
  // A pin on a snapshot Nordic never had (docs/api.md §10), and a pin that names no snapshot at all.
  snapshotNotCurrent: { path: '/events', key: 'nordic', pin: '20260401T080000000Z-0123456789ab' },
  invalidSnapshotPin: { path: '/organization', key: 'nordic', pin: 'yesterday' },
  unknownPath: { path: '/venues', key: 'nordic' },
  // Pacific is left out of the build: its key is valid, but nothing has been published for it yet.
  nothingPublished: { path: '/events', key: 'pacific' },
  nothingPublishedEvent: { path: `/events/${SAMPLE.sharedEventSlug}`, key: 'pacific' },
  methodNotAllowed: { path: '/organization', key: 'nordic', method: 'POST' },
  // Refuses every coding, the JSON as it is included.
  notAcceptable: { path: '/organization', key: 'nordic', acceptEncoding: '*;q=0' },
  rateLimited: { path: '/organization', key: 'nordic', overLimit: true },
  serviceUnavailable: { path: '/events', key: 'nordic', storageDown: true },
  // The object behind this path is damaged in the store before any request.
  internalError: { path: `/events/${SAMPLE.events.tokyoMeetup.slug}/sessions`, key: 'nordic' },
} as const satisfies Record<string, ExampleRequest>;

export type ExampleName = keyof typeof EXAMPLE_REQUESTS;

export interface Example {
  /** The request line's target, e.g. /api/integration/v1/events?pageSize=2. */
  target: string;
  method: string;
  status: number;
  /** The parsed JSON body. */
  body: unknown;
}

export type Examples = Record<ExampleName, Example>;

export async function sampleExamples(): Promise<Examples> {
  const now = new Date(EXAMPLE_INSTANT);
  const store = new MemoryStore();
  const db = await openPglite();
  try {
    await migrate(db);
    await seedSample(db, { now, publicBaseUrl: DEFAULT_PUBLIC_BASE_URL });
    const results = await buildOrganizations(
      { source: new SqlPlatformSource(db), store, schemas: new SchemaSet(), publicBaseUrl: DEFAULT_PUBLIC_BASE_URL, builderVersion: 'openapi-examples', now: () => now },
      { trigger: 'manual', organizationIds: SAMPLE_BUILT },
    );
    const failed = results.filter((result) => result.result === 'failed');
    if (failed.length > 0) throw new Error(`the sample did not build: ${failed.map((result) => result.error).join('; ')}`);
  } finally {
    await db.close();
  }

  const keys = new ExampleKeys();
  const secrets: Record<KeyName, string> = {
    nordic: await keys.issue(SAMPLE.organizations.nordic.id, []),
    nordicSite: await keys.issue(SAMPLE.organizations.nordic.id, [NORDIC_SITE]),
    harbor: await keys.issue(SAMPLE.organizations.harbor.id, []),
    pacific: await keys.issue(SAMPLE.organizations.pacific.id, []),
  };
  await damageObject(store, SAMPLE.organizations.nordic.id, resourcePath.eventSessions(SAMPLE.events.tokyoMeetup.id));

  const gatewayWith = (limit: number, snapshots: SnapshotSource = store) =>
    createGateway({
      snapshots,
      keys,
      clock: () => now.getTime(),
      rateLimiter: new InMemoryRateLimiter({ limit }),
      log: SILENT,
    });
  const main = await serve(gatewayWith(1000));
  const limited = await serve(gatewayWith(1));
  const storageDown = await serve(gatewayWith(1000, new UnreachableOrganization(store, SAMPLE.organizations.nordic.id)));
  try {
    const examples = {} as Examples;
    for (const [name, spec] of Object.entries(EXAMPLE_REQUESTS) as Array<[ExampleName, ExampleRequest]>) {
      const server = spec.overLimit ? limited : spec.storageDown ? storageDown : main;
      if (spec.overLimit) await ask(server.origin, spec, secrets);
      examples[name] = await ask(server.origin, spec, secrets);
    }
    return examples;
  } finally {
    await main.close();
    await limited.close();
    await storageDown.close();
  }
}

async function ask(origin: string, spec: ExampleRequest, secrets: Record<KeyName, string>): Promise<Example> {
  const target = API_BASE + spec.path;
  const method = spec.method ?? 'GET';
  const headers: Record<string, string> = {};
  if (spec.key !== undefined) headers['x-api-key'] = secrets[spec.key];
  if (spec.origin !== undefined) headers.origin = spec.origin;
  if (spec.pin !== undefined) headers['marquee-snapshot-id'] = spec.pin;
  if (spec.acceptEncoding !== undefined) headers['accept-encoding'] = spec.acceptEncoding;
  // A fixed id, so that the examples' `instance` (path#request=id) is the same on every generation.
  headers['x-request-id'] = EXAMPLE_REQUEST_ID;
  const response = await request(origin + target, { method: method as 'GET', headers });
  const text = await response.body.text();
  return { target, method, status: response.statusCode, body: JSON.parse(text) as unknown };
}

/** Replaces the bytes of the object published at `path`: the gateway detects it by the hash. */
async function damageObject(store: MemoryStore, organizationId: string, path: string): Promise<void> {
  const pointer = await readPointer(store, organizationId);
  const manifest = pointer?.snapshotId ? await readManifest(store, organizationId, pointer.snapshotId) : undefined;
  const hash = manifest?.resources[path];
  if (hash === undefined) throw new Error(`the sample published nothing at ${path} for ${organizationId}`);
  await store.put(objectKey(organizationId, hash), Buffer.from('{"damaged":true}'));
}

/** RFC 4122's example UUID. */
const EXAMPLE_REQUEST_ID = 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6';

const SILENT: Log = { info: () => {}, warn: () => {}, error: () => {} };

/** The store as a gateway sees it while the storage holding one organization's snapshots cannot be reached. */
class UnreachableOrganization implements SnapshotSource {
  readonly description: string;

  constructor(
    private readonly store: SnapshotSource,
    private readonly organizationId: string,
  ) {
    this.description = `${store.description}, organization ${organizationId} unreachable`;
  }

  async get(key: string): Promise<Buffer | undefined> {
    this.reach(key);
    return this.store.get(key);
  }

  async getIfChanged(key: string, version: Version | undefined): Promise<VersionedBytes | 'unchanged' | undefined> {
    this.reach(key);
    return this.store.getIfChanged(key, version);
  }

  async has(key: string): Promise<boolean> {
    this.reach(key);
    return this.store.has(key);
  }

  private reach(key: string): void {
    const id = this.organizationId;
    if (key === pointerKey(id) || key.startsWith(manifestPrefix(id)) || key.startsWith(objectPrefix(id))) {
      throw new StoreUnavailableError(`${key}: the storage did not answer`);
    }
  }
}

/** Keys in memory, created as `keys create` creates them; secrets never leave this module. */
class ExampleKeys extends InMemoryKeyStore {
  constructor() {
    super(() => new Date(EXAMPLE_INSTANT));
  }

  async issue(organizationId: string, origins: string[]): Promise<string> {
    return (await this.create({ organizationId, origins, label: null })).secret;
  }
}

async function serve(gateway: Gateway): Promise<{ origin: string; close(): Promise<void> }> {
  await gateway.ready;
  const server: Server = createServer(gateway.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
    },
  };
}
