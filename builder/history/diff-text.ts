// The readable form of a snapshot diff (`marquee diff` without --json): per resource, one line per
// change, values shortened so that a line stays a line.
import type { FieldChange } from './diff.ts';
import type { SnapshotDiff } from './history.ts';

/** Longest value shown in full; longer ones are cut with an ellipsis. */
const VALUE_CHARACTERS = 60;

export function diffLines(diff: SnapshotDiff): string[] {
  const lines: string[] = [];
  for (const path of diff.added) lines.push(`+ ${path}: new resource`);
  for (const path of diff.removed) lines.push(`- ${path}: resource removed`);
  for (const resource of diff.changed) {
    lines.push(`${resource.path}`);
    for (const change of resource.changes) lines.push(`  ${changeLine(change)}`);
  }
  if (lines.length === 0) lines.push('no differences');
  return lines;
}

function changeLine(change: FieldChange): string {
  const label = change.label === '' ? '(whole resource)' : change.label;
  switch (change.kind) {
    case 'added':
      return `+ ${label}: added ${shortValue(withoutLabelledId(change.after, label))}`;
    case 'removed':
      return `- ${label}: removed ${shortValue(withoutLabelledId(change.before, label))}`;
    case 'changed':
      return `~ ${label}: ${shortValue(change.before)} → ${shortValue(change.after)}`;
    case 'moved':
      return `↕ ${label}: moved ${change.from} → ${change.to}`;
  }
}

/** An element the label already names by id (`team[id=…]`) is shown without it, so its other fields fit. */
function withoutLabelledId(value: unknown, label: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !('id' in value) || !label.endsWith(`[id=${String(value.id)}]`)) return value;
  const { id: _id, ...rest } = value;
  return rest;
}

/** `{id "b", name "Bob", …}`: JSON, but readable in a terminal and at most VALUE_CHARACTERS long. */
function shortValue(value: unknown): string {
  const text = readable(value);
  return text.length <= VALUE_CHARACTERS ? text : `${text.slice(0, VALUE_CHARACTERS - 1)}…`;
}

function readable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(readable).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([key, item]) => `${key} ${readable(item)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
