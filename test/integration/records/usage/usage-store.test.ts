// Usage counts in Marquee's schema (records/usage/usage-store.ts, usage-intake.ts) on PostgreSQL 15
// and PGlite: a batch counts once however often it is handed over, also when two intakes take it
// at once; a key's refused origins per hour are bounded; old counts are pruned; a report reads
// back per key and per organization, by hour and by day, with every bucket of its range.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../../../../records/database/sql.ts';
import { migrateMarquee } from '../../../../records/schema/migrate.ts';
import { encodeBatch, HOUR_MS, type UsageBatch } from '../../../../records/usage/usage-batch.ts';
import { FileUsageSpool } from '../../../../records/usage/file-usage-spool.ts';
import { UsageIntake } from '../../../../records/usage/usage-intake.ts';
import { countBatches, ORIGINS_PER_KEY_HOUR, pruneUsage, readUsage, requestsSince } from '../../../../records/usage/usage-store.ts';
import { type Backend, platformBackends } from '../../../support/platform-backends.ts';
import { RecordingLog } from '../../../support/recording-log.ts';

const databases = platformBackends();
afterAll(() => databases.close());

const HOUR = Date.UTC(2026, 10, 27, 10);
const EVENTS = '/api/integration/v1/events';

/** One migrated database per backend for the file (a PGlite takes seconds to open), emptied before each test. */
const opened = new Map<string, Promise<SqlClient>>();
async function migrated(backend: Backend): Promise<SqlClient> {
  let db = opened.get(backend.name);
  if (db === undefined) {
    db = backend.open().then(async (client) => {
      await migrateMarquee(client);
      return client;
    });
    opened.set(backend.name, db);
  }
  const client = await db;
  await client.exec('TRUNCATE marquee_key_usage, marquee_key_usage_origins, marquee_usage_batches');
  return client;
}

function batchOf(
  id: string,
  counts: [keyId: string, hourOffset: number, status: number, requests: number][],
  origins: [keyId: string, origin: string, requests: number][] = [],
): UsageBatch {
  return {
    id,
    counts: counts.map(([keyId, offset, status, requests]) => ({
      keyId,
      organizationId: keyId.startsWith('key_a') ? 'org-a' : 'org-b',
      hour: HOUR + offset * HOUR_MS,
      route: EVENTS,
      status,
      errorCode: status === 403 ? 'API_KEY_ORIGIN_NOT_ALLOWED' : '',
      requests,
    })),
    origins: origins.map(([keyId, origin, requests]) => ({ keyId, organizationId: 'org-a', hour: HOUR, origin, requests })),
  };
}

const total = async (db: SqlClient) => Number((await db.query<{ n: string }>('SELECT coalesce(sum(requests), 0) AS n FROM marquee_key_usage'))[0]!.n);

