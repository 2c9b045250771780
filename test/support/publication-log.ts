// The publication log's tests and benchmark: well-formed records to append, and the log's two
// databases — a PostgreSQL 15 server (one per file, one database per log) and a new PGlite (a copy of
// an empty one: fresh-pglite.ts) —
// each with Marquee's migrations applied.
import { createHash, randomUUID } from 'node:crypto';
import { openPostgres } from '../../records/database/postgres.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import type { LogRecord } from '../../records/publication-log/log-entry.ts';
import { migrateMarquee } from '../../records/schema/migrate.ts';
import { newSnapshotId } from '../../snapshot/layout.ts';
import { openFreshPglite } from './fresh-pglite.ts';
import { createDatabase, startPostgres, type TestPostgres } from './postgres.ts';

export const LOG_ORGANIZATIONS = ['0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b', '9f8e7d6c-5b4a-4321-8fed-cba987654321'] as const;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The `n`th of a stream of records: mostly manifests of two organizations, a state record, a removal and a trail head now and then. `salt` makes another stream. */
export function logRecord(n: number, salt = ''): LogRecord {
  const organizationId = LOG_ORGANIZATIONS[n % 2]!;
  const at = new Date(Date.UTC(2026, 10, 26, 10, 0, 0) + n);
  const hash = sha256(`${salt}record ${n}`);
  switch (n % 10) {
    case 3:
      return { kind: 'state-record', organizationId, id: `${at.toISOString().replace(/[-:]/g, '').replace('.', '')}-suspended`, hash };
    case 6:
      return { kind: 'removal', organizationId, removed: 'manifest', reason: 'retention', id: newSnapshotId(at, sha256(`${salt}old ${n}`)), hash };
    case 9:
      return { kind: 'trail-head', id: String(n + 1), hash };
    default:
      return { kind: 'manifest', organizationId, id: newSnapshotId(at, hash), hash };
  }
}

export const logRecords = (from: number, count: number, salt = ''): LogRecord[] => Array.from({ length: count }, (_, offset) => logRecord(from + offset, salt));

export interface LogDatabase {
  /** A fresh database with Marquee's migrations applied, and a way to open `count` clients on it. */
  open(count?: number): Promise<SqlClient[]>;
}

/** PostgreSQL (started on first use) and PGlite; `close` stops the server and closes every client. */
export function logDatabases(): { backends: Array<{ name: 'PostgreSQL' | 'PGlite' } & LogDatabase>; close(): Promise<void>; postgres(): Promise<TestPostgres> } {
  let server: Promise<TestPostgres> | undefined;
  const opened: SqlClient[] = [];
  const postgres = () => (server ??= startPostgres());
  return {
    postgres,
    backends: [
      {
        name: 'PostgreSQL',
        async open(count = 1) {
          const url = await createDatabase((await postgres()).url, `log_${randomUUID().replaceAll('-', '')}`);
          const clients = await Promise.all(Array.from({ length: count }, () => openPostgres(url)));
          opened.push(...clients);
          await migrateMarquee(clients[0]!);
          return clients;
        },
      },
      {
        name: 'PGlite',
        // One in-process session: "several clients" are the same one, taking turns as its callers do.
        async open(count = 1) {
          const db = await openFreshPglite();
          opened.push(db);
          await migrateMarquee(db);
          return Array.from({ length: count }, () => db);
        },
      },
    ],
    async close() {
      await Promise.all(opened.map((db) => db.close().catch(() => {})));
      if (server !== undefined) await (await server).stop();
    },
  };
}
