// The side-by-side diff page's rows: one section per resource, one row per field-level change
// (builder/history/diff.ts), with what was before and what is after as text. A reordered element is one
// "moved" row naming its positions, never a removal and an addition.
import type { ChangeKind, FieldChange } from '../../builder/history/diff.ts';

export interface DiffRow {
  kind: ChangeKind;
  label: string;
  /** Text of the value before; null where there was none (added, moved). */
  before: string | null;
  after: string | null;
  /** For a move: "moved from position 3 to 1" (positions count from 1, as people do). */
  note: string | null;
}

interface ResourceSection {
  path: string;
  /** The whole resource appeared or disappeared; no rows then. */
  state: 'added' | 'removed' | 'changed';
  rows: DiffRow[];
}

interface ResourceChanges {
  path: string;
  changes: readonly FieldChange[];
}

/** What the diff page needs of two snapshots' difference. */
export interface SnapshotChanges {
  added: readonly string[];
  removed: readonly string[];
  changed: readonly ResourceChanges[];
}

export interface DiffView {
  sections: ResourceSection[];
  /** "2 resources changed: 1 added, 1 removed, 3 changed, 1 moved field" style counts. */
  counts: Record<ChangeKind, number>;
  same: boolean;
}

export function diffView(changes: SnapshotChanges): DiffView {
  const counts: Record<ChangeKind, number> = { added: 0, removed: 0, changed: 0, moved: 0 };
  const sections: ResourceSection[] = [];
  for (const resource of changes.changed) {
    const rows = resource.changes.map(diffRow);
    for (const row of rows) counts[row.kind]++;
    sections.push({ path: resource.path, state: 'changed', rows });
  }
  for (const path of changes.added) sections.push({ path, state: 'added', rows: [] });
  for (const path of changes.removed) sections.push({ path, state: 'removed', rows: [] });
  sections.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { sections, counts, same: sections.length === 0 };
}

export function diffRow(change: FieldChange): DiffRow {
  if (change.kind === 'moved') {
    const [from, to] = [(change.from ?? 0) + 1, (change.to ?? 0) + 1];
    return { kind: 'moved', label: change.label, before: `position ${from}`, after: `position ${to}`, note: `moved from position ${from} to ${to}` };
  }
  return {
    kind: change.kind,
    label: change.label,
    before: change.kind === 'added' ? null : valueText(change.before),
    after: change.kind === 'removed' ? null : valueText(change.after),
    note: null,
  };
}

/** JSON, indented: `null` and `"null"` stay apart, and an object reads as it is published. */
export function valueText(value: unknown): string {
  return value === undefined ? '' : JSON.stringify(value, null, 2);
}
