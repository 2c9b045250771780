// `audit-log verify` (docs/operation.md "The audit trail"): walks the trail from its first entry,
// recomputing each hash and checking each link, then compares it with the heads kept in the
// snapshot store. Names the first entry that breaks, by sequence number, and the kind of break:
// entries missing (a gap in the numbers, which are never handed out twice, or a trail that ends
// before a head the store kept) is told apart from an entry changed or relinked, and from a trail
// rewritten consistently. Pure but for the walk.
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
  /** The first break: the entry it names, its kind, and what is wrong, in a sentence. */
  readonly broken: AuditBreak | null;
}

/**
 * What broke. `missing`: entries seq..last are gone (deleted from the middle, the start or the
 * end); `changed`: an entry's content does not give its hash; `relinked`: an entry names another
 * predecessor than the one before it; `rewritten`: the chain holds but disagrees with a head the
 * snapshot store kept.
 */
type AuditBreak =
  | { readonly kind: 'missing'; readonly seq: number; readonly last: number; readonly problem: string }
  | { readonly kind: 'changed' | 'relinked' | 'rewritten'; readonly seq: number; readonly problem: string };

/** "entry 5" or "entries 5..7". */
const entriesNamed = (first: number, last: number): string => (first === last ? `entry ${first}` : `entries ${first}..${last}`);

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
    // Numbers are never handed out twice (audit-trail.ts): a gap is entries removed, whether or not the next one links across it.
    if (entry.seq !== expected) {
      const last = entry.seq - 1;
      return verdict({
        kind: 'missing',
        seq: expected,
        last,
        problem: `${entriesNamed(expected, last)} missing: entry ${entry.seq} follows ${previous.seq === 0 ? 'the start of the trail' : `entry ${previous.seq}`}`,
      });
    }
    if (entryHash(entry) !== entry.hash) return verdict({ kind: 'changed', seq: entry.seq, problem: `entry ${entry.seq} was changed: its content does not give its hash` });
    if (entry.previousHash !== previous.hash) {
      return verdict({
        kind: 'relinked',
        seq: entry.seq,
        problem: `entry ${entry.seq} does not follow entry ${previous.seq}: it names another predecessor (one of the two was rewritten)`,
      });
    }
    if (wanted.has(entry.seq)) seen.set(entry.seq, entry.hash);
    previous = { seq: entry.seq, hash: entry.hash };
  }
  // The chain holds together; now against what the store kept of it.
  let agreed = 0;
  for (const head of heads) {
    if (head.seq > previous.seq) {
      return verdict({
        kind: 'missing',
        seq: previous.seq + 1,
        last: head.seq,
        problem: `${entriesNamed(previous.seq + 1, head.seq)} missing: the trail ends at entry ${previous.seq}, but the snapshot store kept a head at entry ${head.seq} (${head.key})`,
      });
    }
    if (seen.get(head.seq) !== head.hash) {
      return verdict({
        kind: 'rewritten',
        seq: head.seq,
        problem: `entry ${head.seq} is not the one the snapshot store kept (${head.key}): the trail was rewritten after entry ${agreed} and at or before entry ${head.seq}`,
      });
    }
    agreed = head.seq;
  }
  return verdict(null);
}
