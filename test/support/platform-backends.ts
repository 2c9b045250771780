// The two platform backends every platform test runs against: a real PostgreSQL 15 (one server
// per test file, one database per `open`) and a new PGlite (a copy of an empty one: fresh-pglite.ts).
import { randomUUID } from 'node:crypto';
import { listenForChanges } from '../../builder/platform/changes.ts';
import { openPostgres } from '../../records/database/postgres.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import { openFreshPglite } from './fresh-pglite.ts';
import { createDatabase, startPostgres, type TestPostgres } from './postgres.ts';

export interface Backend {
  name: 'PostgreSQL' | 'PGlite';
  /** A fresh, empty database. */
  open(options?: { schema?: string; marqueeSchema?: string }): Promise<SqlClient>;
}

/** Starts PostgreSQL lazily and stops it (and closes every opened client) in `close`. */
export function platformBackends(): { backends: Backend[]; close(): Promise<void> } {
  let server: Promise<TestPostgres> | undefined;
  const opened: SqlClient[] = [];
  const track = (db: SqlClient) => {
    opened.push(db);
    return db;
  };
  return {
    backends: [
      {
        name: 'PostgreSQL',
        async open(options = {}) {
          server ??= startPostgres();
          const url = await createDatabase((await server).url, `platform_${randomUUID().replaceAll('-', '')}`);
          return track(await openPostgres(url, options));
        },
      },
      { name: 'PGlite', open: async (options = {}) => track(await openFreshPglite(options)) },
    ],
    async close() {
      await Promise.all(opened.map((db) => db.close().catch(() => {})));
      await (await server)?.stop();
    },
  };
}

/** Any uuid that no sample row has: sent last, it marks the end of the notifications before it. */
const SENTINEL = 'ffffffff-ffff-4fff-8fff-ffffffffffff';

/**
 * The organizations notified while `change` ran, sorted. Notifications arrive in commit order on
 * one connection, so once the sentinel sent after `change` arrives, every earlier one has.
 */
export async function organizationsNotifiedBy(db: SqlClient, change: () => Promise<unknown>): Promise<string[]> {
  const notified = new Set<string>();
  let sentinelSeen: () => void = () => {};
  const sentinel = new Promise<void>((resolve) => (sentinelSeen = resolve));
  const unsubscribe = await listenForChanges(db, (organizationId) => {
    if (organizationId === SENTINEL) sentinelSeen();
    else notified.add(organizationId);
  });
  try {
    await change();
    await db.query(`SELECT pg_notify('marquee_changes', $1)`, [SENTINEL]);
    await sentinel;
  } finally {
    await unsubscribe();
  }
  return [...notified].sort();
}
