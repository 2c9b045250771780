// The publication log's relations (migration 010): append entries, read the size, a root, proofs and
// entries. Appends from every builder and CLI serialize on one advisory lock in the database, inside
// the transaction that reads the size and inserts after it: one log, no fork, no gap, whichever
// process writes (the embedded PGlite takes the same path). Each append also writes the perfect
// subtrees it completes, so a root or a proof reads O(log n) stored hashes in one query and hashes
// nothing but their fold (merkle.ts): a proof at a million leaves costs what one at ten does.
//
// Every read of entries checks each row against the tree the checkpoints sign, in the same query
// (the row's level-0 subtree, joined by seq): its leaf is an entry, its leaf_hash is the RFC 9162
// hash of those bytes and the tree's leaf at its seq, and a read over a range sees every seq. The
// append-only triggers keep the rows and the tree together; an owner who drops them can change a
// row (with its leaf_hash) or delete one and leave the tree, whose roots and proofs then still
// hold: only the rows read against it show it. For verify, such a row is a finding (`readSince`,
// `readOf`); for every other reader, an error.
//
// Hashes and leaves cross the driver as hex text (encode/decode in SQL): pg answers bytea as a
// Buffer, PGlite as a Uint8Array, and both carry text arrays alike.
import type { SqlClient, SqlQueries } from '../database/sql.ts';
import { type LogEntry, type LogRecord, leafBytes, logEntry, organizationOf, parseLeaf } from './log-entry.ts';
import {
  completedSubtrees,
  consistencyProof,
  consistencyProofRanges,
  inclusionProof,
  inclusionProofRanges,
  leafHash,
  rangeHash,
  rangeSubtrees,
  type Subtree,
  type SubtreeHash,
  subtreesFor,
} from './merkle.ts';

/** "mqpl": the appenders' lock, apart from the trail's ("mqau") and the migrations' ("mqmg"). */
const APPEND_LOCK = 0x6d71706c;

/** One leaf of the log as stored. */
interface LoggedEntry {
  readonly seq: number;
  readonly entry: LogEntry;
  /** The exact bytes hashed: the entry's canonical JSON. */
  readonly leaf: Buffer;
  readonly leafHash: Buffer;
}

/**
 * A place where the log's rows are not the tree's leaves: the log was rewritten there (rows
 * changed or deleted with the append-only triggers dropped). `seq..last`: the leaves concerned
 * (one, unless rows are missing).
 */
export interface RewrittenLeaf {
  readonly seq: number;
  readonly last: number;
  /** The organizations the row names (its leaf, its organization_id); none for leaves missing, a trail head, or bytes that are no entry. */
  readonly organizationIds: readonly string[];
  /** What is wrong, in words that name the leaf: "leaf 4 is missing: …". */
  readonly problem: string;
}

/** What a read of the log's rows found: the entries that are the tree's leaves, and the places where the rows are not. */
export interface LogRead {
  readonly entries: LoggedEntry[];
  readonly rewritten: RewrittenLeaf[];
  /** Where the next page starts; undefined when this read reached the end of the log (`readSince`), or read no range (`readOf`). */
  readonly next: number | undefined;
}

export interface PublicationLog {
  /** Appends the records in one transaction, in order, all recorded at the same instant; their sequence numbers. */
  append(records: readonly LogRecord[]): Promise<number[]>;
  /** How many leaves the log holds (the next sequence number). */
  size(): Promise<number>;
  /** The Merkle Tree Hash of the first `size` leaves (every leaf when not told). */
  root(size?: number): Promise<Buffer>;
  /** The audit path of leaf `seq` in the tree of the first `size` leaves (RFC 9162 §2.1.3). */
  inclusionProof(seq: number, size: number): Promise<Buffer[]>;
  /** The proof that the tree of `newSize` leaves extends that of `oldSize` (RFC 9162 §2.1.4); empty when they are equal. */
  consistencyProof(oldSize: number, newSize: number): Promise<Buffer[]>;
  /** Entries from `seq` on, oldest first, at most `limit`; rejects (PublicationLogRewrittenError) where the rows are not the tree's leaves. */
  entriesSince(seq: number, limit?: number): Promise<LoggedEntry[]>;
  /** Every entry of one organization, oldest first; rejects (PublicationLogRewrittenError) at a row that is not the tree's leaf. */
  entriesOf(organizationId: string): Promise<LoggedEntry[]>;
  /** For verification: the rows from `seq` on, at most `limit`, each checked against the tree, and every seq missing among them or after the last. */
  readSince(seq: number, limit?: number): Promise<LogRead>;
  /** For verification: one organization's rows, each checked against the tree (one indexed read; a missing row names no organization, so only readSince sees it). */
  readOf(organizationId: string): Promise<LogRead>;
}

