// What two builders of a fleet log, read as an operator reads it (docs/design.md "Production shape (many machines)"): each
// starts on a real PostgreSQL and a real Redis without a warning or a stack trace (the usage intake
// once sent its first command before its Redis connection was up, and logged the failure with its
// stack at every start); the second to start in a period does not run again the scheduled run the
// first ran for it, and says so in one line as it runs only its catch-up; and while PostgreSQL is down, a warning names the database, not the
// snapshot store that answers all along. A builder starting when no other runs does its start-up
// run whatever the period's claim says: what changed while none listened is built at once. The
// builders run in this process, each with its own connections, logging to a RecordingLog.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BuilderProcess, openBuilderProcess } from '../../../bin/builder-process.ts';
import { parseConfig } from '../../../bin/config.ts';
import { migrate } from '../../../builder/platform/migrations.ts';
import { SAMPLE, seedSample } from '../../../builder/platform/sample.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import { encodeBatch } from '../../../records/usage/usage-batch.ts';
import { RedisUsageSpool } from '../../../records/usage/redis-usage-spool.ts';
import { BackendStates } from '../../../runtime/backend-states.ts';
import { ProcessReadiness } from '../../../runtime/readiness.ts';
import { closeRedis, connectRedis } from '../../../runtime/redis-connection.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { until } from '../../support/until.ts';

let postgres: TestPostgres;
let redis: TestRedis;
let home: string;
/** The test's own connection; each builder opens and closes its own. */
let db: SqlClient;
const builders: BuilderProcess[] = [];

beforeAll(async () => {
  [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  home = await mkdtemp(join(tmpdir(), 'marquee-builder-start-logs-'));
  db = await openPostgres(postgres.url);
  await migrate(db);
  await migrateMarquee(db);
  await seedSample(db, { now: new Date() });
}, 60_000);
afterAll(async () => {
  // PostgreSQL is back by then: each closes as it would in production.
  for (const builder of builders) await builder.close();
  await db?.close();
  await Promise.all([postgres?.stop(), redis?.stop()]);
  await rm(home, { recursive: true, force: true });
});

/** A daily schedule whose time of day was an hour ago: both builders start in the same period, and none comes during the test. */
const anHourAgo = new Date(Date.now() - 60 * 60 * 1000);
const SCHEDULE = `${anHourAgo.getMinutes()} ${anHourAgo.getHours()} * * *`;

async function startBuilder(name: string, log: RecordingLog): Promise<BuilderProcess> {
  const config = parseConfig(
    {
      MARQUEE_HOME: home,
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      SNAPSHOT_STORE: join(home, 'snapshots'),
      BUILD_SCHEDULE: SCHEDULE,
      BUILDER_NAME: name,
      PORT: '0',
      ADMIN_PORT: '0',
      LOG_FORMAT: 'json',
    },
    home,
    false,
    { builds: true },
  );
  // The builder process closes the database it is handed.
  const builder = await openBuilderProcess(config, await openPostgres(postgres.url), { log, readiness: new ProcessReadiness(new BackendStates()) });
  builders.push(builder);
  await builder.run('schedule');
  return builder;
}

/** Lines above info, and every line that carries an error (whose stack the log would print). */
const noisy = (log: RecordingLog) => log.lines.filter((line) => line.level !== 'info' || Object.values(line.fields).some((value) => value instanceof Error));

const first = new RecordingLog();
const second = new RecordingLog();

it('starts two builders without a warning or a stack trace, the second not running again the period’s scheduled run the first ran', async () => {
  // A batch a gateway moved before the builders started: counted once the intake's first round works.
  const spoolConnection = await connectRedis(redis.url, {});
  await new RedisUsageSpool(spoolConnection).put({ id: 'gateway-before.1', payload: encodeBatch({ id: 'gateway-before.1', counts: [], origins: [] }) });
  await closeRedis(spoolConnection);

  await startBuilder('builder-first', first);
  await startBuilder('builder-second', second);
  await until('the waiting usage batch counted', async () => (await db.query(`SELECT 1 FROM marquee_usage_batches WHERE id = 'gateway-before.1'`)).length === 1);

  expect(noisy(first)).toEqual([]);
  expect(noisy(second)).toEqual([]);
  expect(first.lines.filter((line) => /^schedule run over \d+ organizations/.test(line.message))).toHaveLength(1);
  expect(second.lines.filter((line) => /^schedule run over/.test(line.message))).toEqual([]);
  expect(second.lines.filter((line) => line.message.startsWith('start-up run:'))).toEqual([
    expect.objectContaining({
      message: expect.stringMatching(
        /^start-up run: another builder runs the scheduled build of \S+Z, the period this builder starts in; this one builds only what changed and is not yet built$/,
      ),
    }),
  ]);
});

it('names the platform database, not the snapshot store, while PostgreSQL is down', async () => {
  const from = first.lines.length;
  await postgres.halt();
  try {
    // The audit trail's head is looked at every 10 s: its next look reads the trail in the database.
    const warning = await until(
      'a warning of the audit trail head',
      () => first.lines.slice(from).find((line) => line.level === 'warn' && line.message.startsWith('cannot keep the audit trail head')),
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(warning.message).toMatch(/^cannot keep the audit trail head: the platform database failed \(.*cannot be reached.*\); retrying$/);
    expect(warning.fields).toEqual({ backend: 'database' });
    expect(first.lines.slice(from).filter((line) => /snapshot store/.test(line.message))).toEqual([]);
  } finally {
    await postgres.resume();
  }
});

it('runs the start-up run of a builder that starts alone in a period another builder ran, building what changed while none listened', async () => {
  // Both stop cleanly, as in a restart of the fleet: no builder runs now.
  for (const builder of builders.splice(0)) await builder.close();
  await db.query('UPDATE organizations SET name = $2 WHERE id = $1', [SAMPLE.organizations.nordic.id, 'Nordic, renamed while no builder ran']);
  const alone = new RecordingLog();
  await startBuilder('builder-alone', alone);
  expect(alone.lines.filter((line) => line.message.startsWith('start-up run:'))).toEqual([]);
  expect(alone.lines.filter((line) => /^schedule run over \d+ organizations/.test(line.message))).toEqual([
    expect.objectContaining({ fields: expect.objectContaining({ built: 1, published: 1 }) }),
  ]);
});
