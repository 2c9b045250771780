// Canonical JSON (RFC 8785, JCS): object keys sorted by UTF-16 code units, no whitespace,
// numbers and strings as ECMAScript serializes them. Equal content ⇒ equal bytes ⇒ equal hash.

export class NotCanonicalizableError extends Error {
  override name = 'NotCanonicalizableError';
}

export function canonicalJson(value: unknown): string {
  return write(value, '$');
}

function write(value: unknown, at: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new NotCanonicalizableError(`${at} is not a finite number`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + write(value[i], `${at}[${i}]`);
        return out + ']';
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      let out = '{';
      let first = true;
      for (const key of keys) {
        const member = record[key];
        if (member === undefined) throw new NotCanonicalizableError(`${at}.${key} is undefined`);
        out += (first ? '' : ',') + JSON.stringify(key) + ':' + write(member, `${at}.${key}`);
        first = false;
      }
      return out + '}';
    }
    default:
      throw new NotCanonicalizableError(`${at} has type ${typeof value}, which JSON cannot carry`);
  }
}
