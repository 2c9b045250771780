// A run whose process died is not shown running forever (docs/design.md "Runs are part of the
// record"): the record of runs on PGlite, Marquee's relations migrated as every builder does. A run
// under way that nobody has written for longer than four keep-alives reads as failed, saying why; the
// process that has it, alive after all, shows its live copy and writes it under way again; an end
// recorded stays final.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openFreshPglite } from '../../support/fresh-pglite.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import type { BuildRun } from '../../../builder/runs/build-runs.ts';
import { DatabaseRunRecord, mergeRuns } from '../../../records/runs/run-record.ts';

let db: SqlClient;
beforeAll(async () => {
  db = await openFreshPglite();
  await migrateMarquee(db);
}, 60_000);
afterAll(async () => {
  await db?.close();
});

const run = (id: string, fields: Partial<BuildRun> = {}): BuildRun => ({
  id,
  trigger: 'schedule',
  requestedBy: 'schedule',
  scope: 'changed',
  state: 'running',
  done: 1,
  total: 3,
  skipped: 0,
  queuedAt: '2026-11-26T09:00:00.000Z',
  startedAt: '2026-11-26T09:00:01.000Z',
  finishedAt: null,
  organizations: [],
  ...fields,
});

/** As if the run's last write was this long ago. */
const writtenAgo = (id: string, seconds: number) => db.query(`UPDATE marquee_run_records SET written_at = now() - $2 * interval '1 second' WHERE id = $1`, [id, seconds]);

it('shows a run under way that nobody wrote for two minutes as failed, saying why; its live copy and its next write bring it back; an end stays final', async () => {
  const record = new DatabaseRunRecord<BuildRun>(db);
  await record.save(run('r-left'));
  await record.save(run('r-ended', { state: 'finished', done: 3, finishedAt: '2026-11-26T09:02:00.000Z' }));
  await writtenAgo('r-left', 90);
  await writtenAgo('r-ended', 600);
  expect(await record.get('r-left')).toMatchObject({ state: 'running' });

  await writtenAgo('r-left', 121);
  const left = await record.get('r-left');
  expect(left).toMatchObject({ state: 'failed', error: expect.stringContaining('stopped writing it before it ended') });
  expect(await record.get('r-ended')).toMatchObject({ state: 'finished' });
  // The process that has it under way shows its own copy, not the record's guess.
  const live = run('r-left', { done: 2 });
  expect(mergeRuns(await record.list(10), [live], 10).find((shown) => shown.id === 'r-left')).toEqual(live);
  expect(mergeRuns(await record.list(10), [], 10).find((shown) => shown.id === 'r-left')).toMatchObject({ state: 'failed' });

  // Its keep-alive write: under way again.
  await record.save(live);
  expect(await record.get('r-left')).toMatchObject({ state: 'running', done: 2 });
});
