// A publication log row changed or deleted by whoever can drop its append-only triggers (the
// database's owner), on PostgreSQL and on PGlite, through the real program: `verify --since` a
// checkpoint an auditor kept must fail naming the log, and the independent example verifiers must
// find it with what an auditor has — the store and its newest checkpoint, the kept checkpoint, the
// log's leaves as the platform database holds them, the log's consistency proof. Three owners:
// one who deletes a logged publication's row (and the publication, the pointer moved back), one who
// changes a row to vouch for a manifest they edited and signed again, both leaving the stored tree
// hashes as they were; and one who changes a row the kept checkpoint covers and recomputes the tree
// and signs the store's checkpoint again with the builders' key. Each starts from the log and the
// store as built, put back after it.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createPrivateKey, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE, seedSample } from '../../../builder/platform/sample.ts';
import { openPlatformDatabase } from '../../../records/database/database-backends.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { signCheckpoint } from '../../../records/publication-log/checkpoint.ts';
import { leafBytes, type LogEntry, parseLeaf } from '../../../records/publication-log/log-entry.ts';
import { completedSubtrees, leafHash, rangeHash } from '../../../records/publication-log/merkle.ts';
import { canonicalJson } from '../../../snapshot/canonical.ts';
import { sha256Hex } from '../../../snapshot/hash.ts';
import { manifestKey, pointerKey } from '../../../snapshot/layout.ts';
import { listSnapshotIds } from '../../../snapshot/reader.ts';
import { newSigningKeyPem, signerFromPem, signingKeyRecordKey } from '../../../snapshot/signing.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { marquee } from '../../support/cli.ts';
import { migratedHome } from '../../support/migrated-home.ts';
import { type ExampleRun, exportLeaves, newestCheckpoint, verifyHistoryExample, verifyPublicationLogExample, writeConsistencyProof } from '../../support/example-verifiers.ts';
import { createDatabase, startPostgres, type TestPostgres } from '../../support/postgres.ts';

const { nordic, pacific } = SAMPLE.organizations;

let postgres: TestPostgres | undefined;
afterAll(async () => {
  await postgres?.stop();
});

interface SavedLog {
  rows: Array<{ seq: string; leaf: string; leaf_hash: string; organization_id: string | null; kind: string; appended_at: string }>;
  subtrees: Array<{ level: number; index: string; hash: string }>;
}

const triggers = async (db: SqlClient, on: boolean) => {
  for (const table of ['marquee_publication_log', 'marquee_publication_log_subtrees']) await db.query(`ALTER TABLE ${table} ${on ? 'ENABLE' : 'DISABLE'} TRIGGER USER`);
};

/** Puts the log back as `saved` had it, the triggers off meanwhile. */
async function restoreLog(db: SqlClient, saved: SavedLog): Promise<void> {
  await triggers(db, false);
  await db.query('DELETE FROM marquee_publication_log_subtrees');
  await db.query('DELETE FROM marquee_publication_log');
  await db.query(
    `INSERT INTO marquee_publication_log (seq, leaf, leaf_hash, organization_id, kind, appended_at)
     SELECT seq, decode(leaf, 'hex'), decode(leaf_hash, 'hex'), organization_id, kind, appended_at
     FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS saved(seq, leaf, leaf_hash, organization_id, kind, appended_at)`,
    (['seq', 'leaf', 'leaf_hash', 'organization_id', 'kind', 'appended_at'] as const).map((column) => saved.rows.map((row) => row[column])),
  );
  await db.query(
    `INSERT INTO marquee_publication_log_subtrees (level, index, hash)
     SELECT level, index, decode(hash, 'hex') FROM unnest($1::int2[], $2::int8[], $3::text[]) AS saved(level, index, hash)`,
    (['level', 'index', 'hash'] as const).map((column) => saved.subtrees.map((row) => row[column])),
  );
  await triggers(db, true);
}

/** Replaces leaf `seq` by `entry`, its leaf hash with it, leaving the stored tree as it was. */
async function replaceRow(db: SqlClient, seq: number, entry: LogEntry): Promise<void> {
  const leaf = leafBytes(entry);
  await db.query(`UPDATE marquee_publication_log SET leaf = decode($2, 'hex'), leaf_hash = decode($3, 'hex') WHERE seq = $1`, [
    seq,
    leaf.toString('hex'),
    leafHash(leaf).toString('hex'),
  ]);
}

