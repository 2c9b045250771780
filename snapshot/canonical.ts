// Canonical JSON: equal content ⇒ equal bytes ⇒ equal hash. No whitespace; strings and numbers
// as ECMAScript's JSON.stringify writes them (as RFC 8785 specifies); object members in the
// order the value's schema lists them (snapshot/key-order.ts), or sorted by UTF-16 code units
// (RFC 8785 §3.2.3) where no schema lists them. Resources are written in their schema's order,
// so bodies read as the API's field tables do; manifests and pointers, which have no field
// tables, are plain RFC 8785.
import { KeyOrder } from './key-order.ts';

export class NotCanonicalizableError extends Error {
  override name = 'NotCanonicalizableError';
  /** Where in the value, innermost last; joined into the message when the error leaves. */
  readonly path: Array<string | number> = [];

  constructor(readonly problem: string) {
    super(problem);
  }
}

export function canonicalJson(value: unknown, order: KeyOrder = KeyOrder.SORTED): string {
  return serialize(value, order, undefined);
}

type Memo = WeakMap<object, { order: KeyOrder; text: string }>;

/**
 * A canonical serializer that remembers what it wrote for each object and array. Within one
 * organization's build the same value is written many times — a speaker in every session it
 * speaks at, a detail's sessions array that is also a resource of its own — and is written once.
 * Only for values that are not mutated after their first serialization (projections are not).
 */
export function memoizedCanonicalJson(): (value: unknown, order?: KeyOrder) => string {
  const memo: Memo = new WeakMap();
  return (value, order = KeyOrder.SORTED) => serialize(value, order, memo);
}

function serialize(value: unknown, order: KeyOrder, memo: Memo | undefined): string {
  try {
    return write(value, order, memo);
  } catch (error) {
    if (error instanceof NotCanonicalizableError) {
      error.message = `$${error.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('')} ${error.problem}`;
    }
    throw error;
  }
}

function write(value: unknown, order: KeyOrder, memo: Memo | undefined): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new NotCanonicalizableError('is not a finite number');
      return JSON.stringify(value);
    case 'object': {
      const remembered = memo?.get(value);
      if (remembered !== undefined && remembered.order === order) return remembered.text;
      const text = Array.isArray(value) ? writeArray(value, order, memo) : writeObject(value as Record<string, unknown>, order, memo);
      memo?.set(value, { order, text });
      return text;
    }
    default:
      throw new NotCanonicalizableError(`has type ${typeof value}, which JSON cannot carry`);
  }
}

function writeArray(array: readonly unknown[], order: KeyOrder, memo: Memo | undefined): string {
  const items = order.items;
  let out = '[';
  for (let i = 0; i < array.length; i++) {
    try {
      out += (i ? ',' : '') + write(array[i], items, memo);
    } catch (error) {
      throw within(error, i);
    }
  }
  return `${out}]`;
}

function writeObject(record: Record<string, unknown>, order: KeyOrder, memo: Memo | undefined): string {
  const own = Object.keys(record);
  const listed = order.keys;
  const keys = listed ?? own.sort();
  let out = '{';
  let written = 0;
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) {
      // A listed member may be absent (not required); present but undefined is a projection bug.
      if (listed === undefined || Object.hasOwn(record, key)) throw within(new NotCanonicalizableError('is undefined'), key);
      continue;
    }
    try {
      out += `${(written ? ',' : '') + quotedKey(key)}:${write(member, order.member(key), memo)}`;
    } catch (error) {
      throw within(error, key);
    }
    written++;
  }
  if (written !== own.length) {
    const extra = own.find((key) => !listed!.includes(key));
    throw new NotCanonicalizableError(`has a member ${JSON.stringify(extra)} that its schema does not list`);
  }
  return `${out}}`;
}

function within(error: unknown, part: string | number): unknown {
  if (error instanceof NotCanonicalizableError) error.path.unshift(part);
  return error;
}

// Keys repeat endlessly (every speaker has "bio"), so their quoted forms are cached, boundedly.
const quotedKeys = new Map<string, string>();
function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < 4096) quotedKeys.set(key, quoted);
  }
  return quoted;
}