/** Rows of the log that are not the tree's leaves, met by a reader that cannot go on without them. */
class PublicationLogRewrittenError extends Error {
  override name = 'PublicationLogRewrittenError';
}

export interface PublicationLogOptions {
  /** When an append records its entries; the clock unless told (tests). */
  now?: () => Date;
}

const ENTRIES_PAGE = 1000;

interface LeafRow {
  seq: string;
  leaf: string;
  leaf_hash: string;
  organization_id: string | null;
  /** Whether leaf_hash is the tree's leaf at seq (level 0 of the subtrees); null when the tree holds none there. */
  in_tree: boolean | null;
}

export function databasePublicationLog(db: SqlClient, options: PublicationLogOptions = {}): PublicationLog {
  const now = options.now ?? (() => new Date());

  /** Throws unless the log holds at least `size` leaves: a proof of a tree it never had is no proof. */
  const within = async (size: number, what: string) => {
    const held = await sizeIn(db);
    if (size > held) throw new RangeError(`${what}: the publication log holds ${held} leaves, not ${size}`);
  };

  /** The hashes of `ranges`, read in one query. */
  const hashesOf = async (ranges: ReadonlyArray<readonly [number, number]>, make: (read: (level: number, index: number) => Buffer | undefined) => Buffer[]) => {
    const hashes = await readSubtrees(db, subtreesFor(ranges));
    return make((level, index) => hashes.get(subtreeKey(level, index)));
  };

  return {
    append: (records) => (records.length === 0 ? Promise.resolve([]) : db.transaction((tx) => appendIn(tx, records, now()))),
    size: () => sizeIn(db),
    async root(size) {
      const treeSize = size ?? (await sizeIn(db));
      checkCount('size', treeSize);
      await within(treeSize, 'no root');
      const [root] = await hashesOf([[0, treeSize]], (read) => [rangeHash(0, treeSize, read)]);
      return root!;
    },
    async inclusionProof(seq, size) {
      checkCount('seq', seq);
      checkCount('size', size);
      const ranges = inclusionProofRanges(seq, size);
      await within(size, `no inclusion proof of leaf ${seq}`);
      return hashesOf(ranges, (read) => inclusionProof(seq, size, read));
    },
    async consistencyProof(oldSize, newSize) {
      checkCount('oldSize', oldSize);
      checkCount('newSize', newSize);
      const ranges = consistencyProofRanges(oldSize, newSize);
      await within(newSize, `no consistency proof from ${oldSize} to ${newSize} leaves`);
      return hashesOf(ranges, (read) => consistencyProof(oldSize, newSize, read));
    },
    entriesSince: async (seq, limit) => entriesOrThrow(await readSince(db, seq, limit)),
    entriesOf: async (organizationId) => entriesOrThrow(await readOf(db, organizationId)),
    readSince: (seq, limit) => readSince(db, seq, limit),
    readOf: (organizationId) => readOf(db, organizationId),
  };
}

// seq as text (bigint would be a string in pg, a BigInt in PGlite): every ORDER BY names the column, not this text alias.
// The tree's leaf is compared in SQL (a boolean per row, not another hash over the wire); the join
// is one index probe per row read, never a second pass over the log.
const LEAF_ROWS = `SELECT l.seq::text AS seq, encode(l.leaf, 'hex') AS leaf, encode(l.leaf_hash, 'hex') AS leaf_hash, l.organization_id, s.hash = l.leaf_hash AS in_tree
  FROM marquee_publication_log l LEFT JOIN marquee_publication_log_subtrees s ON s.level = 0 AND s.index = l.seq`;