describe.each(['PostgreSQL', 'PGlite'] as const)('a log row changed or deleted, the triggers dropped, on %s', (backend) => {
  let home: string;
  let env: Record<string, string>;
  let store: string;
  let pristine: string;
  let saved: SavedLog;
  let kept: string;
  let keptSize: number;
  let origin: string;
  let keyRecord: string;
  /** Leaves 4 and 5: the manifests of nordic and pacific the second build logged, in the log's order. */
  let logged: Array<{ seq: number; entry: LogEntry }>;

  const withDb = async <T>(work: (db: SqlClient) => Promise<T>): Promise<T> => {
    const db = await openPlatformDatabase({ home, databaseUrl: env.DATABASE_URL });
    try {
      return await work(db);
    } finally {
      await db.close();
    }
  };
  const ok = async (args: string[]) => {
    const done = await marquee(args, env);
    expect(done, `${args.join(' ')}: ${done.stderr}`).toMatchObject({ code: 0 });
  };

  beforeAll(async () => {
    const prefix = `marquee-log-rows-${backend.toLowerCase()}-`;
    // The embedded database from the migrated template (test/support/migrated-home.ts); PostgreSQL's migrated here.
    home = backend === 'PGlite' ? await migratedHome({ prefix }) : await mkdtemp(join(tmpdir(), prefix));
    store = join(home, 'snapshots');
    pristine = join(home, 'pristine');
    env = { MARQUEE_HOME: home };
    if (backend === 'PostgreSQL') {
      env.DATABASE_URL = await createDatabase((await (postgres ??= await startPostgres())).url, `log_rows_${randomUUID().replaceAll('-', '')}`);
      await ok(['db', 'migrate']);
    }
    // Seeded in this process, as `db seed --sample` would (the seed is not what this file tests).
    expect((await withDb((db) => seedSample(db, { now: new Date() }))).seeded).toBe(true);
    // Four leaves (two manifests, two state records), and the checkpoint the build writes: kept.
    await ok(['build']);
    const first = await newestCheckpoint(store);
    const note = await readFile(first.file, 'utf8');
    [origin, keptSize] = [note.split('\n')[0]!, first.size];
    expect(keptSize).toBe(4);
    kept = join(home, 'kept.txt');
    await writeFile(kept, note);
    keyRecord = join(store, 'signing-keys', `${await keyIdOf(store)}.json`);
    await withDb(async (db) => {
      await db.query(`UPDATE team_members SET title = 'Host' WHERE full_name = 'Mikko Virtanen'`);
      await db.query(`UPDATE organizations SET name = 'Pacific Renamed' WHERE id = $1`, [pacific.id]);
    });
    await ok(['build']);
    await withDb(async (db) => {
      saved = {
        rows: await db.query(
          `SELECT seq::text AS seq, encode(leaf, 'hex') AS leaf, encode(leaf_hash, 'hex') AS leaf_hash, organization_id, kind, appended_at::text AS appended_at FROM marquee_publication_log ORDER BY seq`,
        ),
        subtrees: await db.query(`SELECT level::int4 AS level, index::text AS index, encode(hash, 'hex') AS hash FROM marquee_publication_log_subtrees`),
      };
    });
    logged = saved.rows.slice(4).map((row) => ({ seq: Number(row.seq), entry: parseLeaf(Buffer.from(row.leaf, 'hex')) as LogEntry }));
    expect(logged.map(({ entry }) => [entry.kind, 'organizationId' in entry ? entry.organizationId : ''].join(' ')).sort()).toEqual([
      `manifest ${nordic.id}`,
      `manifest ${pacific.id}`,
    ]);
    expect((await newestCheckpoint(store)).size).toBe(6);
    await cp(store, pristine, { recursive: true });
  }, 180_000);

  afterEach(async () => {
    await withDb((db) => restoreLog(db, saved));
    await rm(store, { recursive: true, force: true });
    await cp(pristine, store, { recursive: true });
  });

  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  /**
   * verify --since the kept checkpoint fails, naming the log rewritten or forked; the example
   * verifiers, given the leaves as the database now holds them, find it: the leaves do not hash to
   * the checkpoints. Returns the consistency proof's verdict, which sees only the stored tree.
   */
  async function found(): Promise<ExampleRun> {
    const leaves = join(home, 'leaves.txt');
    const current = await newestCheckpoint(store);
    const proof = await withDb(async (db) => {
      await exportLeaves(db, leaves);
      return writeConsistencyProof(db, origin, keptSize, current.size, join(home, 'consistency.json'));
    });
    const [verified, log, history, consistency] = await Promise.all([
      marquee(['verify', '--all', '--since', kept], env),
      verifyPublicationLogExample('log', leaves, kept, current.file, '--key', keyRecord),
      verifyHistoryExample(store, { leaves, kept: [kept] }),
      verifyPublicationLogExample('consistency', kept, current.file, proof, '--key', keyRecord),
    ]);
    expect({ code: log.code, out: log.stdout }).toEqual({ code: 1, out: expect.stringMatching(/FAIL .*rewritten or forked since/) });
    expect({ code: history.code, out: history.stdout }).toEqual({ code: 1, out: expect.stringMatching(/^publication log: BROKEN \(.*rewritten or forked since/) });
    expect({ code: verified.code, out: `${verified.stdout}${verified.stderr}` }).toEqual({ code: 1, out: expect.stringMatching(/publication log was rewritten or forked/) });
    return consistency;
  }

  it('the log as built: verify --since and every example check hold', async () => {
    const leaves = await withDb((db) => exportLeaves(db, join(home, 'leaves.txt')));
    const current = await newestCheckpoint(store);
    const [verified, log, history] = await Promise.all([
      marquee(['verify', '--all', '--since', kept], env),
      verifyPublicationLogExample('log', leaves, kept, current.file, '--key', keyRecord),
      verifyHistoryExample(store, { leaves, kept: [kept] }),
    ]);
    expect(verified, verified.stderr).toMatchObject({ code: 0 });
    expect(log, log.stdout).toMatchObject({ code: 0 });
    expect(history, history.stdout).toMatchObject({ code: 0 });
  });

  it("a logged publication's row deleted with the publication, the pointer moved back, the tree left", async () => {
    const [victim] = logged;
    const organizationId = (victim!.entry as { organizationId: string }).organizationId;
    const [older] = await listSnapshotIds(new DirectoryStore(store), organizationId);
    await rm(join(store, manifestKey(organizationId, victim!.entry.id)));
    const pointer = JSON.parse(await readFile(join(store, pointerKey(organizationId)), 'utf8'));
    const manifestHash = sha256Hex(await readFile(join(store, manifestKey(organizationId, older!))));
    await writeFile(join(store, pointerKey(organizationId)), canonicalJson({ ...pointer, snapshotId: older, manifestHash }));
    await withDb(async (db) => {
      await triggers(db, false);
      await db.query('DELETE FROM marquee_publication_log WHERE seq = $1', [victim!.seq]);
    });
    // The proof is of the stored tree, which still holds the row: only the leaves show it gone.
    expect((await found()).code).toBe(0);
  });

  it('a row changed to vouch for a manifest edited and signed again by a key the forger published, the tree left', async () => {
    const [victim] = logged;
    const organizationId = (victim!.entry as { organizationId: string }).organizationId;
    const path = join(store, manifestKey(organizationId, victim!.entry.id));
    const { signature: _signature, ...manifest } = JSON.parse(await readFile(path, 'utf8'));
    const forger = signerFromPem(newSigningKeyPem(), 'forger');
    await writeFile(join(store, signingKeyRecordKey(forger.keyId)), canonicalJson(forger.record(new Date(Date.parse(manifest.publishedAt) - 60_000))));
    const forged = canonicalJson(forger.sign({ ...manifest, trigger: 'schedule' }));
    await writeFile(path, forged);
    const pointer = JSON.parse(await readFile(join(store, pointerKey(organizationId)), 'utf8'));
    await writeFile(join(store, pointerKey(organizationId)), canonicalJson({ ...pointer, manifestHash: sha256Hex(forged) }));
    await withDb(async (db) => {
      await triggers(db, false);
      await replaceRow(db, victim!.seq, { ...victim!.entry, hash: sha256Hex(forged) });
    });
    expect((await found()).code).toBe(0);
  });

  it("a row the kept checkpoint covers changed, the tree recomputed and the store's checkpoint signed again with the builders' key", async () => {
    const current = await newestCheckpoint(store);
    await withDb(async (db) => {
      await triggers(db, false);
      const row = saved.rows[1]!;
      const entry = parseLeaf(Buffer.from(row.leaf, 'hex')) as LogEntry;
      await replaceRow(db, 1, { ...entry, at: new Date(Date.parse(entry.at) - 1).toISOString() });
      // The tree of the changed leaves, as an append would have stored it.
      const hashes = (await db.query<{ leaf_hash: string }>(`SELECT encode(leaf_hash, 'hex') AS leaf_hash FROM marquee_publication_log ORDER BY seq`)).map((r) =>
        Buffer.from(r.leaf_hash, 'hex'),
      );
      const subtrees = completedSubtrees(0, [], hashes);
      await db.query('DELETE FROM marquee_publication_log_subtrees');
      await db.query(
        `INSERT INTO marquee_publication_log_subtrees (level, index, hash) SELECT level, index, decode(hash, 'hex') FROM unnest($1::int2[], $2::int8[], $3::text[]) AS t(level, index, hash)`,
        [subtrees.map((t) => t.level), subtrees.map((t) => t.index), subtrees.map((t) => t.hash.toString('hex'))],
      );
      const stored = new Map(subtrees.map((t) => [`${t.level}:${t.index}`, t.hash]));
      const rootHash = rangeHash(0, current.size, (level, index) => stored.get(`${level}:${index}`));
      await writeFile(current.file, signCheckpoint({ origin, size: current.size, rootHash }, createPrivateKey(await readFile(join(home, 'signing-key.pem')))));
    });
    // Signed by the key, over the log as it is now: only consistency with the kept checkpoint shows it.
    const consistency = await found();
    expect({ code: consistency.code, out: consistency.stdout }).toEqual({ code: 1, out: expect.stringContaining('the log was rewritten') });
  });
});

/** The id of the one signing key the store publishes. */
async function keyIdOf(store: string): Promise<string> {
  const keys = await new DirectoryStore(store).list('signing-keys/');
  expect(keys).toHaveLength(1);
  return keys[0]!.slice('signing-keys/'.length, -'.json'.length);
}
