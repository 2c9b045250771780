// Golden vectors: these bytes and hashes are the ETags clients hold and the names auditors diff.
// Changing canonical serialization changes every ETag, so it must be a deliberate act.
// Without a key order: RFC 8785 (manifests, pointers). With a schema's order: its `properties`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, memoizedCanonicalJson, NotCanonicalizableError } from '../../../snapshot/canonical.ts';
import { contentObject, sha256Hex } from '../../../snapshot/hash.ts';
import { KeyOrder, keyOrderOf } from '../../../snapshot/key-order.ts';

describe('canonicalJson (RFC 8785)', () => {
  it.each([
    [{ b: 1, a: 2 }, '{"a":2,"b":1}'],
    [{ z: { y: [3, { d: null, c: false }] }, a: 'x' }, '{"a":"x","z":{"y":[3,{"c":false,"d":null}]}}'],
    [[1, 2.5, -0.001, 1e21, 1e-7, 0], '[1,2.5,-0.001,1e+21,1e-7,0]'],
    ['é\u2028"\\\n', '"é\u2028\\"\\\\\\n"'],
    [{ '\u20ac': 1, '\r': 2, '1': 3, A: 4, a: 5 }, '{"\\r":2,"1":3,"A":4,"a":5,"€":1}'],
    [{ '\ud83d\ude00': 1, '\ufb33': 2 }, '{"\ud83d\ude00":1,"\ufb33":2}'],
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
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
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
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 5 }), (values) => {
        const shared = { values, again: values, nested: [values, { values }] };
        const canonical = memoizedCanonicalJson();
        expect(canonical(shared)).toBe(canonicalJson(shared));
        expect(canonical(values)).toBe(canonicalJson(values));
      }),
      { numRuns: 200 },
    );
  });

  it('writes a shared value once', () => {
    let reads = 0;
    const speaker = Object.defineProperty({}, 'name', {
      enumerable: true,
      get: () => {
        reads++;
        return 'Ada';
      },
    });
    const canonical = memoizedCanonicalJson();
    expect(canonical([{ speakers: [speaker] }, { speakers: [speaker] }])).toBe('[{"speakers":[{"name":"Ada"}]},{"speakers":[{"name":"Ada"}]}]');
    expect(reads).toBe(1);
  });
});

const ORGANIZATION = {
  slug: 'nordic-js',
  publicUrl: 'https://events.example.com/nordic-js',
  name: 'Nordic JS',
  id: '0b9a1c2e-7d3f-4c55-9a1e-2f6b8c0d4e11',
  description: null,
  logo: { url: 'https://cdn.example.com/l.png', fileId: '6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b' },
  cover: null,
  website: 'https://nordicjs.example',
  email: 'hello@nordicjs.example',
  phone: null,
  address: null,
  city: 'Stockholm',
  country: 'SE',
  latitude: 59.3293,
  longitude: 18.0686,
};

