// Builders following the platform's changes on a real PostgreSQL 15 (docs/design.md "on change"):
// one changed row rebuilds its organization alone; a change made while the listener was cut off by
// a database restart is published after it reconnects, without anyone asking for a build; and two
// builders on one database and one store, sharing build locks in a real Redis, never build one
// organization at the same time and leave every organization as its last change made it.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditStore } from '../../../builder/history/audit.ts';
import type { BuildContext } from '../../../builder/build.ts';
import type { BuildLease, BuildLocks } from '../../../builder/build-locks.ts';
import { listenForChanges } from '../../../builder/platform/changes.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import { migrate } from '../../../builder/platform/migrations.ts';
import { SAMPLE, seedSample } from '../../../builder/platform/sample.ts';
import { SqlPlatformSource } from '../../../builder/platform/source.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { RedisBuildLocks } from '../../../builder/redis-build-locks.ts';
import { BuildRunner } from '../../../builder/runs/runner.ts';
import { resourcePath } from '../../../snapshot/resource-catalog.ts';
import { readPointer } from '../../../snapshot/reader.ts';
import { SchemaSet } from '../../../snapshot/schemas.ts';
import type { SnapshotStore } from '../../../snapshot/store.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { createDatabase, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { readWholeSnapshot } from '../../support/snapshot-integrity.ts';
import { until } from '../../support/until.ts';

const { nordic, pacific, harbor, oldTown } = SAMPLE.organizations;
const schemas = new SchemaSet();

