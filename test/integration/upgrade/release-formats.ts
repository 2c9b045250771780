// A release's stored formats, written by its own code, and their shape (docs/operation.md
// "Upgrades and rollback"). `writeReleaseFormats` writes, into a directory, what a fleet of this
// release leaves in its shared places: a directory store with two organizations (one changed once,
// one suspended since), signed and chained, with its signing key's record; the Redis records of two
// keys, one revoked, copied by the key keeper with its mark of completeness, a usage batch a
// gateway handed over and a builder's build lock; a key file with a gateway's lease on it. `test/fixtures/formats/<version>/`
// holds one such directory per release kept; stored-formats.test.ts reads them with this release
// and compares their shape with what this release writes.
//
// Kept for a release with: node --import tsx test/integration/upgrade/release-formats.ts test/fixtures/formats/VERSION
// (it starts its own Redis and PostgreSQL).
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Redis } from 'ioredis';
import { projectOrganization, resourcesOf } from '../../../builder/projection/index.ts';
import { RedisBuildLocks } from '../../../builder/redis-build-locks.ts';
import { projectionVersion } from '../../../builder/projection-version.ts';
import { publishSnapshot } from '../../../builder/publish.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { FileKeyStore } from '../../../records/keys/file-store.ts';
import { KeyKeeper } from '../../../records/keys/key-keeper.ts';
import { PostgresKeyStore } from '../../../records/keys/postgres-key-store.ts';
import { RedisKeyStore } from '../../../records/keys/redis-key-store.ts';
import { readersDirectory } from '../../../records/keys/key-file-leases.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import { encodeBatch, HOUR_MS } from '../../../records/usage/usage-batch.ts';
import { RedisUsageSpool } from '../../../records/usage/redis-usage-spool.ts';
import { connectRedis, closeRedis } from '../../../runtime/redis-connection.ts';
import { newSigningKeyPem, signerFromPem } from '../../../snapshot/signing.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { acmeFixture, PUBLIC_BASE_URL } from '../../support/gateway-fixtures.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';
import { RecordingLog } from '../../support/recording-log.ts';

/** The kept directory's parts. */
export const STORE = 'store';
export const REDIS_RECORDS = 'redis.json';
export const KEY_FILE = join('home', 'keys.json');
export const SECRETS = 'secrets.json';
export const SCHEMA = 'schema.json';

/** A column of Marquee's schema as the release's migrations leave it. */
export interface KeptColumn {
  relation: string;
  column: string;
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}

/** What a test needs to ask with: the keys' secrets (made for the fixture alone) and the organizations. */
export interface KeptSecrets {
  active: string;
  suspended: string;
  /** Served from the Redis records. */
  redisKey: string;
  /** Revoked: refused from the Redis records. */
  revokedRedisKey: string;
  /** Served from the key file. */
  fileKey: string;
  usageBatchId: string;
}

/** One Redis key as the dump keeps it. */
export type RedisRecord =
  | { key: string; type: 'hash'; value: Record<string, string> }
  | { key: string; type: 'string'; value: string }
  | { key: string; type: 'set'; value: string[] };

const ACTIVE = 'f0000000-0000-4000-8000-00000000000a';
const SUSPENDED = 'f0000000-0000-4000-8000-00000000000b';
const NAMESPACE = 'marquee:';

/**
 * Writes this release's formats into `dir` (emptied first), with a Redis at `redisUrl` that holds
 * nothing of `marquee:` yet and an empty platform database `db` for the keys' durable record.
 */
export async function writeReleaseFormats(dir: string, redisUrl: string, db: SqlClient): Promise<KeptSecrets> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'home'), { recursive: true });
  await writeStore(new DirectoryStore(join(dir, STORE)));
  const redis = await connectRedis(redisUrl, {});
  try {
    await migrateMarquee(db);
    const durable = new PostgresKeyStore(db);
    const served = await durable.create({ organizationId: ACTIVE, label: 'served', origins: ['https://www.fixture.example'] });
    const revoked = await durable.create({ organizationId: ACTIVE, label: 'revoked', origins: [] });
    await durable.revoke(revoked.record.id, new Date('2026-01-02T00:00:00Z'));
    const copied = await new KeyKeeper(durable, new RedisKeyStore(redis, { namespace: NAMESPACE }), { log: new RecordingLog() }).sync();
    if (copied?.outcome !== 'refilled') throw new Error(`formats fixture: the key keeper did not fill Redis (${copied?.outcome ?? 'it failed'})`);
    const usageBatchId = 'gateway-fixture.1';
    const hour = Date.parse('2026-01-02T10:00:00Z') - (Date.parse('2026-01-02T10:00:00Z') % HOUR_MS);
    await new RedisUsageSpool(redis, { namespace: NAMESPACE }).put({
      id: usageBatchId,
      payload: encodeBatch({
        id: usageBatchId,
        counts: [{ keyId: served.record.id, organizationId: ACTIVE, hour, route: '/api/integration/v1/events', status: 200, errorCode: '', requests: 3 }],
        origins: [{ keyId: served.record.id, organizationId: ACTIVE, hour, origin: 'https://elsewhere.example', requests: 1 }],
      }),
    });
    // A builder in the middle of building the suspended organization: its lock, as it holds it.
    const locks = new RedisBuildLocks(redisUrl, { log: new RecordingLog() });
    if ((await locks.acquire(SUSPENDED)) === undefined) throw new Error('formats fixture: the build lock was not taken');
    await writeFile(join(dir, REDIS_RECORDS), `${JSON.stringify(await dumpRedis(redis), null, 2)}\n`);
    await locks.close();

    await writeFile(join(dir, SCHEMA), `${JSON.stringify(await schemaColumns(db), null, 2)}\n`);
    const fileKey = await writeKeyFile(join(dir, KEY_FILE));
    const secrets: KeptSecrets = { active: ACTIVE, suspended: SUSPENDED, redisKey: served.secret, revokedRedisKey: revoked.secret, fileKey, usageBatchId };
    await writeFile(join(dir, SECRETS), `${JSON.stringify(secrets, null, 2)}\n`);
    return secrets;
  } finally {
    await closeRedis(redis);
  }
}

