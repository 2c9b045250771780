// API keys (docs/design.md "Keys"): only the SHA-256 of a secret is stored.
import type { Awaitable } from '../awaitable.ts';
import { generateKeyId, generateSecret, hashSecret } from './format.ts';

export interface KeyRecord {
  /** Public id, e.g. for `keys revoke`. Never the secret. */
  id: string;
  organizationId: string;
  label: string | null;
  /** Allowed browser origins; empty = server-side only. */
  origins: string[];
  createdAt: string;
  revokedAt: string | null;
  /** SHA-256 hex of the secret. */
  secretHash: string;
}

export interface NewKey {
  organizationId: string;
  label: string | null;
  origins: string[];
}

/**
 * A new key: its secret (shown once, never stored) and the record every backend stores, created
 * `at` that instant. The one place a key is made, whichever store keeps it.
 */
export function mintKey(key: NewKey, at: Date): { record: KeyRecord; secret: string } {
  const secret = generateSecret();
  const record: KeyRecord = {
    id: generateKeyId(),
    organizationId: key.organizationId,
    label: key.label,
    // A copy: the caller's array may change after the key exists.
    origins: [...key.origins],
    createdAt: at.toISOString(),
    revokedAt: null,
    secretHash: hashSecret(secret),
  };
  return { record, secret };
}

/**
 * Backends: an embedded file-backed store (another process may change it while the gateway
 * runs) and Redis (gateway/keys/redis-key-store.ts). Expected outcomes are return values; only broken infrastructure throws.
 * The embedded store answers a lookup synchronously (gateway/awaitable.ts). Every backend passes
 * test/contracts/key-store.ts.
 */
export interface KeyStore {
  /** The record whose secretHash matches, revoked or not; undefined when none. Sees changes made by other processes from the next call on. */
  findBySecretHash(secretHash: string): Awaitable<KeyRecord | undefined>;
  /** Creates a key; returns the record and the secret, which is shown once and never stored. */
  create(key: NewKey): Promise<{ record: KeyRecord; secret: string }>;
  /** false when no key has that id. Effective from the next request on; final (again: true, first time kept). */
  revoke(id: string, at: Date): Promise<boolean>;
  list(organizationId?: string): Promise<KeyRecord[]>;
}