describe.each(databases.backends)('usage counts on $name', (backend) => {
  it('counts a batch once however often it is handed over', async () => {
    const db = await migrated(backend);
    const one = batchOf('gw-1.1', [
      ['key_a1', 0, 200, 5],
      ['key_a1', 0, 304, 2],
    ]);
    expect(await countBatches(db, [one])).toEqual({ added: 1, repeated: 0 });
    expect(await countBatches(db, [one, batchOf('gw-1.2', [['key_a1', 0, 200, 1]])])).toEqual({ added: 1, repeated: 1 });
    expect(await total(db)).toBe(8);
  });

  it('counts a batch once when two intakes take it at once', async () => {
    const db = await migrated(backend);
    const batches = Array.from({ length: 20 }, (_, n) =>
      batchOf(`gw-1.${n}`, [
        ['key_a1', 0, 200, 1],
        ['key_b1', 1, 404, 1],
      ]),
    );
    // Overlapping halves, in opposite orders: ids are locked in one order, so no deadlock either.
    const results = await Promise.all([countBatches(db, batches.slice(0, 15)), countBatches(db, batches.slice(5).reverse())]);
    expect(results.reduce((sum, result) => sum + result.added, 0)).toBe(20);
    expect(await total(db)).toBe(40);
  });

  it('names at most ORIGINS_PER_KEY_HOUR refused origins per key and hour, the others together', async () => {
    const db = await migrated(backend);
    const origins = Array.from({ length: ORIGINS_PER_KEY_HOUR + 4 }, (_, n): [string, string, number] => ['key_a1', `https://site-${n}.example`, n + 1]);
    await countBatches(db, [batchOf('gw-1.1', [['key_a1', 0, 403, 10]], origins.slice(0, 10))]);
    await countBatches(db, [batchOf('gw-1.2', [['key_a1', 0, 403, 10]], origins.slice(10))]);
    const rows = await db.query<{ origin: string; requests: string }>('SELECT origin, requests FROM marquee_key_usage_origins');
    expect(rows.filter((row) => row.origin !== '')).toHaveLength(ORIGINS_PER_KEY_HOUR);
    const sum = rows.reduce((n, row) => n + Number(row.requests), 0);
    expect(sum).toBe(origins.reduce((n, [, , requests]) => n + requests, 0));
    // The second batch's six most frequent fill the bound; its four rarest (11 to 14 requests) are folded together.
    expect(Number(rows.find((row) => row.origin === '')!.requests)).toBe(11 + 12 + 13 + 14);
  });

  it('reads a key and an organization back, every bucket of the range, by hour and by day', async () => {
    const db = await migrated(backend);
    await countBatches(db, [
      batchOf(
        'gw-1.1',
        [
          ['key_a1', 0, 200, 3],
          ['key_a1', 2, 403, 1],
          ['key_a2', 1, 200, 4],
          ['key_b1', 0, 200, 9],
        ],
        [['key_a1', 'https://evil.example', 1]],
      ),
    ]);
    const range = { since: new Date(HOUR), until: new Date(HOUR + 4 * HOUR_MS), by: 'hour' as const };
    const key = await readUsage(db, { keyId: 'key_a1' }, range);
    expect(key.requests).toBe(4);
    expect(key.series.map((bucket) => bucket.requests)).toEqual([3, 0, 1, 0]);
    expect(key.series[2]!.outcomes).toEqual({ '403 API_KEY_ORIGIN_NOT_ALLOWED': 1 });
    expect(key.refusedOrigins).toEqual([{ origin: 'https://evil.example', requests: 1 }]);
    const organization = await readUsage(db, { organizationId: 'org-a' }, range);
    expect(organization.requests).toBe(8);
    expect(organization.keys).toEqual([
      { keyId: 'key_a1', requests: 4 },
      { keyId: 'key_a2', requests: 4 },
    ]);
    const byDay = await readUsage(db, { organizationId: 'org-a' }, { since: new Date(Date.UTC(2026, 10, 26)), until: new Date(Date.UTC(2026, 10, 28)), by: 'day' });
    expect(byDay.series.map((bucket) => [bucket.start, bucket.requests])).toEqual([
      ['2026-11-26T00:00:00.000Z', 0],
      ['2026-11-27T00:00:00.000Z', 8],
    ]);
    expect(await requestsSince(db, new Date(HOUR))).toEqual(
      new Map([
        ['key_a1', 4],
        ['key_a2', 4],
        ['key_b1', 9],
      ]),
    );
    expect(await requestsSince(db, new Date(HOUR), 'org-b')).toEqual(new Map([['key_b1', 9]]));
  });

  it('prunes counts older than the retention, and old batch ids', async () => {
    const db = await migrated(backend);
    await countBatches(db, [
      batchOf(
        'gw-1.1',
        [
          ['key_a1', 0, 200, 1],
          ['key_a1', 30, 200, 2],
        ],
        [['key_a1', 'https://evil.example', 1]],
      ),
    ]);
    await pruneUsage(db, new Date(HOUR + HOUR_MS), new Date(HOUR));
    expect(await total(db)).toBe(2);
    expect(await db.query('SELECT 1 FROM marquee_key_usage_origins')).toEqual([]);
    // A batch id is stamped by the database's clock when counted (applied_at), so the instant that
    // finds it older than its seven days kept is read from the real clock, not from HOUR.
    await pruneUsage(db, new Date(HOUR), new Date(Date.now() + 7 * 24 * HOUR_MS - 60_000));
    expect(await db.query('SELECT 1 FROM marquee_usage_batches')).toHaveLength(1);
    await pruneUsage(db, new Date(HOUR), new Date(Date.now() + 8 * 24 * HOUR_MS));
    expect(await db.query('SELECT 1 FROM marquee_usage_batches')).toEqual([]);
  });

  it('takes what gateways moved to the shared place, and sets an unreadable batch aside', async () => {
    const db = await migrated(backend);
    const spool = new FileUsageSpool(join(await mkdtemp(join(tmpdir(), 'marquee-usage-intake-')), 'usage'));
    for (let n = 1; n <= 3; n++) {
      const batch = batchOf(`gw-1.${n}`, [['key_a1', 0, 200, n]]);
      await spool.put({ id: batch.id, payload: encodeBatch(batch) });
    }
    await spool.put({ id: 'gw-2.1', payload: '{"not":"a batch"}' });
    const log = new RecordingLog();
    const intake = new UsageIntake(db, spool, { log, retentionDays: 90, clock: () => HOUR });
    expect(await intake.round()).toEqual({ added: 3, repeated: 0, unreadable: 1 });
    expect(await total(db)).toBe(6);
    expect(await spool.waiting(10)).toEqual([]);
    expect(log.lines.some((line) => line.level === 'error' && line.message.includes('unreadable'))).toBe(true);
  });
});
