// The publication log's relations (migration 010): append entries, read the size, a root, proofs and
// entries. Appends from every builder and CLI serialize on one advisory lock in the database, inside
// the transaction that reads the size and inserts after it: one log, no fork, no gap, whichever
// process writes (the embedded PGlite takes the same path). Each append also writes the perfect
// subtrees it completes, so a root or a proof reads O(log n) stored hashes in one query and hashes
// nothing but their fold (merkle.ts): a proof at a million leaves costs what one at ten does.
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
  /** Entries from `seq` on, oldest first, at most `limit`. */
  entriesSince(seq: number, limit?: number): Promise<LoggedEntry[]>;
  /** Every entry of one organization, oldest first. */
  entriesOf(organizationId: string): Promise<LoggedEntry[]>;
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
    async entriesSince(seq, limit = ENTRIES_PAGE) {
      checkCount('seq', seq);
      const rows = await db.query<LeafRow>(`SELECT ${LEAF_COLUMNS} FROM marquee_publication_log WHERE seq >= $1 ORDER BY marquee_publication_log.seq LIMIT $2`, [seq, limit]);
      return rows.map(loggedEntry);
    },
    async entriesOf(organizationId) {
      const rows = await db.query<LeafRow>(`SELECT ${LEAF_COLUMNS} FROM marquee_publication_log WHERE organization_id = $1 ORDER BY marquee_publication_log.seq`, [organizationId]);
      return rows.map(loggedEntry);
    },
  };
}

// seq as text (bigint would be a string in pg, a BigInt in PGlite): every ORDER BY names the column, not this text alias.
const LEAF_COLUMNS = `seq::text AS seq, encode(leaf, 'hex') AS leaf, encode(leaf_hash, 'hex') AS leaf_hash`;

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

function loggedEntry(row: LeafRow): LoggedEntry {
  const seq = Number(row.seq);
  const leaf = Buffer.from(row.leaf, 'hex');
  const entry = parseLeaf(leaf);
  if (typeof entry === 'string') throw new Error(`the publication log's leaf ${seq} is not an entry: ${entry}`);
  const hash = Buffer.from(row.leaf_hash, 'hex');
  if (!hash.equals(leafHash(leaf))) throw new Error(`the publication log's leaf ${seq} does not hash to its stored leaf hash`);
  return { seq, entry, leaf, leafHash: hash };
}
