// The builder's fleet figures on /metrics (builder/fleet-figures.ts): how far the store's snapshots
// lag behind the platform, read from Marquee's version relations on a real (embedded) PostgreSQL,
// whoever built what; and figures that stay as last read, with one warning, while a source fails.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerFleetFigures } from '../../../builder/fleet-figures.ts';
import { snapshotLag } from '../../../builder/platform/snapshot-lag.ts';
import { openFreshPglite } from '../../support/fresh-pglite.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { seeded } from '../../support/sample-build.ts';

const STORE = 'directory /srv/marquee/snapshots';
const TEN_MINUTES = 10 * 60_000;
let db: SqlClient;
let organizations: string[];

beforeAll(async () => {
  db = await seeded(await openFreshPglite());
  await migrateMarquee(db);
  organizations = (await db.query<{ id: string }>('SELECT id FROM organizations ORDER BY id')).map((row) => row.id);
}, 60_000);
afterAll(async () => {
  await db?.close();
});

/** Every organization recorded as built into STORE from its current source version. */
async function builtEverything(): Promise<void> {
  await db.query(
    `INSERT INTO marquee_built_versions (store, organization_id, source_version, projection_version, built_at)
     SELECT $1, organization_id, version, 'p1', now() FROM marquee_source_versions
     ON CONFLICT (store, organization_id) DO UPDATE SET source_version = excluded.source_version, built_at = excluded.built_at`,
    [STORE],
  );
}

describe('snapshotLag', () => {
  it('is nothing once every change was built, the change not built since it was made, and stale once that is older than the threshold', async () => {
    // Seeded: every organization's rows changed just now, and nothing was built into any store.
    const fresh = await snapshotLag(db, STORE, TEN_MINUTES);
    expect(fresh.stale).toBe(0);
    expect(Math.abs(Date.now() - fresh.oldestChangeMs!)).toBeLessThan(60_000);

    await builtEverything();
    expect(await snapshotLag(db, STORE, TEN_MINUTES)).toEqual({ oldestChangeMs: undefined, stale: 0 });

    // One organization changed an hour ago, and no builder built it since.
    const hourAgo = Date.now() - 3_600_000;
    await db.query(`UPDATE marquee_source_versions SET version = version + 1000, changed_at = to_timestamp($2::float8 / 1000) WHERE organization_id = $1`, [
      organizations[0],
      hourAgo,
    ]);
    const lagging = await snapshotLag(db, STORE, TEN_MINUTES);
    expect(lagging.stale).toBe(1);
    expect(Math.abs(lagging.oldestChangeMs! - hourAgo)).toBeLessThan(5);
    // Under a threshold longer than its wait, lagging but not stale.
    expect((await snapshotLag(db, STORE, 2 * 3_600_000)).stale).toBe(0);
    // What is built into one store says nothing of another.
    expect((await snapshotLag(db, 'directory /elsewhere', TEN_MINUTES)).stale).toBe(1);
  });
});

describe('registerFleetFigures', () => {
  it('shows the figures read in the background, the oldest change aged at scrape time, and keeps the last ones while a source fails', async () => {
    const registry = new Registry();
    const log = new RecordingLog();
    let now = Date.now();
    let backlogFails = false;
    const figures = registerFleetFigures(
      registry,
      {
        snapshotLag: () => snapshotLag(db, STORE, TEN_MINUTES),
        webhookBacklog: async () => {
          if (backlogFails) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
          return 7;
        },
        usageBatchesWaiting: async () => 3,
      },
      { log, intervalMs: 20, clock: () => now },
    );
    const value = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value;
    try {
      await figures.firstReading;
      const [{ changed }] = (await db.query<{ changed: number }>(
        `SELECT (extract(epoch FROM changed_at) * 1000)::float8 AS changed FROM marquee_source_versions WHERE organization_id = $1`,
        [organizations[0]],
      )) as [{ changed: number }];
      now = changed + 90_000;
      expect(await value('marquee_snapshot_oldest_age_seconds')).toBeCloseTo(90, 0);
      expect([await value('marquee_snapshots_stale'), await value('marquee_webhook_backlog'), await value('marquee_usage_batches_waiting')]).toEqual([1, 7, 3]);

      backlogFails = true;
      await expect.poll(() => log.lines.filter((line) => line.level === 'warn').length).toBe(1);
      expect(log.lines[0]!.fields).toMatchObject({ reason: 'connect ECONNREFUSED 127.0.0.1:5432' });
      expect(await value('marquee_webhook_backlog')).toBe(7);
      backlogFails = false;
      await expect.poll(() => log.lines.map((line) => line.message)).toContain('the fleet figures of /metrics are read again');
      // One warning for the whole outage, however many readings failed.
      expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    } finally {
      figures.stop();
    }
  });
});
