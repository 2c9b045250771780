// The embedded database as start serves it: in a process of its own, on a Unix socket in an
// owner-only directory (records/database/embedded-supervisor.ts). Another opener goes through it
// instead of being refused, a change made through it reaches the holder's listeners (that is what
// triggers a build), the one PGlite session is taken in turns, so a transaction or an
// extended-protocol exchange of one client never sees or swallows another's statements, and the
// database protects itself: statements PGlite cannot run safely are refused, a client idle in a
// transaction is cut off, a statement past its timeout is ended by restarting the database's
// process, and the holder never waits long on a database another client holds. One holder for
// the file (a new PGlite directory takes seconds); the test that closes it runs last.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { openPlatformDatabase } from '../../../records/database/database-backends.ts';
import { DatabaseTimeoutError, type SqlClient } from '../../../records/database/sql.ts';

let home: string;
let holder: SqlClient;
/** Short, so that the tests of them take seconds; start's defaults are 30 s and 10 s. */
const timeouts = { statementMs: 30_000, idleInTransactionMs: 3_000 };

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-served-'));
  holder = await openPlatformDatabase({ home, serve: true, embeddedTimeouts: timeouts });
  await holder.exec(`
    CREATE TABLE notes (body text NOT NULL);
    CREATE FUNCTION notes_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('notes', NEW.body); RETURN NEW; END $$;
    CREATE TRIGGER notes_changed AFTER INSERT ON notes FOR EACH ROW EXECUTE FUNCTION notes_changed();`);
  // A new PGlite directory takes about 4 s on an idle machine, much longer on a loaded one.
}, 180_000);
beforeEach(async () => {
  await holder.exec('TRUNCATE notes');
});
afterAll(async () => {
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
    expect(other.description).toBe(`PGlite ${join(home, 'platform')} (through process ${process.pid}, ${join(home, 'socket')}/postgres)`);
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
  const directory = decodeURIComponent(/[?&]host=([^&]+)/.exec(url)![1]!);
  const socket = connect({ path: join(directory, '.s.PGSQL.5432') });
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

it('serves on a Unix socket in an owner-only directory, and no TCP port: another account of the machine cannot connect', async () => {
  const url = await servedUrl();
  expect(url).toBe(`postgresql://postgres@/postgres?host=${encodeURIComponent(join(home, 'socket'))}`);
  expect((await stat(join(home, 'socket'))).mode & 0o777).toBe(0o700);
  expect((await stat(join(home, 'platform', 'served.json'))).mode & 0o777).toBe(0o600);
  // psql as this account reaches it with the directory as host; as `nobody`, the directory's mode stops it.
  const psql = (asNobody: boolean) =>
    new Promise<{ code: number; output: string }>((resolve) => {
      const command = `psql -X -h ${join(home, 'socket')} -U postgres -d postgres -Atc 'SELECT 41 + 1'`;
      const [file, args] = asNobody ? ['su', ['nobody', '-s', '/bin/sh', '-c', command]] : ['sh', ['-c', command]];
      execFile(file, args, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }));
    });
  expect(await psql(false)).toEqual({ code: 0, output: '42\n' });
  const nobody = await psql(true);
  expect(nobody.code).not.toBe(0);
  expect(nobody.output).toMatch(/Permission denied/);
});

it('refuses what PGlite cannot run safely, before it reaches PGlite, naming why; the connection stays usable', async () => {
  const client = new pg.Client({ connectionString: await servedUrl() });
  await client.connect();
  try {
    await expect(client.query("COPY (SELECT 1) TO PROGRAM 'id'")).rejects.toThrow(/COPY … TO\/FROM PROGRAM is refused by Marquee: the embedded database \(PGlite/);
    await expect(client.query("COPY notes FROM '/etc/passwd'")).rejects.toThrow(/COPY to or from a server file is refused/);
    // Through the extended protocol too (a statement with parameters): the rest of the exchange is skipped up to its Sync.
    await expect(client.query('SELECT pg_read_file($1)', ['/etc/passwd'])).rejects.toThrow(/pg_read_file\(\) is refused by Marquee/);
    await expect(client.query("SELECT lo_export(1, '/tmp/x')")).rejects.toMatchObject({ code: '42501' });
    expect((await client.query('SELECT $1::int + 1 AS n', [1])).rows).toEqual([{ n: 2 }]);
    // COPY to the client's own stream is not a file of the server's.
    await client.query("INSERT INTO notes VALUES ('copied')");
    expect((await client.query('SELECT count(*)::int AS n FROM notes')).rows).toEqual([{ n: 1 }]);
  } finally {
    await client.end();
  }
});

it("cuts off a client idle in a transaction after the timeout, rolling it back; the holder's statements wait at most 2 s meanwhile, then fail as busy", async () => {
  const client = new pg.Client({ connectionString: await servedUrl() });
  const lost = new Promise<Error>((resolve) => client.on('error', resolve));
  await client.connect();
  await client.query('BEGIN');
  await client.query("INSERT INTO notes VALUES ('never committed')");
  const asked = Date.now();
  const busy = await holder.query('SELECT 1').catch((error: unknown) => error);
  expect(busy).toBeInstanceOf(DatabaseTimeoutError);
  expect((busy as Error).message).toMatch(/another client has held the embedded database for more than 2 s/);
  // It gave up before the client was cut off.
  expect(Date.now() - asked).toBeLessThan(timeouts.idleInTransactionMs);
  expect((await lost).message).toMatch(/idle-in-transaction timeout/);
  expect(await count(holder)).toBe(0);
  await client.end().catch(() => {});
});

it("ends a statement past its timeout by restarting the database's process, which recovers what was committed; listeners hear changes again", async () => {
  await holder.query("INSERT INTO notes VALUES ('committed before')");
  const heard: string[] = [];
  let reconnected = 0;
  const unlisten = await holder.listen('notes', (payload) => heard.push(payload), { onReconnect: () => reconnected++ });
  // The client asks for a 1 s statement timeout; PGlite cannot be interrupted, so its process is killed 2 s later.
  const client = new pg.Client({ connectionString: await servedUrl(), statement_timeout: 1_000 });
  client.on('error', () => {});
  await client.connect();
  const asked = Date.now();
  await expect(client.query('SELECT pg_sleep(60)')).rejects.toThrow(/Connection terminated/);
  expect(Date.now() - asked).toBeLessThan(15_000);
  await vi.waitFor(() => expect(reconnected).toBe(1), { timeout: 30_000, interval: 200 });
  expect(await count(holder)).toBe(1);
  const other = await openPlatformDatabase({ home });
  try {
    await other.query("INSERT INTO notes VALUES ('after the restart')");
  } finally {
    await other.close();
  }
  await expect.poll(() => heard).toEqual(['after the restart']);
  await unlisten();
}, 60_000);

it('stops serving when the holder closes: the advertisement goes, and the next opener holds the database itself', async () => {
  await holder.close();
  await expect(readFile(join(home, 'platform', 'served.json'))).rejects.toThrow(/ENOENT/);
  holder = await openPlatformDatabase({ home });
  expect(holder.description).toBe(`PGlite ${join(home, 'platform')}`);
  expect(await count(holder)).toBe(0);
});
