// The API key format (docs/design.md "Keys"): a recognisable prefix for secret scanners and a
// checksum, so that a malformed key is refused without a store lookup.
//
//   mqk_ <30 base62 chars of CSPRNG randomness> <6 base62 chars: CRC32 of everything before>
//
// 30 base62 characters carry ~178 bits of entropy. The checksum covers the prefix too, so a key
// of another product that happens to share the body is refused. Only SHA-256 of the whole key
// text is ever stored (KeyRecord.secretHash).
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

const KEY_PREFIX = 'mqk_';
const KEY_RANDOM_LENGTH = 30;
const KEY_CHECKSUM_LENGTH = 6;
export const KEY_LENGTH = KEY_PREFIX.length + KEY_RANDOM_LENGTH + KEY_CHECKSUM_LENGTH;
const KEY_ID_PREFIX = 'key_';
const KEY_ID_RANDOM_LENGTH = 12;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

type KeyRejection = 'LENGTH' | 'PREFIX' | 'ALPHABET' | 'CHECKSUM';
export type ParsedKey = { valid: true; secretHash: string } | { valid: false; reason: KeyRejection };

/** A new secret key; shown once to its owner, never stored. */
export function generateSecret(): string {
  const body = KEY_PREFIX + randomBase62(KEY_RANDOM_LENGTH);
  return body + checksumOf(body);
}

/**
 * What a person is shown to recognise a key (`keys list`): `mqk_` and the first 4 random
 * characters. Those carry about 24 of the 178 bits, which leaves ~154 bits unknown: far beyond
 * guessing. Never the checksum, which is computed from the whole random part.
 */
export function recognisablePrefixOf(secret: string): string {
  return secret.slice(0, KEY_PREFIX.length + RECOGNISABLE_RANDOM_LENGTH);
}

const RECOGNISABLE_RANDOM_LENGTH = 4;

/** A new public key id, e.g. for `keys revoke`. */
export function generateKeyId(): string {
  return KEY_ID_PREFIX + randomBase62(KEY_ID_RANDOM_LENGTH);
}

/** Checks the format and checksum; pure CPU, no lookup. */
export function parseKey(text: string): ParsedKey {
  if (text.length !== KEY_LENGTH) return { valid: false, reason: 'LENGTH' };
  if (!text.startsWith(KEY_PREFIX)) return { valid: false, reason: 'PREFIX' };
  for (let i = KEY_PREFIX.length; i < KEY_LENGTH; i++) {
    if (BASE62_VALUE[text.charCodeAt(i)] === -1) return { valid: false, reason: 'ALPHABET' };
  }
  const bodyEnd = KEY_LENGTH - KEY_CHECKSUM_LENGTH;
  if (text.slice(bodyEnd) !== checksumOf(text.slice(0, bodyEnd))) return { valid: false, reason: 'CHECKSUM' };
  return { valid: true, secretHash: hashSecret(text) };
}

/** SHA-256 hex of the whole key text: what the store keeps and looks up by. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** CRC32 (IEEE 802.3, as zlib) of the ASCII body, as 6 base62 digits, zero-padded. */
export function checksumOf(body: string): string {
  // zlib's CRC32 of the UTF-8 bytes; the body is ASCII, so bytes and characters agree.
  let value = crc32(body);
  let digits = '';
  for (let i = 0; i < KEY_CHECKSUM_LENGTH; i++) {
    digits = BASE62.charAt(value % 62) + digits;
    value = Math.floor(value / 62);
  }
  return digits;
}

/** Uniform base62 characters: bytes ≥ 248 (= 4 × 62) are dropped so `% 62` has no bias. */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62.charAt(byte % 62);
    }
  }
  return out;
}

// Any UTF-16 code unit to its base62 value, -1 for everything outside the alphabet.
const BASE62_VALUE = new Int8Array(65536).fill(-1);
for (let i = 0; i < BASE62.length; i++) BASE62_VALUE[BASE62.charCodeAt(i)] = i;
