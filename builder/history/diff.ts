// What changed between two versions of one resource, as auditors read it: array elements are
// matched by their `id`, so removing one team member is one removal, not a cascade of
// replacements. Pure; builder/history/history.ts applies it to snapshots.
//
// Exports (stable; the console's side-by-side diff page renders them):
// - `describeChanges(before, after): FieldChange[]`: the field-level changes, for display.
// - `resourcePatch(before, after): Operation[]`: an RFC 6902 patch (remove, add, replace, move)
//   that turns `before` into `after` when applied in order (fast-json-patch's applyPatch).
// - `diffResource(before, after, root)`: both at once, with labels starting at `root`.
// - `FieldChange`, `ChangeKind`, `ResourceDiff`.
//
// Arrays are matched, in this order of preference: by `id` when every element on both sides is an
// object with a string or number `id`, unique on each side; by value when every element is a
// string, number, boolean or null, unique on each side; otherwise by position. Matched elements
// in a different order are moves: only the elements outside a longest run already in order move.
import type { Operation } from 'fast-json-patch';

export type ChangeKind = 'added' | 'removed' | 'changed' | 'moved';

/** One field-level change, ready to display. */
export interface FieldChange {
  kind: ChangeKind;
  /**
   * RFC 6901 pointer to the value: in the new resource for added, changed and moved; in the old
   * resource for removed.
   */
  pointer: string;
  /** For people: `team[id=4f…].role`, `tags[2]`, `sponsors[id=7]`; the resource's root label when the whole value changed. */
  label: string;
  /** Absent for added and moved. */
  before?: unknown;
  /** Absent for removed and moved. */
  after?: unknown;
  /** Moved: the element's index in the old array. */
  from?: number;
  /** Moved: the element's index in the new array. */
  to?: number;
}

export interface ResourceDiff {
  patch: Operation[];
  changes: FieldChange[];
}

export function describeChanges(before: unknown, after: unknown, root = ''): FieldChange[] {
  return diffResource(before, after, root).changes;
}

export function resourcePatch(before: unknown, after: unknown): Operation[] {
  return diffResource(before, after, '').patch;
}

/** `root` begins every label (e.g. "team" for the resource /team). */
export function diffResource(before: unknown, after: unknown, root: string): ResourceDiff {
  const out: ResourceDiff = { patch: [], changes: [] };
  diffValue(before, after, '', root, out);
  return out;
}

type Json = unknown;

function diffValue(before: Json, after: Json, pointer: string, label: string, out: ResourceDiff): void {
  if (Array.isArray(before) && Array.isArray(after)) diffArray(before, after, pointer, label, out);
  else if (isRecord(before) && isRecord(after)) diffObject(before, after, pointer, label, out);
  else if (!sameValue(before, after)) {
    out.patch.push({ op: 'replace', path: pointer, value: clone(after) });
    out.changes.push({ kind: 'changed', pointer, label, before, after });
  }
}

function diffObject(before: Record<string, Json>, after: Record<string, Json>, pointer: string, label: string, out: ResourceDiff): void {
  for (const key of Object.keys(before)) {
    if (Object.hasOwn(after, key)) continue;
    const at = `${pointer}/${escapePointer(key)}`;
    out.patch.push({ op: 'remove', path: at });
    out.changes.push({ kind: 'removed', pointer: at, label: memberLabel(label, key), before: before[key] });
  }
  for (const key of Object.keys(after)) {
    const at = `${pointer}/${escapePointer(key)}`;
    if (!Object.hasOwn(before, key)) {
      out.patch.push({ op: 'add', path: at, value: clone(after[key]) });
      out.changes.push({ kind: 'added', pointer: at, label: memberLabel(label, key), after: after[key] });
    } else diffValue(before[key], after[key], at, memberLabel(label, key), out);
  }
}

/** How the elements of two arrays are paired; undefined: by position. */
type Identity = (element: Json) => string;

