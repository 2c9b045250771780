// `audit-log verify` (docs/operation.md "The audit trail"): walks the trail from its first entry,
// recomputing each hash and checking each link, then compares it with the heads kept in the
// snapshot store. Names the first entry that breaks, by sequence number. Pure but for the walk.
import { type AuditEntry, entryHash, GENESIS_HASH } from './audit-entry.ts';
import type { StoredHead } from './audit-heads.ts';
import type { ChainHead } from './audit-trail.ts';

export interface AuditVerdict {
  readonly ok: boolean;
  /** Entries walked. */
  readonly entries: number;
  readonly head: ChainHead | null;
  /** Heads in the store compared with the trail. */
  readonly headsChecked: number;
  /** The first break: the entry it names, and what is wrong, in a sentence. */
  readonly broken: { readonly seq: number; readonly problem: string } | null;
}

export async function verifyAuditTrail(entries: AsyncIterable<AuditEntry>, heads: readonly StoredHead[]): Promise<AuditVerdict> {
  const wanted = new Map(heads.map((head) => [head.seq, head]));
  const seen = new Map<number, string>();
  let count = 0;
  let previous: ChainHead = { seq: 0, hash: GENESIS_HASH };
  const verdict = (broken: AuditVerdict['broken']): AuditVerdict => ({
    ok: broken === null,
    entries: count,
    head: previous.seq === 0 ? null : previous,
    headsChecked: heads.length,
    broken,
  });
  for await (const entry of entries) {
    count += 1;
    const expected = previous.seq + 1;
    if (entry.seq !== expected) {
      return verdict({ seq: expected, problem: `entry ${expected} is missing: entry ${entry.seq} follows entry ${previous.seq}` });
    }
    if (entryHash(entry) !== entry.hash) return verdict({ seq: entry.seq, problem: `entry ${entry.seq} was changed: its content does not give its hash` });
    if (entry.previousHash !== previous.hash) {
      return verdict({ seq: entry.seq, problem: `entry ${entry.seq} does not follow entry ${previous.seq}: it names another predecessor (one of the two was rewritten)` });
    }
    if (wanted.has(entry.seq)) seen.set(entry.seq, entry.hash);
    previous = { seq: entry.seq, hash: entry.hash };
  }
  // The chain holds together; now against what the store kept of it.
  let agreed = 0;
  for (const head of heads) {
    if (head.seq > previous.seq) {
      return verdict({
        seq: previous.seq + 1,
        problem: `the trail ends at entry ${previous.seq}, but the snapshot store kept a head at entry ${head.seq} (${head.key}): entries ${previous.seq + 1} to ${head.seq} were removed`,
      });
    }
    if (seen.get(head.seq) !== head.hash) {
      return verdict({
        seq: head.seq,
        problem: `entry ${head.seq} is not the one the snapshot store kept (${head.key}): the trail was rewritten after entry ${agreed} and at or before entry ${head.seq}`,
      });
    }
    agreed = head.seq;
  }
  return verdict(null);
}
