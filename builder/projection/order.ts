// Deterministic orders for projected lists (docs/design.md "Clock-dependent fields" → Orders).
// Text compares by UTF-16 code units, never localeCompare: the same rows must give the same
// bytes (and hashes) on every machine, whatever its locale or ICU version.

/** One sort key of an item; earlier keys win, later keys only break ties. */
export type SortKey<T> = (item: T) => string | number;

export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareKeys(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return compareCodeUnits(String(a), String(b));
}

/** A sorted copy of `items`, by the given keys in turn. The input is left untouched. */
export function ordered<T>(items: readonly T[], ...keys: ReadonlyArray<SortKey<T>>): T[] {
  return [...items].sort((a, b) => {
    for (const key of keys) {
      const order = compareKeys(key(a), key(b));
      if (order !== 0) return order;
    }
    return 0;
  });
}
