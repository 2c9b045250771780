// The WorkList contract (test/contracts/work-list.ts) against DatabaseWorkList on a real
// PostgreSQL, each other builder a connection pool of its own as another builder process has, and
// on PGlite, the embedded database, where every builder shares its one session.
import { afterAll, beforeAll } from 'vitest';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import { openPglite } from '../../../records/database/pglite.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { DatabaseWorkList } from '../../../builder/runs/database-work-list.ts';
import { workListContract } from '../../contracts/work-list.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';

let postgres: TestPostgres;
let pglite: SqlClient;
beforeAll(async () => {
  [postgres, pglite] = await Promise.all([startPostgres(), openPglite()]);
  // Every builder migrates at start, before it opens a work list.
  await migrateMarquee(pglite);
}, 60_000);
afterAll(async () => {
  await pglite?.close();
  await postgres?.stop();
});

const claimTimeoutMs = 500;

workListContract('DatabaseWorkList on PostgreSQL', {
  async setup() {
    const opened: SqlClient[] = [];
    const connect = async () => {
      const db = await openPostgres(postgres.url);
      opened.push(db);
      await migrateMarquee(db);
      return new DatabaseWorkList(db, { claimTimeoutMs });
    };
    // Each view is another builder's connections; made up front, since `view()` answers at once.
    const views = await Promise.all([connect(), connect(), connect()]);
    // Each test starts where a production database is before a run is opened: its run relations
    // empty and analyzed so (autovacuum's doing). Estimating a run's rows from those statistics,
    // PostgreSQL plans a claim as a nested loop that runs its LIMIT once per row: a claim written
    // as a plain subquery then took every organization of the run (the bench found it).
    await opened[0]!.exec('TRUNCATE marquee_runs, marquee_run_organizations, marquee_run_results; ANALYZE marquee_runs, marquee_run_organizations, marquee_run_results;');
    let next = 0;
    return { list: await connect(), view: () => views[next++ % views.length]!, claimTimeoutMs, opened };
  },
  teardown: async ({ opened }) => {
    await Promise.all(opened.map((db) => db.close()));
  },
});

workListContract('DatabaseWorkList on PGlite', {
  setup() {
    const list = new DatabaseWorkList(pglite, { claimTimeoutMs });
    return { list, view: () => new DatabaseWorkList(pglite, { claimTimeoutMs }), claimTimeoutMs };
  },
});
