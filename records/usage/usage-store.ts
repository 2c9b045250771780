// Usage counts in Marquee's schema (migration 012-key-usage.sql): batches counted exactly once,
// kept USAGE_RETENTION_DAYS, and read back per key or per organization for every door (the CLI's
// `keys usage`, the admin API, the console). The builders' intake (usage-intake.ts) writes; the
// doors read.
import type { SqlClient, SqlQueries } from '../database/sql.ts';
import { HOUR_MS, type RefusedOriginCount, type RequestCount, type UsageBatch } from './usage-batch.ts';
import { type UsageReport, type UsageRow, type UsageSubject, usageReport } from './usage-report.ts';

/**
 * A key's distinct refused origins kept per hour. A browser's Origin is the page's to set, and any
 * page can send a key it read from a site's script: past this, new origins are counted together
 * under '' (shown as "others"), so that no one can grow the table without bound.
 */
export const ORIGINS_PER_KEY_HOUR = 16;

/** How long the ids of counted batches are kept: well past the longest a batch waits anywhere (3 days in Redis). */
const BATCH_IDS_KEPT_MS = 7 * 24 * HOUR_MS;

export interface CountedBatches {
  /** Batches whose counts were added now. */
  added: number;
  /** Batches counted before (handed over again): added nothing. */
  repeated: number;
}

/**
 * Adds the counts of the batches not counted before, in one transaction that also records their
 * ids: a batch handed over twice, or taken by two intakes at once, is counted once (the second
 * waits on the first's id and then finds it).
 */
export async function countBatches(db: SqlClient, batches: readonly UsageBatch[]): Promise<CountedBatches> {
  if (batches.length === 0) return { added: 0, repeated: 0 };
  // Ids in one order, so two intakes taking overlapping batches cannot deadlock on them.
  const ids = [...new Set(batches.map((batch) => batch.id))].sort();
  return db.transaction(async (tx) => {
    const fresh = await tx.query<{ id: string }>(`INSERT INTO marquee_usage_batches (id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING RETURNING id`, [ids]);
    const added = new Set(fresh.map((row) => row.id));
    const adding = batches.filter((batch) => added.delete(batch.id));
    await addCounts(tx, summedCounts(adding.flatMap((batch) => batch.counts)));
    await addOrigins(tx, summedOrigins(adding.flatMap((batch) => batch.origins)));
    return { added: adding.length, repeated: batches.length - adding.length };
  });
}

/** Removes counts older than `before`, and the ids of batches counted long ago. */
export async function pruneUsage(db: SqlClient, before: Date, now: Date): Promise<void> {
  await db.query(`DELETE FROM marquee_key_usage WHERE hour < $1`, [before]);
  await db.query(`DELETE FROM marquee_key_usage_origins WHERE hour < $1`, [before]);
  await db.query(`DELETE FROM marquee_usage_batches WHERE applied_at < $1`, [new Date(now.getTime() - BATCH_IDS_KEPT_MS)]);
}

/** A key's or an organization's usage in [since, until), by hour or by day (UTC). */
export async function readUsage(db: SqlQueries, subject: UsageSubject, range: { since: Date; until: Date; by: 'hour' | 'day' }): Promise<UsageReport> {
  const [column, id] = 'keyId' in subject ? ['key_id', subject.keyId] : ['organization_id', subject.organizationId];
  // Summed to the report's buckets here, and the bucket's start handed over as a number: building
  // a Date per row was most of a 90-day read (docs/performance.md, "Usage per key").
  // By hour a row is its own bucket already (the primary key): nothing to sum.
  const rows = await db.query<{ bucket: number; key_id: string; route: string; status: number; error_code: string; requests: string }>(
    range.by === 'hour'
      ? `SELECT (extract(epoch FROM hour) * 1000)::float8 AS bucket, key_id, route, status, error_code, requests
         FROM marquee_key_usage WHERE ${column} = $1 AND hour >= $2 AND hour < $3`
      : `SELECT (extract(epoch FROM date_trunc('day', hour, 'UTC')) * 1000)::float8 AS bucket, key_id, route, status, error_code, sum(requests)::bigint AS requests
         FROM marquee_key_usage WHERE ${column} = $1 AND hour >= $2 AND hour < $3 GROUP BY 1, 2, 3, 4, 5`,
    [id, range.since, range.until],
  );
  const origins = await db.query<{ origin: string; requests: string }>(
    `SELECT origin, sum(requests)::bigint AS requests FROM marquee_key_usage_origins WHERE ${column} = $1 AND hour >= $2 AND hour < $3 GROUP BY origin`,
    [id, range.since, range.until],
  );
  const usage: UsageRow[] = rows.map((row) => ({
    hour: Number(row.bucket),
    keyId: row.key_id,
    route: row.route,
    status: Number(row.status),
    errorCode: row.error_code,
    requests: Number(row.requests),
  }));
  return usageReport(
    subject,
    range,
    usage,
    origins.map((row) => ({ origin: row.origin, requests: Number(row.requests) })),
  );
}