async function writeStore(store: DirectoryStore): Promise<void> {
  const signer = signerFromPem(newSigningKeyPem(), 'the formats fixture');
  const active = new PlatformFixture({ id: ACTIVE, name: 'Fixture Events', slug: 'fixture-events', email: 'hello@fixture.example' });
  acmeFixture(active);
  const suspended = new PlatformFixture({ id: SUSPENDED, name: 'Suspended Events', slug: 'suspended-events', email: 'hello@suspended.example' });
  suspended.teamMember({ fullName: 'Kept Member' });
  const publish = (fixture: PlatformFixture, at: string, state: 'active' | 'suspended' = 'active') => {
    const projection = projectOrganization(fixture.data(), { publicBaseUrl: PUBLIC_BASE_URL });
    return publishSnapshot(store, {
      organizationId: fixture.organization.id,
      organizationSlug: fixture.organization.slug,
      state,
      resources: state === 'active' ? resourcesOf(projection) : [],
      slugs: state === 'active' ? projection.slugs : {},
      trigger: 'schedule',
      now: new Date(at),
      builderVersion: 'formats fixture',
      projectionVersion: projectionVersion(),
      sourceVersion: '1',
      signer,
      // Every coded form this release can write (br is the opt-in beside the default gzip).
      codings: ['br', 'gzip'],
    });
  };
  await publish(active, '2026-01-01T00:00:00Z');
  await publish(suspended, '2026-01-01T00:00:01Z');
  active.teamMember({ fullName: 'Joined Later', sortOrder: 2 });
  await publish(active, '2026-01-02T00:00:00Z');
  await publish(suspended, '2026-01-02T00:00:01Z', 'suspended');
}

/** A key file with one key, and the lease a gateway holds on it, as the gateway wrote it. */
async function writeKeyFile(path: string): Promise<string> {
  const writer = new FileKeyStore(path);
  const { secret } = await writer.create({ organizationId: ACTIVE, label: 'file', origins: [] });
  const gateway = new FileKeyStore(path);
  await gateway.holdLease();
  const readers = readersDirectory(path);
  const [lease] = await readdir(readers);
  const held = await readFile(join(readers, lease!), 'utf8');
  await gateway.close();
  // Its file is removed when the gateway closes; kept as it was while held.
  await mkdir(readers, { recursive: true });
  await writeFile(join(readers, lease!), held);
  return secret;
}

/** Every column of every relation in Marquee's schema, as the release's migrations made them. */
async function schemaColumns(db: SqlClient): Promise<KeptColumn[]> {
  return db.query<KeptColumn>(
    `SELECT table_name AS relation, column_name AS "column", data_type AS type, is_nullable = 'YES' AS nullable, column_default IS NOT NULL AS "hasDefault"
     FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, column_name`,
    [db.marqueeSchema],
  );
}

/** Every key below the namespace with its value, sorted, as loadRedis puts them back. */
async function dumpRedis(redis: Redis): Promise<RedisRecord[]> {
  const records: RedisRecord[] = [];
  for (const key of (await redis.keys(`${NAMESPACE}*`)).sort()) {
    const type = await redis.type(key);
    if (type === 'hash') records.push({ key, type, value: Object.fromEntries(Object.entries(await redis.hgetall(key)).sort(([a], [b]) => a.localeCompare(b))) });
    else if (type === 'string') records.push({ key, type, value: (await redis.get(key)) ?? '' });
    else if (type === 'set') records.push({ key, type, value: (await redis.smembers(key)).sort() });
    else throw new Error(`formats fixture: Redis key ${key} is a ${type}, which the dump does not keep`);
  }
  return records;
}

/** Puts a dump back into an empty Redis. */
export async function loadRedis(redis: Redis, records: readonly RedisRecord[]): Promise<void> {
  for (const record of records) {
    if (record.type === 'hash') await redis.hset(record.key, record.value);
    else if (record.type === 'string') await redis.set(record.key, record.value);
    else await redis.sadd(record.key, ...record.value);
  }
}

