// The SqlClient contract on both backends: connection errors an operator can act on, transactions
// that commit or roll back as a whole, and LISTEN that can be undone.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPlatformDatabase } from '../../../records/database/database-backends.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import { PlatformDatabaseError, type SqlClient } from '../../../records/database/sql.ts';
import { startFaultProxy } from '../../support/fault-proxy.ts';
import { platformBackends } from '../../support/platform-backends.ts';
import { startPostgres } from '../../support/postgres.ts';

const { backends, close } = platformBackends();
afterAll(close);

describe('opening the platform database', () => {
  it('names what failed, without the password', async () => {
    const error = await openPostgres('postgres://marquee:s3cret@127.0.0.1:1/platform').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformDatabaseError);
    expect((error as Error).message).toBe('cannot connect to DATABASE_URL (127.0.0.1:1/platform): ECONNREFUSED');
  });

  it('refuses a PLATFORM_SCHEMA that is not a plain identifier', async () => {
    await expect(openPlatformDatabase({ home: '/nonexistent', schema: 'x; DROP TABLE y' })).rejects.toThrow(/PLATFORM_SCHEMA/);
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: names the path as the documentation writes it
  it('opens PGlite in ${home}/platform when DATABASE_URL is unset', async () => {
    const home = await mkdtemp(path.join(tmpdir(), 'marquee-home-'));
    try {
      const db = await openPlatformDatabase({ databaseUrl: undefined, home });
      expect(db.description).toBe(`PGlite ${path.join(home, 'platform')}`);
      expect(db.schema).toBe('public');
      await db.close();
      expect((await stat(path.join(home, 'platform', 'PG_VERSION'))).isFile()).toBe(true);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('PostgreSQL lost under an open client', () => {
  it('reports a statement cut off by the network as the database unreachable, and one the server refused as itself', async () => {
    const postgres = await startPostgres();
    const server = new URL(postgres.url);
    const proxy = await startFaultProxy({ host: server.hostname, port: Number(server.port) });
    const through = new URL(postgres.url);
    through.port = String(proxy.port);
    const db = await openPostgres(through.toString());
    try {
      const refused = await db.query('SELECT no_such_column').catch((error: unknown) => error);
      expect(refused).not.toBeInstanceOf(PlatformDatabaseError);
      expect((refused as Error).message).toMatch(/no_such_column/);
      proxy.set({ kind: 'reset' });
      for (const statement of [() => db.query('SELECT 1'), () => db.exec('SELECT 1'), () => db.transaction((tx) => tx.query('SELECT 1'))]) {
        const lost = await statement().catch((error: unknown) => error);
        expect(lost).toBeInstanceOf(PlatformDatabaseError);
        expect((lost as Error).message).toMatch(/^the platform database \(127\.0\.0\.1:\d+\/postgres\) cannot be reached: /);
      }
      proxy.set({ kind: 'pass' });
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
      await proxy.close();
      await postgres.stop();
    }
  });
});

describe.each(backends)('SqlClient on $name', (backend) => {
  // One database per backend (PGlite takes seconds to open); each test uses its own tables.
  let db: SqlClient;
  beforeAll(async () => {
    db = await backend.open();
  });

  it('describes itself without credentials', async () => {
    expect(db.description).toMatch(backend.name === 'PostgreSQL' ? /^PostgreSQL 127\.0\.0\.1:\d+\/platform_\w+$/ : /^PGlite \(in memory\)$/);
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    await db.exec('CREATE TABLE committed (n int PRIMARY KEY); CREATE TABLE scripted (n int)');
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO committed VALUES ($1)', [1]);
      await tx.exec('INSERT INTO scripted VALUES (1); INSERT INTO scripted VALUES (2)');
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO committed VALUES (2)');
        await tx.query('INSERT INTO committed VALUES (1)');
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await db.query('SELECT n FROM committed ORDER BY n')).toEqual([{ n: 1 }]);
    expect(await db.query('SELECT count(*)::int4 AS n FROM scripted')).toEqual([{ n: 2 }]);
  });

  it('refuses writes in a read-only transaction', async () => {
    await db.exec('CREATE TABLE readonly (n int)');
    await expect(db.transaction((tx) => tx.query('INSERT INTO readonly VALUES (1)'), { readOnly: true })).rejects.toThrow(/read-only/);
  });

  it('leaves no transaction open after a failed script', async () => {
    await db.exec('CREATE TABLE failed (n int PRIMARY KEY)');
    await expect(db.exec('BEGIN; INSERT INTO failed VALUES (1); INSERT INTO failed VALUES (1); COMMIT;')).rejects.toThrow(/duplicate key/);
    // Every pooled connection answers normally afterwards.
    const answers = await Promise.all(Array.from({ length: 8 }, () => db.query<{ n: number }>('SELECT count(*)::int4 AS n FROM failed')));
    expect(answers.flat()).toEqual(Array.from({ length: 8 }, () => ({ n: 0 })));
  });

  it('delivers notifications until unsubscribed', async () => {
    const received: string[] = [];
    const unsubscribe = await db.listen('marquee_test', (payload) => received.push(payload));
    const flushed: string[] = [];
    const other = await db.listen('marquee_other', (payload) => flushed.push(payload));
    await db.query(`SELECT pg_notify('marquee_test', 'one')`);
    await expect.poll(() => received).toEqual(['one']);
    await unsubscribe();
    await db.query(`SELECT pg_notify('marquee_test', 'two')`);
    await db.query(`SELECT pg_notify('marquee_other', 'flush')`);
    // Notifications arrive in the order they were sent: once the later one has, 'two' would have.
    await expect.poll(() => flushed).toEqual(['flush']);
    expect(received).toEqual(['one']);
    await other();
  });
});
