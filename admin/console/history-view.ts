// The rows of an organization's history page, newest first: each snapshot with links to compare
// it with the one before it and with the current one, and the organization's state changes
// (suspended, closed, reactivated) between them.
import { type ShownInstant, showInstant } from './relative-time.ts';

/** An entry as the history service gives it: a snapshot, or a state change (no snapshotId). */
export interface HistoryItem {
  snapshotId?: string | null;
  publishedAt?: string;
  at?: string;
  trigger?: string;
  resources?: number;
  current?: boolean;
  /** A state change: the state the organization entered, or the change's name. */
  state?: string;
  change?: string;
}

export interface HistoryRow {
  at: ShownInstant | undefined;
  what: string;
  snapshotId: string | null;
  resources: number | null;
  current: boolean;
  /** The next older snapshot: "compare with previous" goes from it to this one. */
  previousId: string | null;
}

export function historyRows(entries: readonly HistoryItem[], now: Date): { rows: HistoryRow[]; currentId: string | null } {
  const snapshotIds = entries.map((entry) => entry.snapshotId ?? null);
  const rows = entries.map((entry, index): HistoryRow => {
    const snapshotId = entry.snapshotId ?? null;
    const previousId = snapshotId === null ? null : (snapshotIds.slice(index + 1).find((id) => id !== null) ?? null);
    return {
      at: showInstant(entry.publishedAt ?? entry.at, now),
      what: snapshotId === null ? stateChangeText(entry) : `published (${entry.trigger ?? 'build'})`,
      snapshotId,
      resources: entry.resources ?? null,
      current: entry.current === true,
      previousId,
    };
  });
  return { rows, currentId: entries.find((entry) => entry.current === true && entry.snapshotId)?.snapshotId ?? null };
}

function stateChangeText(entry: HistoryItem): string {
  if (entry.change) return entry.change;
  return entry.state === 'active' ? 'reactivated' : (entry.state ?? 'state changed');
}
