// The key format: golden vectors pin prefix, length and checksum (a change breaks every issued
// key); properties cover generated keys and single-character corruption.
import fc from 'fast-check';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { KEY_LENGTH, checksumOf, generateKeyId, generateSecret, hashSecret, parseKey } from '../../../../records/keys/format.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Computed independently (Python zlib.crc32 + hashlib.sha256).
const GOLDEN = [
  {
    key: 'mqk_0000000000000000000000000000000sQHLi',
    secretHash: '82c4a3cd65a60e4b141da4d91a1b1a3ba5381b8afef785e88505e32b24a61142',
  },
  {
    key: 'mqk_abcdefghijklmnopqrstuvwxyzABCD31Rbdw',
    secretHash: '25d6ad7d4448ae2c1e320281597e2e0992d815dbb600d0d20f94d91062ac3622',
  },
  {
    key: 'mqk_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz3HD80P',
    secretHash: '006e08bdbfd53c315fc7a9388da9362b95b92ec5b595d95acc69e11ed76d6bd7',
  },
];

describe('key format', () => {
  it.each(GOLDEN)('accepts the golden key $key with its SHA-256', ({ key, secretHash }) => {
    expect(parseKey(key)).toEqual({ valid: true, secretHash });
    expect(hashSecret(key)).toBe(secretHash);
  });

  it('checksums with CRC32 (IEEE) as six zero-padded base62 digits', () => {
    expect(checksumOf('')).toBe('000000');
    // The CRC32 check value: crc32("123456789") = 0xcbf43926 = 3421780262 = "3jZRME" in base62.
    expect(checksumOf('123456789')).toBe('3jZRME');
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...BASE62), maxLength: 40 }), (body) => {
        let value = crc32(body);
        let expected = '';
        for (let i = 0; i < 6; i++) {
          expected = BASE62[value % 62] + expected;
          value = Math.floor(value / 62);
        }
        expect(checksumOf(body)).toBe(expected);
      }),
    );
  });

  it('refuses by reason: length, prefix, alphabet, checksum', () => {
    const good = GOLDEN[0]!.key;
    expect(parseKey('')).toEqual({ valid: false, reason: 'LENGTH' });
    expect(parseKey(good.slice(1))).toEqual({ valid: false, reason: 'LENGTH' });
    expect(parseKey(`${good} `)).toEqual({ valid: false, reason: 'LENGTH' });
    expect(parseKey(`ghp_${good.slice(4)}`)).toEqual({ valid: false, reason: 'PREFIX' });
    expect(parseKey(`MQK_${good.slice(4)}`)).toEqual({ valid: false, reason: 'PREFIX' });
    expect(parseKey(`${good.slice(0, 10)}-${good.slice(11)}`)).toEqual({ valid: false, reason: 'ALPHABET' });
    expect(parseKey(`${good.slice(0, 10)}é${good.slice(11)}`)).toEqual({ valid: false, reason: 'ALPHABET' });
    expect(parseKey(`${good.slice(0, -1)}j`)).toEqual({ valid: false, reason: 'CHECKSUM' });
  });

  it('generates keys of the documented shape that parse', () => {
    fc.assert(
      fc.property(fc.constant(null), () => {
        const secret = generateSecret();
        expect(secret).toMatch(/^mqk_[0-9A-Za-z]{36}$/);
        expect(secret).toHaveLength(KEY_LENGTH);
        expect(parseKey(secret)).toEqual({ valid: true, secretHash: hashSecret(secret) });
      }),
      { numRuns: 500 },
    );
  });

  it('rejects any single-character change to a key', () => {
    fc.assert(
      fc.property(
        fc.constant(null).map(() => generateSecret()),
        fc.nat({ max: KEY_LENGTH - 1 }),
        fc.constantFrom(...BASE62, '_', '-', ' '),
        (secret, position, replacement) => {
          fc.pre(secret[position] !== replacement);
          const changed = secret.slice(0, position) + replacement + secret.slice(position + 1);
          expect(parseKey(changed).valid).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('rejects random strings', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: fc.constantFrom(...BASE62), minLength: 36, maxLength: 36 }).map((s) => `mqk_${s}`),
        ),
        (text) => {
          // A random body has a 1 in 62^6 chance of a right checksum; fast-check will not find it.
          expect(parseKey(text).valid).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('draws the random part uniformly from the whole alphabet', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) for (const char of generateSecret().slice(4, 34)) seen.add(char);
    expect(seen.size).toBe(62);
  });

  it('makes key ids with a key_ prefix, distinct from secrets', () => {
    const ids = new Set(Array.from({ length: 1000 }, generateKeyId));
    expect(ids.size).toBe(1000);
    for (const id of ids) {
      expect(id).toMatch(/^key_[0-9A-Za-z]{12}$/);
      expect(parseKey(id).valid).toBe(false);
    }
  });
});
