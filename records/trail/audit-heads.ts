// The audit trail's heads kept in the snapshot store (docs/design.md "The audit trail"): the newest
// entry's number and hash, written by each builder at least once a minute as an object never
// rewritten. Whoever can rewrite the database alone (its owner can drop the append-only trigger
// and recompute every hash after an edit) cannot change what the store already holds, so `audit-log
// verify` compares the two. Outside `orgs/`: no organization's prefix, no retention touches it.
// With the publication log, each head kept is also appended to it as a 'trail-head' leaf when it
// changed since the last one logged, so one checkpoint covers the published history and the trail.
import type { SnapshotSource, SnapshotStore } from '../../snapshot/store.ts';
import type { SqlQueries } from '../database/sql.ts';
import type { PublicationLog } from '../publication-log/log-store.ts';
import type { AuditTrail, ChainHead } from './audit-trail.ts';

const AUDIT_HEADS_PREFIX = 'audit/heads/';

/** Sorted by name as by number: twelve digits, then the hash. */
export const headKey = (head: ChainHead): string => `${AUDIT_HEADS_PREFIX}${String(head.seq).padStart(12, '0')}-${head.hash}.json`;

export interface StoredHead extends ChainHead {
  readonly key: string;
}

/** Writes the trail's head unless the store has it already; the head written, or undefined for an empty trail. */
async function keepAuditHead(trail: AuditTrail, store: SnapshotStore, now: Date = new Date()): Promise<ChainHead | undefined> {
  const head = await trail.head();
  if (head === undefined) return undefined;
  const key = headKey(head);
  if (!(await store.has(key))) await store.put(key, Buffer.from(`${JSON.stringify({ seq: head.seq, hash: head.hash, keptAt: now.toISOString() })}\n`));
  return head;
}

/** Every head the store holds, oldest first; a name that is not a head's is ignored. */
export async function storedHeads(store: SnapshotSource & Pick<SnapshotStore, 'list'>): Promise<StoredHead[]> {
  const heads: StoredHead[] = [];
  for (const key of await store.list(AUDIT_HEADS_PREFIX)) {
    const match = /^audit\/heads\/(\d{12})-([0-9a-f]{64})\.json$/.exec(key);
    if (match) heads.push({ key, seq: Number(match[1]), hash: match[2]! });
  }
  return heads.sort((a, b) => a.seq - b.seq);
}

/** The log and where to read the last head it holds: the database it lives in. */
export interface HeadLogging {
  log: PublicationLog;
  db: SqlQueries;
}

/**
 * The seq of the newest trail head the log holds; 0 when none. Read only when the trail's head has
 * changed since this process last looked, since every builder of a fleet keeps the same head. One
 * entry of the partial index of trail heads (migration 11), however many publications were logged
 * since the last head.
 */
async function lastLoggedHead(db: SqlQueries): Promise<number> {
  const [row] = await db.query<{ leaf: string }>(`SELECT convert_from(leaf, 'UTF8') AS leaf FROM marquee_publication_log WHERE kind = 'trail-head' ORDER BY seq DESC LIMIT 1`);
  return row === undefined ? 0 : Number((JSON.parse(row.leaf) as { id: string }).id);
}

/**
 * Appends the head unless the log's newest trail head is it or a later one (another builder's).
 * Two builders that see a new head at the same instant may both append it: a repeated head is
 * harmless to a verifier, which checks each against the trail.
 */
function headLogger(logging: HeadLogging): (head: ChainHead) => Promise<void> {
  let seen = 0;
  return async (head) => {
    if (head.seq <= seen) return;
    if (head.seq > (await lastLoggedHead(logging.db))) await logging.log.append([{ kind: 'trail-head', id: String(head.seq), hash: head.hash }]);
    seen = head.seq;
  };
}

/** How often a builder looks at the head: well within the minute the design promises, and one indexed read each time. */
const HEAD_KEEPING_INTERVAL_MS = 10_000;

/** Keeps the head now and every `intervalMs` until stopped; a failure (store or database away) is reported and retried next time. */
export function keepAuditHeads(
  trail: AuditTrail,
  store: SnapshotStore,
  onError: (error: unknown) => void,
  intervalMs = HEAD_KEEPING_INTERVAL_MS,
  logging?: HeadLogging,
): { stop(): Promise<void> } {
  const logHead = logging === undefined ? undefined : headLogger(logging);
  const keepAndLog = async () => {
    const head = await keepAuditHead(trail, store);
    if (head !== undefined) await logHead?.(head);
  };
  let running: Promise<unknown> = Promise.resolve();
  const keep = () => {
    running = running.then(() => keepAndLog().catch(onError));
  };
  keep();
  const timer = setInterval(keep, intervalMs);
  timer.unref();
  return {
    /** After a last look, so that what was appended just before is kept too. */
    stop: async () => {
      clearInterval(timer);
      await running;
      await keepAndLog().catch(onError);
    },
  };
}