/**
 * The shape of a kept directory: for each kind of file and Redis key (names with their ids, hashes
 * and instants generalised), its version marker and the member names its records have, nested
 * objects as `outer.inner`, maps by name (a manifest's `resources` and `slugs`) as `name{}`. Two
 * releases that write the same shape read each other's records as far as the formats go.
 */
export async function formatShape(dir: string): Promise<Record<string, string[]>> {
  const shape = new Map<string, Set<string>>();
  const note = (kind: string, members: Iterable<string>) => {
    const kept = shape.get(kind) ?? new Set<string>();
    for (const member of members) kept.add(member);
    shape.set(kind, kept);
  };
  for (const file of await filesUnder(join(dir, STORE))) {
    const name = generalised(relative(join(dir, STORE), file));
    const bytes = await readFile(file, 'utf8');
    // Objects are API resources: their members are the API's contract (schemas/), not a store format.
    if (name.includes('/objects/')) note(`store ${name}`, []);
    else if (name.endsWith('.json')) note(`store ${name}`, membersOf(JSON.parse(bytes)));
    else note(`store ${name}`, [`lines: ${bytes.trimEnd().split('\n').length}`]);
  }
  for (const record of JSON.parse(await readFile(join(dir, REDIS_RECORDS), 'utf8')) as RedisRecord[]) {
    const kind = `redis ${record.type} ${generalised(record.key)}`;
    if (record.type === 'hash') note(kind, Object.keys(record.value).map(generalised));
    else if (record.type === 'set') note(kind, []);
    else note(kind, stringShape(record.value));
  }
  const keyFile = JSON.parse(await readFile(join(dir, KEY_FILE), 'utf8')) as { keys: unknown[] };
  note('key file', membersOf(keyFile));
  for (const name of await readdir(readersDirectory(join(dir, KEY_FILE))))
    note(`key file lease ${generalised(name)}`, membersOf(JSON.parse(await readFile(join(readersDirectory(join(dir, KEY_FILE)), name), 'utf8'))));
  return Object.fromEntries([...shape].sort(([a], [b]) => a.localeCompare(b)).map(([kind, members]) => [kind, [...members].sort()]));
}

const MAPS = new Set(['resources', 'slugs']);

/** `format=1` for a format marker; members as paths; arrays by their elements' members. */
function membersOf(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((element) => membersOf(element, `${path}[]`));
  if (typeof value !== 'object' || value === null) return path === '' ? [] : [path];
  const members: string[] = [];
  for (const [name, member] of Object.entries(value)) {
    const at = path === '' ? name : `${path}.${name}`;
    if (name === 'format') members.push(`${at}=${String(member)}`);
    else if (MAPS.has(name)) members.push(`${at}{}`);
    else if (typeof member === 'object' && member !== null) members.push(at, ...membersOf(member, at));
    else members.push(at);
  }
  return members;
}

/** A string value's shape: a number, a reloading mark, or a JSON document's members with its arrays' tuple lengths. */
function stringShape(value: string): string[] {
  if (/^\d+$/.test(value)) return ['a number'];
  if (value.startsWith('reloading:')) return ['reloading:<token>'];
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value)) return ['a token'];
  const document = JSON.parse(value) as Record<string, unknown>;
  return Object.entries(document).flatMap(([name, member]) =>
    Array.isArray(member) ? [`${name}[]`, ...new Set(member.map((entry) => `${name}[] of ${Array.isArray(entry) ? entry.length : typeof entry}`))] : [name],
  );
}

/** Ids, hashes, instants, key ids and lease names replaced by what they are. */
function generalised(name: string): string {
  return name
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '{uuid}')
    .replace(/\d{8}T\d{9}Z-[0-9a-f]{12}/g, '{snapshotId}')
    .replace(/\d{8}T\d{9}Z-/g, '{instant}-')
    .replace(/[0-9a-f]{64}/g, '{sha256}')
    .replace(/^signing-keys\/[0-9a-f]{16}\.json$/, 'signing-keys/{keyId}.json')
    .replace(/^key_[A-Za-z0-9]+$/, '{keyId}')
    .replace(/^\d+-[0-9a-f]{8}\.json$/, '{pid}-{random}.json')
    .replace(/usage:batch:.+$/, 'usage:batch:{batchId}');
}

async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(path)));
    else found.push(path);
  }
  return found.sort();
}

// Run as a script: keep this release's formats in the directory given.
if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const { startRedis } = await import('../../support/redis.ts');
  const { startPostgres } = await import('../../support/postgres.ts');
  const { openPostgres } = await import('../../../records/database/postgres.ts');
  const target = process.argv[2];
  if (target === undefined) throw new Error('usage: node --import tsx test/integration/upgrade/release-formats.ts test/fixtures/formats/VERSION');
  const [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  const db = await openPostgres(postgres.url);
  try {
    await writeReleaseFormats(target, redis.url, db);
  } finally {
    await db.close();
    await Promise.all([redis.stop(), postgres.stop()]);
  }
}
