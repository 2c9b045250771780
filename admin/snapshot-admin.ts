// What auditors ask of the snapshot store (docs/design.md "Guarantees, for auditors"): an
// organization's history, the diff of two of its snapshots, and what an API path answered at an
// instant. `history --json`, `diff --json` and the admin API print the shapes below; the console
// shows more of the same answers (the current entry, the labelled field changes).
import { diffSnapshots, type HistoryEntry, type SnapshotDiff, snapshotHistory } from '../builder/audit/history.ts';
import { type AsOfAnswer, answerAsOf } from '../gateway/as-of.ts';
import type { SnapshotStore } from '../snapshot/store.ts';

export interface SnapshotOperations {
  /** Newest first, each entry saying whether it is current. */
  history(organization: string): Promise<HistoryEntry[]>;
  /** `from`/`to` are snapshot ids or `current`. */
  diff(organization: string, from: string, to: string): Promise<SnapshotDiff>;
  /** What the API path (below /api/integration/v1) answered at that instant: its status, body, the snapshot then and the state then. */
  asOf(organization: string, at: Date, path: string): Promise<AsOfAnswer>;
}

/**
 * Over the store alone: `organizationId` turns the id or slug an operator gave into an id (the
 * CLI's needs no database for an id, since auditors may hold only the store).
 */
export function snapshotOperations(store: SnapshotStore, organizationId: (idOrSlug: string) => Promise<string>): SnapshotOperations {
  return {
    history: async (organization) => snapshotHistory(store, await organizationId(organization)),
    diff: async (organization, from, to) => diffSnapshots(store, await organizationId(organization), from, to),
    asOf: async (organization, at, path) => answerAsOf(store, await organizationId(organization), at, path),
  };
}

/** `history --json`'s entry: `current` is the console's mark, not part of the shape. */
type HistoryJson = Array<DistributiveOmit<HistoryEntry, 'current'>>;

export function historyJson(history: readonly HistoryEntry[]): HistoryJson {
  return history.map(({ current: _current, ...entry }) => entry);
}

/** `diff --json`: paths and RFC 6902 patches; the labelled field changes are the console's, not part of the shape. */
export function diffJson(diff: SnapshotDiff) {
  return { added: diff.added, removed: diff.removed, changed: diff.changed.map(({ path, patch }) => ({ path, patch })) };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
