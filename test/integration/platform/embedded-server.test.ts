// The embedded database served on a loopback port by the process that holds it (start): another
// opener goes through it instead of being refused, a change made through it reaches the holder's
// listeners (that is what triggers a build), and the one PGlite session is taken in turns, so a
// transaction of either side never sees or swallows the other's statements.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openPlatformDatabase } from '../../../builder/platform/database/database-backends.ts';
import type { SqlClient } from '../../../builder/platform/sql.ts';

let home: string;
let holder: SqlClient;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-served-'));
  holder = await openPlatformDatabase({ home, serve: true });
  await holder.exec(`
    CREATE TABLE notes (body text NOT NULL);
    CREATE FUNCTION notes_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('notes', NEW.body); RETURN NEW; END $$;
    CREATE TRIGGER notes_changed AFTER INSERT ON notes FOR EACH ROW EXECUTE FUNCTION notes_changed();`);
});
afterEach(async () => {
  await holder.close();
  await rm(home, { recursive: true, force: true });
});

async function servedUrl(): Promise<string> {
  return (JSON.parse(await readFile(join(home, 'platform', 'served.json'), 'utf8')) as { url: string }).url;
}

const count = async (db: SqlClient) => Number((await db.query<{ n: number | string }>('SELECT count(*) AS n FROM notes'))[0]!.n);

it('lets a second opener in through the holder, whose listeners hear the changes it makes', async () => {
  const heard: string[] = [];
  const unlisten = await holder.listen('notes', (payload) => heard.push(payload));
  const other = await openPlatformDatabase({ home });
  try {
    expect(other.description).toMatch(new RegExp(`^PGlite ${join(home, 'platform')} \\(through process ${process.pid}, 127\\.0\\.0\\.1:\\d+/postgres\\)$`));
    await other.query("INSERT INTO notes VALUES ('from the CLI')");
    await holder.query("INSERT INTO notes VALUES ('from start')");
    await expect.poll(() => heard.sort()).toEqual(['from start', 'from the CLI']);
    expect(await count(other)).toBe(2);
    expect(await count(holder)).toBe(2);
  } finally {
    await other.close();
    await unlisten();
  }
});

it("runs the holder's statements only outside a client's transaction, and a client's only outside the holder's", async () => {
  const client = new pg.Client({ connectionString: await servedUrl() });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query("INSERT INTO notes VALUES ('uncommitted')");
    let holderCount: number | undefined;
    const reading = count(holder).then((n) => (holderCount = n));
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The holder waits: it neither sees the client's uncommitted row nor runs inside its transaction.
    expect(holderCount).toBeUndefined();
    await client.query('COMMIT');
    await reading;
    expect(holderCount).toBe(1);

    let clientCount: number | undefined;
    let reading2: Promise<unknown> = Promise.resolve();
    await holder.transaction(async (tx) => {
      await tx.query("INSERT INTO notes VALUES ('holder, uncommitted')");
      reading2 = client
        .query<{ n: string }>('SELECT count(*) AS n FROM notes')
        .then(({ rows }) => Number(rows[0]!.n))
        .then((n) => (clientCount = n));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(clientCount).toBeUndefined();
    });
    // The client's read waited for the holder's transaction: it neither saw the row early nor joined it.
    await reading2;
    expect(clientCount).toBe(2);
  } finally {
    await client.end();
  }
});

it('stops serving when the holder closes: the advertisement goes, and the next opener holds the database itself', async () => {
  await holder.close();
  await expect(readFile(join(home, 'platform', 'served.json'))).rejects.toThrow(/ENOENT/);
  holder = await openPlatformDatabase({ home });
  expect(holder.description).toBe(`PGlite ${join(home, 'platform')}`);
  expect(await count(holder)).toBe(0);
});
