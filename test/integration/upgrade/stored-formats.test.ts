// The compatibility promise (docs/operation.md "Upgrades and rollback"): within a major version a
// release reads what the release before it and the release after it write, in the store, in Redis
// and in the key file. Against each release's formats kept in test/fixtures/formats/ (written by
// release-formats.ts with that release's code), on one real Redis, this release's gateway serves the
// kept snapshots with the kept keys (the revoked one refused beside the copy's mark), `verify`
// holds the kept history, the key file and its lease are honoured, the kept usage batch is read as
// the intake reads it and the kept build lock keeps this release's builders off its organization; then the same with a member no release knows added to every record, as
// the next release may add one. And what this release writes has the shape of the newest kept
// formats — the same markers and members, record by record — so the release before reads it; the
// kept releases' shapes only ever grow within the major.
import { readdirSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyStore } from '../../../builder/history/verify-history.ts';
import { RedisBuildLocks } from '../../../builder/redis-build-locks.ts';
import { openRedisAccess } from '../../../gateway/access/redis-access.ts';
import { createGateway, type GatewayDeps } from '../../../gateway/app.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import { FileKeyStore } from '../../../records/keys/file-store.ts';
import { hashSecret } from '../../../records/keys/format.ts';
import { awaitReaders, readersDirectory } from '../../../records/keys/key-file-leases.ts';
import { decodeBatch } from '../../../records/usage/usage-batch.ts';
import { RedisUsageSpool } from '../../../records/usage/redis-usage-spool.ts';
import { closeRedis, connectRedis } from '../../../runtime/redis-connection.ts';
import { sha256Hex } from '../../../snapshot/hash.ts';
import type { Manifest, Pointer } from '../../../snapshot/manifest.ts';
import { parseStateRecord } from '../../../snapshot/state-records.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { API } from '../../support/gateway-fixtures.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { createDatabase, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import {
  formatShape,
  KEY_FILE,
  type KeptColumn,
  type KeptSecrets,
  loadRedis,
  REDIS_RECORDS,
  type RedisRecord,
  SCHEMA,
  SECRETS,
  STORE,
  writeReleaseFormats,
} from './release-formats.ts';

const KEPT = fileURLToPath(new URL('../../fixtures/formats/', import.meta.url));
/** Kept releases, oldest first. */
const RELEASES = readdirSync(KEPT, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));

let server: TestRedis;
let redis: Redis;
let postgres: TestPostgres;
let work: string;
beforeAll(async () => {
  [server, postgres] = await Promise.all([startRedis(), startPostgres()]);
  redis = await connectRedis(server.url, {});
  work = await mkdtemp(join(tmpdir(), 'marquee-formats-'));
}, 60_000);
afterAll(async () => {
  if (redis) await closeRedis(redis);
  await Promise.all([server?.stop(), postgres?.stop()]);
  await rm(work, { recursive: true, force: true });
});

/** A copy of a kept release's formats to read (and change), with its Redis records in the one Redis. */
async function keptCopy(release: string, name: string): Promise<{ dir: string; secrets: KeptSecrets }> {
  const dir = join(work, `${release}-${name}`);
  await cp(join(KEPT, release), dir, { recursive: true });
  return { dir, secrets: JSON.parse(await readFile(join(dir, SECRETS), 'utf8')) as KeptSecrets };
}

const readJson = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, 'utf8')) as T;

/** A gateway of this release on loopback, over `deps`; `ask` sends a request with a key. */
async function withGateway(deps: Omit<GatewayDeps, 'log'>, use: (ask: (path: string, key: string) => Promise<{ status: number; snapshot: string | null }>) => Promise<void>) {
  const gateway = createGateway({ ...deps, log: new RecordingLog() });
  await gateway.ready;
  const http = createServer(gateway.app);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  try {
    await use(async (path, key) => {
      const response = await fetch(`${origin}${API}${path}`, { headers: { 'X-Api-Key': key } });
      await response.arrayBuffer();
      return { status: response.status, snapshot: response.headers.get('marquee-snapshot-id') };
    });
  } finally {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await gateway.close();
  }
}