describe("canonicalJson in a schema's order", () => {
  it('golden vector: an Organization lists its members as the field table does, id, name and slug first', () => {
    const text = canonicalJson(ORGANIZATION, keyOrderOf('organization'));
    expect(text).toBe(
      '{"id":"0b9a1c2e-7d3f-4c55-9a1e-2f6b8c0d4e11","name":"Nordic JS","slug":"nordic-js","description":null,' +
        '"logo":{"fileId":"6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b","url":"https://cdn.example.com/l.png"},"cover":null,' +
        '"website":"https://nordicjs.example","email":"hello@nordicjs.example","phone":null,"address":null,"city":"Stockholm",' +
        '"country":"SE","latitude":59.3293,"longitude":18.0686,"publicUrl":"https://events.example.com/nordic-js"}',
    );
    // Cross-checked with: printf '%s' '<the bytes above>' | sha256sum
    expect(sha256Hex(text)).toBe('43f7c2575053da1e5702c9500a5c8d883cf960df1646f27898ded43aa2bd1acd');
  });

  it('golden vector: a Speaker list follows $ref into items, and nullable images into their schema', () => {
    const speakers = [
      { websiteUrl: null, gitHubUrl: null, linkedInUrl: null, photo: null, bio: null, company: 'Initech', jobTitle: null, name: 'Ada', id: '11111111-1111-4111-8111-111111111111' },
    ];
    expect(canonicalJson(speakers, keyOrderOf('speaker-list'))).toBe(
      '[{"id":"11111111-1111-4111-8111-111111111111","name":"Ada","jobTitle":null,"company":"Initech","bio":null,"photo":null,"linkedInUrl":null,"gitHubUrl":null,"websiteUrl":null}]',
    );
  });

  it('is the same bytes whatever order the value was built in', () => {
    const order = keyOrderOf('organization');
    const reversed = Object.fromEntries(Object.entries(ORGANIZATION).reverse());
    expect(canonicalJson(reversed, order)).toBe(canonicalJson(ORGANIZATION, order));
    // And an auditor holding only the bytes and the schema reproduces them.
    const text = canonicalJson(ORGANIZATION, order);
    expect(canonicalJson(JSON.parse(text), order)).toBe(text);
  });

  it('skips absent members, refuses undefined ones and members the schema does not list, naming where', () => {
    const order = KeyOrder.listed(['b', 'a', 'c'], new Map([['c', KeyOrder.listed(['y', 'x'], new Map())]]));
    expect(canonicalJson({ a: 1, c: { x: 1, y: 2 } }, order)).toBe('{"a":1,"c":{"y":2,"x":1}}');
    expect(() => canonicalJson({ a: 1, b: undefined }, order)).toThrow('$.b is undefined');
    expect(() => canonicalJson({ a: 1, c: { x: 1, email: 'private@example.com' } }, order)).toThrow('$.c has a member "email" that its schema does not list');
  });

  it('writes maps (additionalProperties) and values without a schema sorted, as RFC 8785 does', () => {
    const order = KeyOrder.listed(['resources'], new Map([['resources', KeyOrder.map(KeyOrder.listed(['z', 'a'], new Map()))]]));
    expect(canonicalJson({ resources: { '/b': { a: 1, z: 2 }, '/a': { a: 3, z: 4 } } }, order)).toBe('{"resources":{"/a":{"z":4,"a":3},"/b":{"z":2,"a":1}}}');
    expect(canonicalJson({ b: 1, a: { d: 1, c: 2 } }, KeyOrder.SORTED)).toBe('{"a":{"c":2,"d":1},"b":1}');
  });

  it("every shipped schema's order is its properties' order, and the manifest keeps RFC 8785", () => {
    for (const name of ['organization', 'team-member', 'speaker', 'sponsor', 'session', 'event-summary', 'event-detail', 'paged-event-summaries', 'problem-details'] as const) {
      const file = JSON.parse(readFileSync(new URL(`../../../schemas/${name}.schema.json`, import.meta.url), 'utf8')) as { properties: object };
      expect(keyOrderOf(name).keys).toEqual(Object.keys(file.properties));
    }
    expect(keyOrderOf('team').items.keys?.slice(0, 2)).toEqual(['id', 'fullName']);
    expect(keyOrderOf('event-detail').member('sessions').items.member('start').keys).toEqual(['utc', 'local', 'timeZoneId']);
  });

  it("memoizes per key order: a value written under two orders gets each one's bytes", () => {
    const canonical = memoizedCanonicalJson();
    const shared = { b: 1, a: 2 };
    const listed = KeyOrder.listed(['b', 'a'], new Map());
    expect(canonical(shared)).toBe('{"a":2,"b":1}');
    expect(canonical(shared, listed)).toBe('{"b":1,"a":2}');
    expect(canonical([shared, shared], KeyOrder.array(listed))).toBe('[{"b":1,"a":2},{"b":1,"a":2}]');
  });
});
