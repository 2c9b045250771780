// Golden vectors: these bytes and hashes are the ETags clients hold and the names auditors diff.
// Changing canonical serialization changes every ETag, so it must be a deliberate act.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, memoizedCanonicalJson, NotCanonicalizableError } from '../../../snapshot/canonical.ts';
import { contentObject, sha256Hex } from '../../../snapshot/hash.ts';

describe('canonicalJson (RFC 8785)', () => {
  it.each([
    [{ b: 1, a: 2 }, '{"a":2,"b":1}'],
    [{ z: { y: [3, { d: null, c: false }] }, a: 'x' }, '{"a":"x","z":{"y":[3,{"c":false,"d":null}]}}'],
    [[1, 2.5, -0.001, 1e21, 1e-7, 0], '[1,2.5,-0.001,1e+21,1e-7,0]'],
    ['é\u2028"\\\n', '"é\u2028\\"\\\\\\n"'],
    [{ '\u20ac': 1, '\r': 2, '1': 3, A: 4, a: 5 }, '{"\\r":2,"1":3,"A":4,"a":5,"€":1}'],
    [{ '\ud83d\ude00': 1, '\ufb33': 2 }, '{\"\ud83d\ude00\":1,\"\ufb33\":2}'],
  ])('serializes %j as %s', (value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it('sorts keys by UTF-16 code units, as RFC 8785 §3.2.3 requires', () => {
    // U+1F600 is a surrogate pair starting 0xD83D, which sorts before U+FB33 in UTF-16.
    expect(Object.keys(JSON.parse(canonicalJson({ '\ufb33': 0, '\ud83d\ude00': 0 })))).toEqual(['\ud83d\ude00', '\ufb33']);
  });

  it('refuses what JSON cannot carry, naming where it is', () => {
    expect(() => canonicalJson({ a: [1, Number.NaN] })).toThrow(NotCanonicalizableError);
    expect(() => canonicalJson({ a: [1, Number.NaN] })).toThrow('$.a[1] is not a finite number');
    expect(() => canonicalJson({ a: undefined })).toThrow('$.a is undefined');
    expect(() => canonicalJson({ f: () => 1 })).toThrow('$.f has type function');
  });

  it('is stable under key order and equal to JSON.parse round trips', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const text = canonicalJson(value);
      expect(canonicalJson(JSON.parse(text))).toBe(text);
      expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
    }), { numRuns: 300 });
  });
});

describe('content objects', () => {
  it('pin the hash of known content', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    const object = contentObject({ name: 'Nordic JS', id: '0b9a1c2e-7d3f-4c55-9a1e-2f6b8c0d4e11', logo: null });
    expect(object.bytes.toString('utf8')).toBe('{"id":"0b9a1c2e-7d3f-4c55-9a1e-2f6b8c0d4e11","logo":null,"name":"Nordic JS"}');
    // Cross-checked with: printf '%s' '<the bytes above>' | sha256sum
    expect(object.hash).toBe('65e0cd7cbe333d905c9c8b800791fe648dc7a47095a35490baee9dd391dda17a');
  });

  it('equal content ⇒ equal bytes ⇒ equal hash, whatever the key order', () => {
    expect(contentObject({ a: 1, b: [{ c: 2, d: 3 }] }).hash).toBe(contentObject({ b: [{ d: 3, c: 2 }], a: 1 }).hash);
  });
});

describe('memoizedCanonicalJson', () => {
  it('writes exactly what canonicalJson writes, shared values included', () => {
    fc.assert(fc.property(fc.array(fc.jsonValue(), { maxLength: 5 }), (values) => {
      const shared = { values, again: values, nested: [values, { values }] };
      const canonical = memoizedCanonicalJson();
      expect(canonical(shared)).toBe(canonicalJson(shared));
      expect(canonical(values)).toBe(canonicalJson(values));
    }), { numRuns: 200 });
  });

  it('writes a shared value once', () => {
    let reads = 0;
    const speaker = Object.defineProperty({}, 'name', { enumerable: true, get: () => (reads++, 'Ada') });
    const canonical = memoizedCanonicalJson();
    expect(canonical([{ speakers: [speaker] }, { speakers: [speaker] }])).toBe('[{"speakers":[{"name":"Ada"}]},{"speakers":[{"name":"Ada"}]}]');
    expect(reads).toBe(1);
  });
});
