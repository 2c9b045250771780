// The secret of a named admin credential (docs/design.md "Roles"): `mqa_` (for secret
// scanners, and so the admin port tells it from ADMIN_TOKEN without a look-up) and 32 base64url
// characters of CSPRNG randomness (192 bits). Only its SHA-256 is stored.
import { createHash, randomBytes } from 'node:crypto';

const PREFIX = 'mqa_';
const RANDOM_BYTES = 24;
const SECRET = /^mqa_[A-Za-z0-9_-]{32}$/;
/** What a person is shown to recognise a credential: `mqa_` and 4 characters (24 of the 192 bits). */
const RECOGNISABLE_LENGTH = PREFIX.length + 4;

/** A new secret; shown once to whoever made it, never stored. */
export function generateCredentialSecret(): string {
  return PREFIX + randomBytes(RANDOM_BYTES).toString('base64url');
}

/** True when `text` has the form of a credential's secret: pure CPU, so a malformed one costs no look-up. */
export function isCredentialSecret(text: string): boolean {
  return SECRET.test(text);
}

/** SHA-256 hex of the whole secret: what the database keeps and is searched by. */
export function hashCredentialSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function recognisablePrefixOf(secret: string): string {
  return secret.slice(0, RECOGNISABLE_LENGTH);
}
