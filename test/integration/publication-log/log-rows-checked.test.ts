// The publication log's reads check its rows against its tree, on PostgreSQL 15 and on PGlite: with
// the append-only triggers dropped (as the database's owner can), a row deleted from the middle or
// the end, a row changed with or without its leaf_hash, a row moved to another organization and a
// row whose bytes are no entry are each found where the stored tree (every root and proof) still
// holds, named by leaf, and read past; for verification as findings (readSince, readOf), for every
// other reader as an error (entriesSince, entriesOf).
import { afterAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../../../records/database/sql.ts';
import { leafBytes, type LogEntry } from '../../../records/publication-log/log-entry.ts';
import { databasePublicationLog, type PublicationLog } from '../../../records/publication-log/log-store.ts';
import { leafHash, rootOf } from '../../../records/publication-log/merkle.ts';
import { LOG_ORGANIZATIONS, logDatabases, logRecords } from '../../support/publication-log.ts';

const databases = logDatabases();
afterAll(() => databases.close());

const [FIRST, SECOND] = LOG_ORGANIZATIONS;
/** Eleven leaves (logRecord's stream): even seqs the first organization's, odd the second's; 9 a trail head. */
const LEAVES = 11;

/** Runs `sql` with the log's append-only triggers off, as an owner who drops them would. */
async function asOwner(db: SqlClient, sql: string, params: unknown[] = []): Promise<void> {
  await db.query('ALTER TABLE marquee_publication_log DISABLE TRIGGER USER');
  try {
    await db.query(sql, params);
  } finally {
    await db.query('ALTER TABLE marquee_publication_log ENABLE TRIGGER USER');
  }
}

/** Leaf `seq` replaced by `entry`'s bytes, its leaf_hash recomputed with it (unless `keepHash`); the tree left. */
const replaceLeaf = (db: SqlClient, seq: number, entry: LogEntry, keepHash = false) => {
  const leaf = leafBytes(entry);
  return asOwner(
    db,
    keepHash
      ? `UPDATE marquee_publication_log SET leaf = decode($2, 'hex') WHERE seq = $1`
      : `UPDATE marquee_publication_log SET leaf = decode($2, 'hex'), leaf_hash = decode($3, 'hex') WHERE seq = $1`,
    keepHash ? [seq, leaf.toString('hex')] : [seq, leaf.toString('hex'), leafHash(leaf).toString('hex')],
  );
};

describe.each(databases.backends)('reading the publication log against its tree on $name', (backend) => {
  /** A fresh log of LEAVES leaves, its entries as appended, and its root. */
  async function freshLog(): Promise<{ db: SqlClient; log: PublicationLog; entries: LogEntry[]; root: Buffer }> {
    const [db] = await backend.open();
    const log = databasePublicationLog(db!);
    await log.append(logRecords(0, LEAVES));
    const read = await log.readSince(0);
    return { db: db!, log, entries: read.entries.map(({ entry }) => entry), root: await log.root() };
  }

  /** Every read over the whole log, in pages of `limit`: entries' seqs and findings. */
  async function pages(log: PublicationLog, limit: number) {
    const seqs: number[] = [];
    const rewritten: Array<{ seq: number; last: number; organizationIds: readonly string[]; problem: string }> = [];
    for (let seq: number | undefined = 0; seq !== undefined; ) {
      const page = await log.readSince(seq, limit);
      seqs.push(...page.entries.map((logged) => logged.seq));
      rewritten.push(...page.rewritten);
      seq = page.next;
    }
    return { seqs, rewritten };
  }

  it('a log as appended: every leaf read, in pages or at once, nothing found', async () => {
    const { log } = await freshLog();
    const whole = await log.readSince(0);
    expect({ seqs: whole.entries.map((logged) => logged.seq), rewritten: whole.rewritten, next: whole.next }).toEqual({
      seqs: [...Array(LEAVES).keys()],
      rewritten: [],
      next: undefined,
    });
    // A page that fills its limit says where the next starts; the last one says none.
    expect((await log.readSince(0, 4)).next).toBe(4);
    expect(await pages(log, 4)).toEqual({ seqs: [...Array(LEAVES).keys()], rewritten: [] });
    expect((await log.readOf(FIRST)).rewritten).toEqual([]);
    expect((await log.readSince(LEAVES)).entries).toEqual([]);
  });

  it('a row deleted from the middle: the tree and its root unchanged, the leaf named missing by every read over it', async () => {
    const { db, log, root } = await freshLog();
    await asOwner(db, 'DELETE FROM marquee_publication_log WHERE seq = 4');
    // What the checkpoints see is as it was: the size (the last seq + 1) and the root.
    expect(await log.size()).toBe(LEAVES);
    expect(await log.root()).toEqual(root);
    const gap = { seq: 4, last: 4, organizationIds: [], problem: 'leaf 4 is missing: leaf 5 follows leaf 3' };
    const read = await log.readSince(0);
    expect(read.rewritten).toEqual([gap]);
    expect(read.entries.map((logged) => logged.seq)).toEqual([0, 1, 2, 3, 5, 6, 7, 8, 9, 10]);
    // From the gap itself, and across a page's edge (a page of four ends at 3, the next starts at 4).
    expect((await log.readSince(4)).rewritten).toEqual([gap]);
    expect((await pages(log, 4)).rewritten).toEqual([gap]);
    expect((await pages(log, 1)).rewritten).toEqual([gap]);
    // Past it, nothing is missing.
    expect((await log.readSince(5)).rewritten).toEqual([]);
    await expect(log.entriesSince(0)).rejects.toThrow('the publication log was rewritten: leaf 4 is missing: leaf 5 follows leaf 3');
  });

  it("the log's last rows deleted: the tree's leaves without rows are named missing", async () => {
    const { db, log } = await freshLog();
    await asOwner(db, 'DELETE FROM marquee_publication_log WHERE seq >= 9');
    // The size is counted from the rows: only the leaves read against the tree show them gone.
    expect(await log.size()).toBe(9);
    const gone = { seq: 9, last: 10, organizationIds: [], problem: 'leaves 9..10 are missing: the tree holds leaves there, the log no row' };
    expect((await log.readSince(0)).rewritten).toEqual([gone]);
    expect((await pages(log, 3)).rewritten).toEqual([gone]);
    expect((await log.readSince(10)).rewritten).toEqual([{ ...gone, seq: 10, problem: 'leaf 10 is missing: the tree holds a leaf there, the log no row' }]);
  });

  it("a row changed with its leaf_hash: not the tree's leaf, named with its organization, by readSince and readOf", async () => {
    const { db, log, entries, root } = await freshLog();
    const victim = entries[4] as Extract<LogEntry, { kind: 'manifest' }>;
    await replaceLeaf(db, 4, { ...victim, hash: 'f'.repeat(64) });
    expect(await log.root()).toEqual(root);
    const changed = {
      seq: 4,
      last: 4,
      organizationIds: [FIRST],
      problem: 'leaf 4 was changed: its leaf_hash is not the leaf the tree holds there, which the checkpoints sign',
    };
    const read = await log.readSince(0);
    expect(read.rewritten).toEqual([changed]);
    // Read past: every other leaf is there, the changed one is not taken as an entry.
    expect(read.entries.map((logged) => logged.seq)).toEqual([0, 1, 2, 3, 5, 6, 7, 8, 9, 10]);
    const ofFirst = await log.readOf(FIRST);
    expect({ seqs: ofFirst.entries.map((logged) => logged.seq), rewritten: ofFirst.rewritten }).toEqual({ seqs: [0, 2, 6, 8, 10], rewritten: [changed] });
    expect((await log.readOf(SECOND)).rewritten).toEqual([]);
    await expect(log.entriesOf(FIRST)).rejects.toThrow(/^the publication log was rewritten: leaf 4 was changed/);
    expect((await log.entriesOf(SECOND)).map((logged) => logged.seq)).toEqual([1, 3, 5, 7]);
  });

  it('a row changed without its leaf_hash, moved to another organization, or not an entry at all: each named', async () => {
    const { db, log, entries } = await freshLog();
    const [second, third, fifth] = [entries[2], entries[3], entries[5]] as Array<Extract<LogEntry, { organizationId: string }>>;
    await replaceLeaf(db, 2, { ...second!, hash: 'e'.repeat(64) }, true);
    // The second organization's state record moved to the first, leaf and row.
    expect(third).toMatchObject({ kind: 'state-record', organizationId: SECOND });
    await replaceLeaf(db, 3, { ...third!, organizationId: FIRST });
    await asOwner(db, 'UPDATE marquee_publication_log SET organization_id = $2 WHERE seq = $1', [3, FIRST]);
    const garbage = Buffer.from('not json');
    expect(fifth?.organizationId).toBe(SECOND);
    await asOwner(db, `UPDATE marquee_publication_log SET leaf = decode($2, 'hex'), leaf_hash = decode($3, 'hex') WHERE seq = $1`, [
      5,
      garbage.toString('hex'),
      leafHash(garbage).toString('hex'),
    ]);
    const found = (await log.readSince(0)).rewritten;
    expect(found).toEqual([
      { seq: 2, last: 2, organizationIds: [FIRST], problem: 'leaf 2 was changed: its bytes do not hash to its leaf_hash' },
      { seq: 3, last: 3, organizationIds: [FIRST], problem: 'leaf 3 was changed: its leaf_hash is not the leaf the tree holds there, which the checkpoints sign' },
      // Bytes that are no entry name no organization themselves: their row's organization_id does.
      { seq: 5, last: 5, organizationIds: [SECOND], problem: 'leaf 5 was changed: its bytes are not an entry: not JSON' },
    ]);
    // The organization its row names sees it too, whatever its leaf says.
    expect((await log.readOf(FIRST)).rewritten.map((leaf) => leaf.seq)).toEqual([2, 3]);
    expect((await log.readOf(SECOND)).rewritten.map((leaf) => leaf.seq)).toEqual([5]);
    // An organization_id moved alone, the leaf and the tree left: its row names another organization than its leaf.
    await asOwner(db, 'UPDATE marquee_publication_log SET organization_id = $2 WHERE seq = $1', [7, FIRST]);
    expect((await log.readOf(FIRST)).rewritten.at(-1)).toEqual({
      seq: 7,
      last: 7,
      organizationIds: [SECOND, FIRST],
      problem: `leaf 7 was changed: its organization_id "${FIRST}" is not its leaf's "${SECOND}"`,
    });
    // Whatever the rows say, the stored tree is the one appended.
    expect(await log.root()).toEqual(rootOf(entries.map((entry) => leafHash(leafBytes(entry)))));
  });
});
