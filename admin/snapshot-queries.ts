// The auditors' questions, each through one thin function so that the module answering it can be
// swapped in one line: history and diff (builder/history.ts), and as-of (gateway/as-of.ts, the
// gateway's answer at an instant, as `marquee show`).
import { parseZonedInstant, ZONED_INSTANT_EXAMPLE } from '../snapshot/instant.ts';
import { diffSnapshots, type HistoryEntry, type SnapshotDiff, snapshotHistory as history } from '../builder/history.ts';
import { type AsOfAnswer, answerAsOf } from '../gateway/as-of.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { badRequest } from './errors.ts';

export function snapshotHistory(store: SnapshotStore, organizationId: string): Promise<HistoryEntry[]> {
  return history(store, organizationId);
}

/** `from` and `to`: snapshot ids, or `current`. */
export function snapshotDiff(store: SnapshotStore, organizationId: string, from: string, to: string): Promise<SnapshotDiff> {
  return diffSnapshots(store, organizationId, from, to);
}

export type { AsOfAnswer };

/** What GET `path` (below /api/integration/v1) answered at the instant `at` (ISO 8601), as `marquee show`. */
export function asOfAnswer(store: SnapshotStore, organizationId: string, at: string, path: string): Promise<AsOfAnswer> {
  const instant = parseZonedInstant(at);
  if (instant === undefined) throw badRequest(`at must be an ISO 8601 instant with a zone (e.g. ${ZONED_INSTANT_EXAMPLE}), got ${JSON.stringify(at)}`);
  return answerAsOf(store, organizationId, instant, path);
}