/** Requests per key since `since` (`keys list`, the console's key table); keys without any are absent. */
export async function requestsSince(db: SqlQueries, since: Date, organizationId?: string): Promise<Map<string, number>> {
  const rows = await db.query<{ key_id: string; requests: string }>(
    organizationId === undefined
      ? `SELECT key_id, sum(requests)::bigint AS requests FROM marquee_key_usage WHERE hour >= $1 GROUP BY key_id`
      : `SELECT key_id, sum(requests)::bigint AS requests FROM marquee_key_usage WHERE hour >= $1 AND organization_id = $2 GROUP BY key_id`,
    organizationId === undefined ? [since] : [since, organizationId],
  );
  return new Map(rows.map((row) => [row.key_id, Number(row.requests)]));
}

/** One row per primary key: a statement's ON CONFLICT must not meet the same row twice. */
function summedCounts(counts: readonly RequestCount[]): RequestCount[] {
  const sums = new Map<string, RequestCount>();
  for (const count of counts) {
    const id = `${count.keyId}\n${count.hour}\n${count.route}\n${count.status}\n${count.errorCode}`;
    const earlier = sums.get(id);
    sums.set(id, earlier === undefined ? count : { ...earlier, requests: earlier.requests + count.requests });
  }
  return [...sums.values()];
}

function summedOrigins(origins: readonly RefusedOriginCount[]): RefusedOriginCount[] {
  const sums = new Map<string, RefusedOriginCount>();
  for (const origin of origins) {
    const id = `${origin.keyId}\n${origin.hour}\n${origin.origin}`;
    const earlier = sums.get(id);
    sums.set(id, earlier === undefined ? origin : { ...earlier, requests: earlier.requests + origin.requests });
  }
  return [...sums.values()];
}

async function addCounts(tx: SqlQueries, counts: readonly RequestCount[]): Promise<void> {
  if (counts.length === 0) return;
  await tx.query(
    `INSERT INTO marquee_key_usage AS u (key_id, hour, route, status, error_code, organization_id, requests)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::int2[], $5::text[], $6::text[], $7::int8[])
     ON CONFLICT (key_id, hour, route, status, error_code) DO UPDATE SET requests = u.requests + excluded.requests`,
    [
      counts.map((c) => c.keyId),
      counts.map((c) => new Date(c.hour).toISOString()),
      counts.map((c) => c.route),
      counts.map((c) => c.status),
      counts.map((c) => c.errorCode),
      counts.map((c) => c.organizationId),
      counts.map((c) => c.requests),
    ],
  );
}

/** Adds refused origins, new ones past ORIGINS_PER_KEY_HOUR for their key and hour under ''. */
async function addOrigins(tx: SqlQueries, origins: readonly RefusedOriginCount[]): Promise<void> {
  if (origins.length === 0) return;
  const pairs = [...new Map(origins.map((o) => [`${o.keyId}\n${o.hour}`, o])).values()];
  const known = await tx.query<{ key_id: string; hour: Date; origin: string }>(
    `SELECT o.key_id, o.hour, o.origin FROM marquee_key_usage_origins o
     JOIN unnest($1::text[], $2::timestamptz[]) AS wanted (key_id, hour) ON o.key_id = wanted.key_id AND o.hour = wanted.hour`,
    [pairs.map((o) => o.keyId), pairs.map((o) => new Date(o.hour).toISOString())],
  );
  const rows = summedOrigins(
    boundedOrigins(
      known.map((row) => ({ keyId: row.key_id, hour: new Date(row.hour).getTime(), origin: row.origin })),
      origins,
    ),
  );
  await tx.query(
    `INSERT INTO marquee_key_usage_origins AS u (key_id, hour, origin, organization_id, requests)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::int8[])
     ON CONFLICT (key_id, hour, origin) DO UPDATE SET requests = u.requests + excluded.requests`,
    [rows.map((o) => o.keyId), rows.map((o) => new Date(o.hour).toISOString()), rows.map((o) => o.origin), rows.map((o) => o.organizationId), rows.map((o) => o.requests)],
  );
}

/**
 * The origins to add, given those already kept: one already kept, or new while its key and hour
 * keep fewer than ORIGINS_PER_KEY_HOUR, keeps its name; any other is counted under ''. Pure.
 */
function boundedOrigins(known: readonly { keyId: string; hour: number; origin: string }[], incoming: readonly RefusedOriginCount[]): RefusedOriginCount[] {
  const kept = new Map<string, Set<string>>();
  for (const row of known) {
    const pair = `${row.keyId}\n${row.hour}`;
    kept.set(pair, (kept.get(pair) ?? new Set()).add(row.origin));
  }
  // The most frequent first, so that what the bound folds away is the rarest.
  const byFrequency = [...incoming].sort((a, b) => b.requests - a.requests);
  return byFrequency.map((origin) => {
    const pair = `${origin.keyId}\n${origin.hour}`;
    const origins = kept.get(pair) ?? new Set<string>();
    kept.set(pair, origins);
    if (origins.has(origin.origin)) return origin;
    const named = origins.size - (origins.has('') ? 1 : 0);
    if (named < ORIGINS_PER_KEY_HOUR) {
      origins.add(origin.origin);
      return origin;
    }
    origins.add('');
    return { ...origin, origin: '' };
  });
}