/** The first and last leaves of the tree from `seq` on that have no row: rows missing that no later row shows (the log's last rows deleted). */
const TREE_LEAVES_WITHOUT_ROWS = `SELECT min(s.index)::text AS seq, max(s.index)::text AS last FROM marquee_publication_log_subtrees s
  WHERE s.level = 0 AND s.index >= $1 AND NOT EXISTS (SELECT 1 FROM marquee_publication_log l WHERE l.seq = s.index)`;

async function readSince(db: SqlQueries, seq: number, limit = ENTRIES_PAGE): Promise<LogRead> {
  checkCount('seq', seq);
  const rows = await db.query<LeafRow>(`${LEAF_ROWS} WHERE l.seq >= $1 ORDER BY l.seq LIMIT $2`, [seq, limit]);
  const read = checkedRows(rows, seq);
  if (rows.length === limit) return { ...read, next: Number(rows.at(-1)!.seq) + 1 };
  // The end of the log: every leaf the tree holds after the last row is a row deleted. One statement,
  // so an append committed meanwhile brings its row and its leaf together.
  const after = rows.length === 0 ? seq : Number(rows.at(-1)!.seq) + 1;
  const [orphans] = await db.query<{ seq: string | null; last: string | null }>(TREE_LEAVES_WITHOUT_ROWS, [after]);
  if (orphans !== undefined && orphans.seq !== null && orphans.last !== null)
    read.rewritten.push(missing(Number(orphans.seq), Number(orphans.last), `the tree holds ${orphans.seq === orphans.last ? 'a leaf' : 'leaves'} there, the log no row`));
  return { ...read, next: undefined };
}

async function readOf(db: SqlQueries, organizationId: string): Promise<LogRead> {
  const rows = await db.query<LeafRow>(`${LEAF_ROWS} WHERE l.organization_id = $1 ORDER BY l.seq`, [organizationId]);
  return { ...checkedRows(rows, undefined), next: undefined };
}

function entriesOrThrow(read: LogRead): LoggedEntry[] {
  const [first] = read.rewritten;
  if (first !== undefined) throw new PublicationLogRewrittenError(`the publication log was rewritten: ${first.problem}`);
  return read.entries;
}

/** The rows, each checked against the tree; from `from` on, every seq must be there (undefined: the rows are one organization's, not a range). */
function checkedRows(rows: readonly LeafRow[], from: number | undefined): { entries: LoggedEntry[]; rewritten: RewrittenLeaf[] } {
  const entries: LoggedEntry[] = [];
  const rewritten: RewrittenLeaf[] = [];
  let expected = from;
  for (const row of rows) {
    const seq = Number(row.seq);
    if (expected !== undefined && seq !== expected)
      rewritten.push(missing(expected, seq - 1, `leaf ${seq} follows ${expected === 0 ? 'the start of the log' : `leaf ${expected - 1}`}`));
    if (expected !== undefined) expected = seq + 1;
    const checked = checkedRow(row);
    if ('problem' in checked) rewritten.push(checked);
    else entries.push(checked);
  }
  return { entries, rewritten };
}

const leavesNamed = (seq: number, last: number) => (seq === last ? `leaf ${seq} is` : `leaves ${seq}..${last} are`);

const missing = (seq: number, last: number, why: string): RewrittenLeaf => ({ seq, last, organizationIds: [], problem: `${leavesNamed(seq, last)} missing: ${why}` });

/** The row's entry when it is the tree's leaf at its seq; what is wrong otherwise. */
function checkedRow(row: LeafRow): LoggedEntry | RewrittenLeaf {
  const seq = Number(row.seq);
  const leaf = Buffer.from(row.leaf, 'hex');
  const hash = Buffer.from(row.leaf_hash, 'hex');
  const entry = parseLeaf(leaf);
  const problem =
    typeof entry === 'string'
      ? `its bytes are not an entry: ${entry}`
      : !hash.equals(leafHash(leaf))
        ? 'its bytes do not hash to its leaf_hash'
        : row.in_tree === null
          ? 'the tree holds no leaf there'
          : !row.in_tree
            ? 'its leaf_hash is not the leaf the tree holds there, which the checkpoints sign'
            : row.organization_id !== organizationOf(entry)
              ? `its organization_id ${JSON.stringify(row.organization_id)} is not its leaf's ${JSON.stringify(organizationOf(entry))}`
              : undefined;
  if (problem === undefined) return { seq, entry: entry as LogEntry, leaf, leafHash: hash };
  const named = new Set([typeof entry === 'string' ? null : organizationOf(entry), row.organization_id]);
  named.delete(null);
  return { seq, last: seq, organizationIds: [...named] as string[], problem: `leaf ${seq} was changed: ${problem}` };
}

function checkCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number ≥ 0, got ${value}`);
}

async function sizeIn(queries: SqlQueries): Promise<number> {
  const [row] = await queries.query<{ size: string }>('SELECT coalesce(max(seq) + 1, 0)::text AS size FROM marquee_publication_log');
  return Number(row?.size ?? 0);
}

const subtreeKey = (level: number, index: number): string => `${level}:${index}`;

/** The stored hashes of `subtrees`, by subtreeKey; one missing is simply absent (the caller's fold says which). */
async function readSubtrees(queries: SqlQueries, subtrees: readonly Subtree[]): Promise<Map<string, Buffer>> {
  const hashes = new Map<string, Buffer>();
  if (subtrees.length === 0) return hashes;
  const rows = await queries.query<{ level: number; index: string; hash: string }>(
    `SELECT s.level::int4 AS level, s.index::text AS index, encode(s.hash, 'hex') AS hash
     FROM marquee_publication_log_subtrees s JOIN unnest($1::int4[], $2::int8[]) AS wanted(level, index) ON s.level = wanted.level AND s.index = wanted.index`,
    [subtrees.map((subtree) => subtree.level), subtrees.map((subtree) => subtree.index)],
  );
  for (const row of rows) hashes.set(subtreeKey(row.level, Number(row.index)), Buffer.from(row.hash, 'hex'));
  return hashes;
}

/** Under the lock, the size read is where these leaves go: no other appender can be between. */
async function appendIn(tx: SqlQueries, records: readonly LogRecord[], at: Date): Promise<number[]> {
  // Checked before the lock is taken: a malformed record costs the other appenders nothing.
  const entries = records.map((record) => logEntry(record, at));
  const leaves = entries.map(leafBytes);
  const hashes = leaves.map(leafHash);
  await tx.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK]);
  const size = await sizeIn(tx);
  const frontierSubtrees = rangeSubtrees(0, size);
  const stored = await readSubtrees(tx, frontierSubtrees);
  const frontier: SubtreeHash[] = frontierSubtrees.map(({ level, index }) => {
    const hash = stored.get(subtreeKey(level, index));
    if (hash === undefined) throw new Error(`the publication log of ${size} leaves lacks the hash of its perfect subtree at level ${level}, index ${index}`);
    return { level, index, hash };
  });
  const completed = completedSubtrees(size, frontier, hashes);
  const seqs = entries.map((_, offset) => size + offset);
  await tx.query(
    `INSERT INTO marquee_publication_log (seq, leaf, leaf_hash, organization_id, kind, appended_at)
     SELECT seq, decode(leaf, 'hex'), decode(leaf_hash, 'hex'), organization_id, kind, $6::timestamptz
     FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[], $5::text[]) AS appended(seq, leaf, leaf_hash, organization_id, kind)`,
    [
      seqs,
      leaves.map((leaf) => leaf.toString('hex')),
      hashes.map((hash) => hash.toString('hex')),
      entries.map(organizationOf),
      entries.map((entry) => entry.kind),
      at.toISOString(),
    ],
  );
  await tx.query(
    `INSERT INTO marquee_publication_log_subtrees (level, index, hash)
     SELECT level, index, decode(hash, 'hex') FROM unnest($1::int2[], $2::int8[], $3::text[]) AS completed(level, index, hash)`,
    [completed.map((subtree) => subtree.level), completed.map((subtree) => subtree.index), completed.map((subtree) => subtree.hash.toString('hex'))],
  );
  return seqs;
}