/** Everything this release reads of a kept release's formats, read as this release reads it. */
async function readsKeptFormats(dir: string, secrets: KeptSecrets, { history }: { history: 'verified' | 'parsed' }): Promise<void> {
  const store = new DirectoryStore(join(dir, STORE));
  const pointer = await readJson<Pointer>(join(dir, STORE, 'orgs', secrets.active, 'current.json'));
  const manifest = await readJson<Manifest>(join(dir, STORE, 'orgs', secrets.active, 'snapshots', `${pointer.snapshotId}.json`));
  const paths = ['/organization', '/team', '/speakers', '/sponsors', '/events?timing=all', ...Object.values(manifest.slugs).map((id) => `/events/${id}`)];
  expect(paths.length).toBeGreaterThan(5);

  // The store and the Redis records, through the gateway: every answer from the kept snapshot.
  await redis.flushall();
  await loadRedis(redis, await readJson<RedisRecord[]>(join(dir, REDIS_RECORDS)));
  const access = await openRedisAccess({ url: server.url, log: new RecordingLog() });
  try {
    await withGateway({ snapshots: store, keys: access.keys, keyVerdicts: access.verdicts }, async (ask) => {
      for (const path of paths) expect({ path, ...(await ask(path, secrets.redisKey)) }).toEqual({ path, status: 200, snapshot: pointer.snapshotId });
      expect((await ask('/organization', secrets.revokedRedisKey)).status).toBe(401);
    });
    // The usage batch, as the intake takes it from the shared place.
    const [batch, ...others] = await new RedisUsageSpool(redis).waiting(10);
    expect({ id: batch?.id, others: others.length }).toEqual({ id: secrets.usageBatchId, others: 0 });
    expect(decodeBatch(batch!.payload).counts.map((count) => [count.route, count.status, count.requests])).toEqual([['/api/integration/v1/events', 200, 3]]);
    // The build lock a builder of that release holds keeps this release's builders off that organization, and only that one.
    const locks = new RedisBuildLocks(server.url, { log: new RecordingLog() });
    try {
      expect(await locks.acquire(secrets.suspended)).toBeUndefined();
      const other = await locks.acquire(secrets.active);
      expect(other).toBeDefined();
      await other!.release();
    } finally {
      await locks.close();
    }
  } finally {
    await access.close();
  }

  // The history: verified whole as kept; with members added, every state record still parses.
  if (history === 'verified') {
    const verified = (await verifyStore(store)).organizations.map((o) => ({ id: o.organizationId, ok: o.ok, break: o.break, snapshots: o.snapshots, unsigned: o.unsigned }));
    expect(verified.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [
        { id: secrets.active, ok: true, break: undefined, snapshots: 2, unsigned: 0 },
        { id: secrets.suspended, ok: true, break: undefined, snapshots: 1, unsigned: 0 },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
  } else {
    const states = join(dir, STORE, 'orgs', secrets.suspended, 'states');
    for (const name of await readdir(states)) expect(typeof parseStateRecord(secrets.suspended, await readFile(join(states, name)))).toBe('object');
  }

  // The key file and a gateway's lease on it: a writer waits for a live lease that has not seen its change, not for one that has.
  const keyFile = join(dir, KEY_FILE);
  const files = new FileKeyStore(keyFile);
  await withGateway({ snapshots: store, keys: files }, async (ask) => {
    expect(await ask('/organization', secrets.fileKey)).toEqual({ status: 200, snapshot: pointer.snapshotId });
  });
  expect((await files.findBySecretHash(hashSecret(secrets.fileKey)))?.organizationId).toBe(secrets.active);
  const [leaseName] = await readdir(readersDirectory(keyFile));
  const leasePath = join(readersDirectory(keyFile), leaseName!);
  const lease = await readJson<{ pid: number; seen: number; leaseUntil: number }>(leasePath);
  const generation = (await readJson<{ generation: number }>(keyFile)).generation;
  await writeFile(leasePath, JSON.stringify({ ...lease, seen: generation - 1, leaseUntil: Date.now() + 60_000 }));
  await expect(awaitReaders(keyFile, generation, { timeoutMs: 50 })).rejects.toThrow(`gateway process ${lease.pid} did not apply it`);
  await writeFile(leasePath, JSON.stringify({ ...lease, seen: generation, leaseUntil: Date.now() + 60_000 }));
  await awaitReaders(keyFile, generation, { timeoutMs: 50 });
  // A write of this release keeps every kept record whole, members it does not know included.
  await rm(readersDirectory(keyFile), { recursive: true });
  const before = (await readJson<{ keys: object[] }>(keyFile)).keys;
  await files.create({ organizationId: secrets.active, label: 'made by this release', origins: [] });
  expect((await readJson<{ keys: object[] }>(keyFile)).keys.slice(0, before.length)).toEqual(before);
}

/** What a later release may do within the major: a member this release does not know, in every record. */
async function addUnknownMembers(dir: string): Promise<void> {
  const later = { laterMember: { addedBy: 'a later release' } };
  const orgs = join(dir, STORE, 'orgs');
  for (const org of await readdir(orgs)) {
    const hashes = new Map<string, string>();
    for (const folder of ['snapshots', 'states']) {
      for (const name of await readdir(join(orgs, org, folder)).catch(() => [])) {
        const path = join(orgs, org, folder, name);
        const bytes = JSON.stringify({ ...(await readJson<object>(path)), ...later });
        await writeFile(path, bytes);
        hashes.set(name.replace(/\.json$/, ''), sha256Hex(Buffer.from(bytes)));
      }
    }
    const pointerPath = join(orgs, org, 'current.json');
    const pointer = await readJson<Pointer>(pointerPath);
    const manifestHash = pointer.snapshotId === null ? null : hashes.get(pointer.snapshotId)!;
    await writeFile(pointerPath, JSON.stringify({ ...pointer, manifestHash, ...later }));
  }
  const records = await readJson<RedisRecord[]>(join(dir, REDIS_RECORDS));
  const added = records.map((record): RedisRecord => {
    // A key record gains a field; the index hashes (key id → hash) hold no fields but their entries.
    if (record.type === 'hash' && record.key.includes(':key:{')) return { ...record, value: { ...record.value, laterField: 'a later release' } };
    if (record.type === 'string' && record.value.startsWith('{')) return { ...record, value: JSON.stringify({ ...JSON.parse(record.value), ...later }) };
    return record;
  });
  await writeFile(join(dir, REDIS_RECORDS), JSON.stringify(added));
  const keyFile = join(dir, KEY_FILE);
  const file = await readJson<{ keys: object[] }>(keyFile);
  await writeFile(keyFile, JSON.stringify({ ...file, keys: file.keys.map((key) => ({ ...key, ...later })), ...later }));
  for (const name of await readdir(readersDirectory(keyFile))) {
    const path = join(readersDirectory(keyFile), name);
    await writeFile(path, JSON.stringify({ ...(await readJson<object>(path)), ...later }));
  }
}

describe.each(RELEASES)('the formats release %s wrote', (release) => {
  it('are served, verified and counted by this release', async () => {
    const { dir, secrets } = await keptCopy(release, 'as-kept');
    await readsKeptFormats(dir, secrets, { history: 'verified' });
  });

  it('are read by this release with a member it does not know in every record, as a later release may add one', async () => {
    const { dir, secrets } = await keptCopy(release, 'with-later-members');
    await addUnknownMembers(dir);
    await readsKeptFormats(dir, secrets, { history: 'parsed' });
  });
});

/**
 * What a release of `kept`'s schema still finds in `now`'s: every relation and column, of the same
 * type and no stricter; and each new column of a relation it had optional (nullable or with a
 * default), so its inserts that do not name it still succeed. Empty when the migrations since only added.
 */
function notAdditive(kept: readonly KeptColumn[], now: readonly KeptColumn[]): string[] {
  const at = (c: KeptColumn) => `${c.relation}.${c.column}`;
  const found = new Map(now.map((column) => [at(column), column]));
  const known = new Set(kept.map(at));
  const problems: string[] = [];
  for (const column of kept) {
    const current = found.get(at(column));
    if (current === undefined) problems.push(`${at(column)} is gone`);
    else if (current.type !== column.type) problems.push(`${at(column)} is ${current.type}, was ${column.type}`);
    else if (column.nullable && !current.nullable) problems.push(`${at(column)} became NOT NULL`);
  }
  // A new relation's columns are its own business: the release before never writes it.
  const relations = new Set(kept.map((column) => column.relation));
  for (const column of now) {
    if (relations.has(column.relation) && !known.has(at(column)) && !column.nullable && !column.hasDefault) problems.push(`${at(column)} is new, NOT NULL and without a default`);
  }
  return problems;
}

it("what this release writes has the newest kept release's shape, and the kept shapes only grow", async () => {
  await redis.flushall();
  const fresh = join(work, 'this-release');
  const db = await openPostgres(await createDatabase(postgres.url, 'this_release'));
  try {
    await writeReleaseFormats(fresh, server.url, db);
  } finally {
    await db.close();
  }
  const shapes = await Promise.all(RELEASES.map((release) => formatShape(join(KEPT, release))));
  // A difference here is a format this release changed: keep its formats beside the others and say so in CHANGELOG.md.
  expect(await formatShape(fresh)).toEqual(shapes.at(-1));
  // Migrations only add: the release before runs on this release's schema, and so on back through the kept ones.
  const schemas = await Promise.all([...RELEASES.map((release) => join(KEPT, release)), fresh].map((dir) => readJson<KeptColumn[]>(join(dir, SCHEMA))));
  for (const [index, schema] of schemas.entries()) if (index > 0) expect(notAdditive(schemas[index - 1]!, schema)).toEqual([]);
  for (const [index, shape] of shapes.entries()) {
    for (const [kind, members] of Object.entries(shapes[index - 1] ?? {})) {
      expect({ release: RELEASES[index], kind, members: shape[kind] }).toEqual({ release: RELEASES[index], kind, members: expect.arrayContaining(members) });
    }
  }
}, 60_000);