let postgres: TestPostgres;
let redis: TestRedis;
beforeAll(async () => {
  [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
});
afterAll(async () => {
  await Promise.all([postgres?.stop(), redis?.stop()]);
});

const opened: Array<{ close(): Promise<unknown> }> = [];
afterAll(async () => {
  for (const part of opened.reverse()) await part.close().catch(() => {});
});
function keep<T extends { close(): Promise<unknown> }>(part: T): T {
  opened.push(part);
  return part;
}

/** A fresh database with the platform relations and the sample organizations; its URL. */
async function platform(): Promise<string> {
  const url = await createDatabase(postgres.url, `platform_${randomUUID().replaceAll('-', '')}`);
  const db = await openPostgres(url);
  try {
    await migrate(db);
    await migrateMarquee(db);
    await seedSample(db, { now: new Date() });
  } finally {
    await db.close();
  }
  return url;
}

/** One statement on a connection of its own, as the platform's application makes its changes; its rows. */
async function platformChange(url: string, text: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

function context(db: SqlClient, store: SnapshotStore, locks?: BuildLocks): BuildContext {
  return { source: new SqlPlatformSource(db), store, schemas, publicBaseUrl: 'https://events.example.com', builderVersion: 'test', ...(locks ? { locks } : {}) };
}

/** A builder as `marquee builder` wires one: listening before its first build, catching up after a reconnect. */
async function follow(db: SqlClient, runner: BuildRunner): Promise<void> {
  const unlisten = await listenForChanges(db, (id) => runner.organizationChanged(id), { onReconnect: () => runner.catchUp() });
  keep({
    close: async () => {
      await runner.stop();
      await unlisten();
    },
  });
  await runner.build('start');
}

async function organizationName(store: SnapshotStore, organizationId: string): Promise<string | undefined> {
  const pointer = await readPointer(store, organizationId);
  if (pointer?.state !== 'active') return undefined;
  return ((await readWholeSnapshot(store, organizationId)).resources[resourcePath.organization] as { name: string }).name;
}

/** The moment `check` first holds, asked every 5 ms; throws after `timeoutMs`. */
function when(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  return until('the store to show the change', async () => (await check()) && performance.now(), { timeoutMs, intervalMs: 5 });
}

describe('a builder following changes', () => {
  it('rebuilds only the changed organization, within about a second', async () => {
    const url = await platform();
    const db = keep(await openPostgres(url));
    const store = new MemoryStore();
    const log = new RecordingLog();
    const runner = new BuildRunner(context(db, store), { log });
    await follow(db, runner);
    const before = new Map([...store.entries].map(([key, entry]) => [key, entry.version]));

    const changed = performance.now();
    await platformChange(url, `UPDATE organizations SET name = 'Nordic Developers' WHERE id = $1`, [nordic.id]);
    const published = await when(async () => (await organizationName(store, nordic.id)) === 'Nordic Developers', 5_000);
    console.info(`change → published: ${Math.round(published - changed)} ms (150 ms of it the quiet period)`);
    expect(published - changed).toBeLessThan(5_000);

    await runner.stop();
    const touched = [...store.entries].filter(([key, entry]) => before.get(key) !== entry.version).map(([key]) => key.split('/')[1]);
    expect(new Set(touched)).toEqual(new Set([nordic.id]));
    const changeBuilds = log.lines.filter((line) => line.fields.trigger === 'change');
    expect(changeBuilds).toEqual([expect.objectContaining({ level: 'info', fields: expect.objectContaining({ organizationId: nordic.id, result: 'published' }) })]);
  });

  it('publishes a change made while a database restart cut the listener off, once it reconnects, with nobody calling build', async () => {
    const url = await platform();
    // The builder logs in as a role of its own (SELECT only, as docs/platform.md asks), so that the
    // test can keep it out after the restart while the platform's application makes a change.
    const role = `builder_${randomUUID().slice(0, 8)}`;
    await platformChange(url, `CREATE ROLE ${role} LOGIN`);
    await platformChange(url, `GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`);
    // Marquee's own relations were migrated by another role (as `marquee db migrate` run by an
    // administrator): the builder's role is granted their use (docs/platform.md §7).
    await platformChange(url, `GRANT USAGE ON SCHEMA marquee TO ${role}`);
    await platformChange(url, `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA marquee TO ${role}`);
    await platformChange(url, `GRANT USAGE ON ALL SEQUENCES IN SCHEMA marquee TO ${role}`);
    const builderUrl = new URL(url);
    builderUrl.username = role;
    const db = keep(await openPostgres(builderUrl.toString()));
    const store = new MemoryStore();
    const log = new RecordingLog();
    const runner = new BuildRunner(context(db, store), { log });
    await follow(db, runner);

    await platformChange(url, `ALTER ROLE ${role} NOLOGIN`);
    await postgres.halt();
    await postgres.resume();
    // Nobody hears this: the builder cannot log in again yet, so it has no connection at all.
    await platformChange(url, `UPDATE organizations SET name = 'Nordic after the restart' WHERE id = $1`, [nordic.id]);
    expect(await platformChange(url, 'SELECT pid FROM pg_stat_activity WHERE usename = $1', [role])).toEqual([]);
    const readmitted = performance.now();
    await platformChange(url, `ALTER ROLE ${role} LOGIN`);

    const published = await when(async () => (await organizationName(store, nordic.id)) === 'Nordic after the restart', 15_000);
    console.info(`builder let in again → missed change published: ${Math.round(published - readmitted)} ms (the listener retries every second)`);
    // And it listens again: the next change is heard.
    await platformChange(url, `UPDATE organizations SET name = 'Pacific after the restart' WHERE id = $1`, [pacific.id]);
    await when(async () => (await organizationName(store, pacific.id)) === 'Pacific after the restart', 5_000);
    await runner.stop();
    const catchUp = log.lines.findIndex((line) => line.message.startsWith('listening for platform changes again'));
    expect(catchUp).toBeGreaterThan(0);
    expect(log.lines.slice(catchUp + 1)).toContainEqual(
      expect.objectContaining({ fields: expect.objectContaining({ trigger: 'change', organizationId: nordic.id, result: 'published' }) }),
    );
  });
});

interface Holding {
  organizationId: string;
  builder: string;
  start: number;
  end: number;
}

/** Writes down when each lease was held: from its acquire's answer to its release's call (within the real holding). */
class RecordingLocks implements BuildLocks {
  constructor(
    private readonly inner: BuildLocks,
    private readonly builder: string,
    private readonly holdings: Holding[],
  ) {}
  async acquire(organizationId: string): Promise<BuildLease | undefined> {
    const lease = await this.inner.acquire(organizationId);
    if (!lease) return undefined;
    const start = performance.now();
    return {
      release: async () => {
        this.holdings.push({ organizationId, builder: this.builder, start, end: performance.now() });
        await lease.release();
      },
    };
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

describe('two builders on one database and one store, with build locks in Redis', () => {
  it('leave every organization as its last change made it, never building one organization twice at once', async () => {
    const url = await platform();
    const store = new MemoryStore();
    const holdings: Holding[] = [];
    const keyPrefix = `marquee:test:${randomUUID()}:`;
    const logs = [new RecordingLog(), new RecordingLog()];
    // Both start at once, as two builder processes do, then follow the same notifications.
    const runners = await Promise.all(
      ['A', 'B'].map(async (builder, index) => {
        const db = keep(await openPostgres(url));
        const locks = keep(new RedisBuildLocks(redis.url, { log: logs[index]!, keyPrefix }));
        const runner = new BuildRunner(context(db, store, new RecordingLocks(locks, builder, holdings)), { log: logs[index]!, debounceMs: 20 });
        await follow(db, runner);
        return runner;
      }),
    );

    // A burst: 40 changes over three organizations, one of them reactivated half-way.
    const names = new Map<string, string>();
    const burstStarted = performance.now();
    for (let change = 0; change < 40; change++) {
      const organization = [nordic, pacific, harbor][change % 3]!;
      const name = `${organization.slug} #${change}`;
      names.set(organization.id, name);
      await platformChange(url, `UPDATE organizations SET name = $2 WHERE id = $1`, [organization.id, name]);
      if (change === 20) await platformChange(url, `UPDATE organizations SET status = 'active' WHERE id = $1`, [harbor.id]);
      await sleep(change % 7);
    }
    const lastChange = performance.now();
    const settled = await when(async () => {
      for (const [id, name] of names) if ((await organizationName(store, id)) !== name) return false;
      return true;
    }, 15_000);
    console.info(`40 changes in ${Math.round(lastChange - burstStarted)} ms; last change → both builders' snapshots settled: ${Math.round(settled - lastChange)} ms`);
    for (const runner of runners) await runner.stop();

    // Still the last change once every build is over: no build that read earlier published later.
    for (const [id, name] of names) expect(await organizationName(store, id)).toBe(name);
    expect((await readPointer(store, oldTown.id))?.state).toBe('closed');
    expect((await auditStore(store)).findings).toEqual([]);

    const byOrganization = new Map<string, Holding[]>();
    for (const holding of holdings) byOrganization.set(holding.organizationId, [...(byOrganization.get(holding.organizationId) ?? []), holding]);
    for (const [organizationId, held] of byOrganization) {
      const ordered = held.sort((a, b) => a.start - b.start);
      for (let i = 1; i < ordered.length; i++) {
        expect(ordered[i]!.start, `builds of ${organizationId} overlap: ${JSON.stringify(ordered.slice(i - 1, i + 1))}`).toBeGreaterThanOrEqual(ordered[i - 1]!.end);
      }
    }
    const builds = (builder: string) => holdings.filter((holding) => holding.builder === builder).length;
    console.info(`lock holdings: ${holdings.length} (builder A ${builds('A')}, builder B ${builds('B')}) over ${byOrganization.size} organizations`);
    expect(builds('A')).toBeGreaterThan(4);
    expect(builds('B')).toBeGreaterThan(4);
    for (const log of logs) expect(log.lines.filter((line) => line.level !== 'info')).toEqual([]);
  });
});
