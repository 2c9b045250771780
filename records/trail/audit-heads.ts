// The audit trail's heads kept in the snapshot store (docs/design.md "Who did what"): the newest
// entry's number and hash, written by each builder at least once a minute as an object never
// rewritten. Whoever can rewrite the database alone (its owner can drop the append-only trigger
// and recompute every hash after an edit) cannot change what the store already holds, so `audit-log
// verify` compares the two. Outside `orgs/`: no organization's prefix, no retention touches it.
import type { SnapshotSource, SnapshotStore } from '../../snapshot/store.ts';
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

/** How often a builder looks at the head: well within the minute the design promises, and one indexed read each time. */
const HEAD_KEEPING_INTERVAL_MS = 10_000;

/** Keeps the head now and every `intervalMs` until stopped; a failure (store or database away) is reported and retried next time. */
export function keepAuditHeads(trail: AuditTrail, store: SnapshotStore, onError: (error: unknown) => void, intervalMs = HEAD_KEEPING_INTERVAL_MS): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const keep = () => {
    running = keepAuditHead(trail, store).catch(onError);
  };
  keep();
  const timer = setInterval(keep, intervalMs);
  timer.unref();
  return {
    /** After a last look, so that what was appended just before is kept too. */
    stop: async () => {
      clearInterval(timer);
      await running;
      await keepAuditHead(trail, store).catch(onError);
    },
  };
}
