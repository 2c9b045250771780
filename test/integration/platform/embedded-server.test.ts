// The embedded database served on a loopback port by the process that holds it (start): another
// opener goes through it instead of being refused, a change made through it reaches the holder's
// listeners (that is what triggers a build), and the one PGlite session is taken in turns, so a
// transaction or an extended-protocol exchange of either side never sees or swallows the other's
// statements.
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { openPlatformDatabase } from '../../../records/database/database-backends.ts';
import type { SqlClient } from '../../../records/database/sql.ts';

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
    // The holder's statement asked for its turn first; the client's next one takes its turn after
    // it. Once the client has its answer, the holder's statement would have run, had it been let in.
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
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

/** A client speaking the wire protocol by hand, so that a test decides where its exchange pauses. */
async function rawClient(url: string) {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await once(socket, 'connect');
  let received = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
  const message = (type: string, body: Buffer) => {
    const head = Buffer.alloc(5);
    head.write(type, 0, 'latin1');
    head.writeInt32BE(4 + body.length, 1);
    return Buffer.concat([head, body]);
  };
  const cstring = (text: string) => Buffer.from(`${text}\0`, 'utf8');
  /** Waits for the backend messages of `type`, answers every message received so far and clears them. */
  const until = async (type: string) => {
    await vi.waitFor(() => {
      if (!types().includes(type)) throw new Error(`no ${type} yet, only ${types().join('')}`);
    });
    const seen = { types: types(), text: received.toString('latin1') };
    received = Buffer.alloc(0);
    return seen;
  };
  const types = () => {
    const found: string[] = [];
    for (let at = 0; at + 5 <= received.length; at += 1 + received.readInt32BE(at + 1)) found.push(String.fromCharCode(received[at]!));
    return found;
  };
  const startup = Buffer.concat([Buffer.from([0, 3, 0, 0]), cstring('user'), cstring('postgres'), cstring('database'), cstring('postgres'), Buffer.from([0])]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(4 + startup.length);
  socket.write(Buffer.concat([length, startup]));
  await until('Z');
  return {
    /** Parse of the unnamed statement, then Flush: the exchange is open once ParseComplete comes. */
    parse: async (sql: string) => {
      socket.write(Buffer.concat([message('P', Buffer.concat([cstring(''), cstring(sql), Buffer.from([0, 0])])), message('H', Buffer.alloc(0))]));
      await until('1');
    },
    /** Describe of the unnamed statement, then Flush: answered inside the exchange, which stays open. */
    describe: async () => {
      socket.write(Buffer.concat([message('D', Buffer.concat([Buffer.from('S'), cstring('')])), message('H', Buffer.alloc(0))]));
      return until('T');
    },
    /** Bind of the unnamed statement with text parameters, Execute, Sync: what the exchange answered. */
    finish: (parameters: string[]) => {
      const values = parameters.map((value) => {
        const bytes = Buffer.from(value, 'utf8');
        const size = Buffer.alloc(4);
        size.writeInt32BE(bytes.length);
        return Buffer.concat([size, bytes]);
      });
      const counts = Buffer.alloc(2);
      counts.writeInt16BE(parameters.length);
      const bind = Buffer.concat([cstring(''), cstring(''), Buffer.from([0, 0]), counts, ...values, Buffer.from([0, 0])]);
      socket.write(Buffer.concat([message('B', bind), message('E', Buffer.concat([cstring(''), Buffer.alloc(4)])), message('S', Buffer.alloc(0))]));
      return until('Z');
    },
    end: () => socket.end(message('X', Buffer.alloc(0))),
  };
}

it("keeps a client's exchange whole from Parse to Sync: the holder's statements and another client's wait for it", async () => {
  const raw = await rawClient(await servedUrl());
  const other = new pg.Client({ connectionString: await servedUrl() });
  await other.connect();
  try {
    await raw.parse("SELECT $1::int + 100 AS n, 'the client''s statement' AS whose");
    // Between the client's Parse and its Bind, the holder and another client each run a statement
    // of their own through the unnamed statement, if they may.
    let holderRan = false;
    let otherRan = false;
    const holderStatement = holder.query<{ t: string }>('SELECT $1::text AS t', ['holder']).finally(() => {
      holderRan = true;
    });
    const otherStatement = other.query<{ n: number }>('SELECT $1::int * 2 AS n', [21]).finally(() => {
      otherRan = true;
    });
    // Both asked for their turn before the client's Describe, which is answered inside its
    // exchange: had either been let in, it would have run by the time that answer comes.
    expect((await raw.describe()).types).toEqual(['t', 'T']);
    expect({ holderRan, otherRan }).toEqual({ holderRan: false, otherRan: false });
    const answer = await raw.finish(['7']);
    expect(answer.types).not.toContain('E');
    expect(answer.text).toContain('107');
    expect(answer.text).toContain("the client's statement");
    expect(await holderStatement).toEqual([{ t: 'holder' }]);
    expect((await otherStatement).rows).toEqual([{ n: 42 }]);
  } finally {
    raw.end();
    await other.end();
  }
});

it('gives the session back when a client goes in the middle of an exchange', async () => {
  const raw = await rawClient(await servedUrl());
  await raw.parse('SELECT $1::int AS n');
  raw.end();
  expect(await holder.query<{ n: number }>('SELECT $1::int AS n', [5])).toEqual([{ n: 5 }]);
});

it('stops serving when the holder closes: the advertisement goes, and the next opener holds the database itself', async () => {
  await holder.close();
  await expect(readFile(join(home, 'platform', 'served.json'))).rejects.toThrow(/ENOENT/);
  holder = await openPlatformDatabase({ home });
  expect(holder.description).toBe(`PGlite ${join(home, 'platform')}`);
  expect(await count(holder)).toBe(0);
});
