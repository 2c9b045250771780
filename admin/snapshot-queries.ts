// The auditors' questions, each through one thin function so that the module answering it can be
// swapped in one line: history and diff (builder/history.ts), and as-of (the gateway's answer at
// an instant, once it exists).
import { diffSnapshots, type HistoryEntry, type SnapshotDiff, snapshotHistory as history } from '../builder/history.ts';
import type { SnapshotStore } from '../snapshot/store.ts';

export function snapshotHistory(store: SnapshotStore, organizationId: string): Promise<HistoryEntry[]> {
  return history(store, organizationId);
}

/** `from` and `to`: snapshot ids, or `current`. */
export function snapshotDiff(store: SnapshotStore, organizationId: string, from: string, to: string): Promise<SnapshotDiff> {
  return diffSnapshots(store, organizationId, from, to);
}

/** What an API path answered at an instant: its status and body. */
export interface AsOfAnswer {
  status: number;
  body: unknown;
}

type AnswerAsOf = (store: SnapshotStore, organizationId: string, at: string, path: string) => Promise<AsOfAnswer>;

/** Not available until gateway/as-of.ts exists; the admin API leaves its route out meanwhile. */
export const asOfAnswer: AnswerAsOf | undefined = undefined;
