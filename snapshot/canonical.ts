// Canonical JSON (RFC 8785, JCS): object keys sorted by UTF-16 code units, no whitespace,
// numbers and strings as ECMAScript serializes them. Equal content ⇒ equal bytes ⇒ equal hash.

export class NotCanonicalizableError extends Error {
  override name = 'NotCanonicalizableError';
  /** Where in the value, innermost last; joined into the message when the error leaves. */
  readonly path: Array<string | number> = [];

  constructor(readonly problem: string) {
    super(problem);
  }
}

export function canonicalJson(value: unknown): string {
  return serialize(value, undefined);
}

/**
 * A canonical serializer that remembers what it wrote for each object and array. Within one
 * organization's build the same value is written many times — a speaker in every session it
 * speaks at, a detail's sessions array that is also a resource of its own — and is written once.
 * Only for values that are not mutated after their first serialization (projections are not).
 */
export function memoizedCanonicalJson(): (value: unknown) => string {
  const memo = new WeakMap<object, string>();
  return (value) => serialize(value, memo);
}

function serialize(value: unknown, memo: WeakMap<object, string> | undefined): string {
  try {
    return write(value, memo);
  } catch (error) {
    if (error instanceof NotCanonicalizableError) {
      error.message = `$${error.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('')} ${error.problem}`;
    }
    throw error;
  }
}

function write(value: unknown, memo: WeakMap<object, string> | undefined): string {
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
      if (remembered !== undefined) return remembered;
      const out = Array.isArray(value) ? writeArray(value, memo) : writeObject(value as Record<string, unknown>, memo);
      memo?.set(value, out);
      return out;
    }
    default:
      throw new NotCanonicalizableError(`has type ${typeof value}, which JSON cannot carry`);
  }
}

function writeArray(array: readonly unknown[], memo: WeakMap<object, string> | undefined): string {
  let out = '[';
  for (let i = 0; i < array.length; i++) {
    try {
      out += (i ? ',' : '') + write(array[i], memo);
    } catch (error) {
      throw within(error, i);
    }
  }
  return out + ']';
}

function writeObject(record: Record<string, unknown>, memo: WeakMap<object, string> | undefined): string {
  const keys = Object.keys(record).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const member = record[key];
    try {
      if (member === undefined) throw new NotCanonicalizableError('is undefined');
      out += (i ? ',' : '') + quotedKey(key) + ':' + write(member, memo);
    } catch (error) {
      throw within(error, key);
    }
  }
  return out + '}';
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