function diffArray(before: Json[], after: Json[], pointer: string, label: string, out: ResourceDiff): void {
  const identity = idIdentity(before, after) ?? valueIdentity(before, after);
  if (identity === undefined) {
    diffByPosition(before, after, pointer, label, out);
    return;
  }
  const elementLabel = (element: Json) => (identity === byId ? `${label}[id=${String((element as { id: unknown }).id)}]` : `${label}[${JSON.stringify(element)}]`);
  const afterKeys = after.map(identity);
  const beforeKeys = before.map(identity);
  const afterIndex = new Map(afterKeys.map((key, index) => [key, index]));
  const beforeIndex = new Map(beforeKeys.map((key, index) => [key, index]));

  // 1. Removals, last first, so that each index is still the one in `before`.
  for (let index = before.length - 1; index >= 0; index--) {
    if (afterIndex.has(beforeKeys[index]!)) continue;
    out.patch.push({ op: 'remove', path: `${pointer}/${index}` });
  }
  for (const [index, element] of before.entries()) {
    if (!afterIndex.has(beforeKeys[index]!)) out.changes.push({ kind: 'removed', pointer: `${pointer}/${index}`, label: elementLabel(element), before: element });
  }

  // 2. Moves: the kept elements into their new order. Those in a longest increasing run of new
  //    positions stay; each other one is moved right behind its new predecessor, in new order.
  const working = beforeKeys.filter((key) => afterIndex.has(key));
  const target = afterKeys.filter((key) => beforeIndex.has(key));
  const stays = longestIncreasingRun(working.map((key) => afterIndex.get(key)!));
  const staying = new Set(stays.map((position) => working[position]!));
  for (const [order, key] of target.entries()) {
    if (staying.has(key)) continue;
    const from = working.indexOf(key);
    working.splice(from, 1);
    const to = order === 0 ? 0 : working.indexOf(target[order - 1]!) + 1;
    working.splice(to, 0, key);
    out.patch.push({ op: 'move', from: `${pointer}/${from}`, path: `${pointer}/${to}` });
    const newIndex = afterIndex.get(key)!;
    out.changes.push({ kind: 'moved', pointer: `${pointer}/${newIndex}`, label: elementLabel(after[newIndex]), from: beforeIndex.get(key)!, to: newIndex });
  }

  // 3. Additions, first first, so that every index before each one is final.
  for (const [index, element] of after.entries()) {
    if (beforeIndex.has(afterKeys[index]!)) continue;
    out.patch.push({ op: 'add', path: `${pointer}/${index}`, value: clone(element) });
    out.changes.push({ kind: 'added', pointer: `${pointer}/${index}`, label: elementLabel(element), after: element });
  }

  // 4. Matched elements field by field, at their final index.
  for (const [index, element] of after.entries()) {
    const was = beforeIndex.get(afterKeys[index]!);
    if (was !== undefined) diffValue(before[was], element, `${pointer}/${index}`, elementLabel(element), out);
  }
}

function diffByPosition(before: Json[], after: Json[], pointer: string, label: string, out: ResourceDiff): void {
  const common = Math.min(before.length, after.length);
  for (let index = 0; index < common; index++) diffValue(before[index], after[index], `${pointer}/${index}`, `${label}[${index}]`, out);
  for (let index = before.length - 1; index >= common; index--) out.patch.push({ op: 'remove', path: `${pointer}/${index}` });
  for (let index = common; index < before.length; index++) {
    out.changes.push({ kind: 'removed', pointer: `${pointer}/${index}`, label: `${label}[${index}]`, before: before[index] });
  }
  for (let index = common; index < after.length; index++) {
    out.patch.push({ op: 'add', path: `${pointer}/${index}`, value: clone(after[index]) });
    out.changes.push({ kind: 'added', pointer: `${pointer}/${index}`, label: `${label}[${index}]`, after: after[index] });
  }
}

const byId: Identity = (element) => {
  const id = (element as { id: string | number }).id;
  return `${typeof id}:${id}`;
};
const byValue: Identity = (element) => JSON.stringify(element);

function idIdentity(before: Json[], after: Json[]): Identity | undefined {
  const hasId = (element: Json) => isRecord(element) && (typeof element.id === 'string' || typeof element.id === 'number');
  if (before.length + after.length === 0 || !before.every(hasId) || !after.every(hasId)) return undefined;
  return unique(before, byId) && unique(after, byId) ? byId : undefined;
}

function valueIdentity(before: Json[], after: Json[]): Identity | undefined {
  const scalar = (element: Json) => element === null || ['string', 'number', 'boolean'].includes(typeof element);
  if (!before.every(scalar) || !after.every(scalar)) return undefined;
  return unique(before, byValue) && unique(after, byValue) ? byValue : undefined;
}

function unique(elements: Json[], identity: Identity): boolean {
  return new Set(elements.map(identity)).size === elements.length;
}

/** Positions (into `values`) of one longest strictly increasing subsequence: O(n log n). */
function longestIncreasingRun(values: number[]): number[] {
  const tails: number[] = [];
  const previous: number[] = new Array(values.length).fill(-1);
  for (const [position, value] of values.entries()) {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (values[tails[middle]!]! < value) low = middle + 1;
      else high = middle;
    }
    if (low > 0) previous[position] = tails[low - 1]!;
    tails[low] = position;
  }
  const run: number[] = [];
  for (let position = tails[tails.length - 1] ?? -1; position !== -1; position = previous[position]!) run.push(position);
  return run.reverse();
}

function memberLabel(label: string, key: string): string {
  const plain = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key);
  const member = plain ? key : `[${JSON.stringify(key)}]`;
  return label === '' ? member : plain ? `${label}.${member}` : `${label}${member}`;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Structural equality of JSON values (member order does not matter). */
function sameValue(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => sameValue(item, b[index]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key]));
  }
  return false;
}

/** Patches hold their own copies: applying one must not alias (or mutate) the new resource. */
function clone(value: Json): Json {
  return value === undefined ? value : structuredClone(value);
}
