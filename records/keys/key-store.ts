// API keys (docs/design.md "Keys"): only the SHA-256 of a secret is stored.
import type { Awaitable } from '../../runtime/awaitable.ts';
import { generateKeyId, generateSecret, hashSecret, recognisablePrefixOf } from './format.ts';

export interface KeyRecord {
  /** Public id, e.g. for `keys revoke`. Never the secret. */
  id: string;
  organizationId: string;
  label: string | null;
  /** Allowed browser origins; empty = server-side only. */
  origins: string[];
  createdAt: string;
  /** When the key stops being valid; null = never. Fixed at creation. */
  expiresAt: string | null;
  /** When the key was (or, if revocationScheduled, will be) revoked; null = not revoked. */
  revokedAt: string | null;
  /**
   * true: revokedAt is a scheduled revocation (`keys roll`'s grace period), in effect once a
   * gateway's clock reaches it. false: revoked outright, whatever any clock says, so that
   * `keys revoke` applies from the next request on even on a gateway whose clock is behind.
   */
  revocationScheduled: boolean;
  /** The first characters of the secret (format.ts), so a person can recognise it; null for keys made before it was stored. */
  prefix: string | null;
  /** The minute of the latest accepted request that a gateway has reported; null = none yet. */
  lastUsedAt: string | null;
  /** SHA-256 hex of the secret. */
  secretHash: string;
}

export interface NewKey {
  organizationId: string;
  label: string | null;
  origins: string[];
  /** Undefined or null: the key does not expire. */
  expiresAt?: Date | null;
}

/** What `keys update` may change; an absent field is left as it is. */
export interface KeyChanges {
  origins?: string[];
  label?: string | null;
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
    expiresAt: key.expiresAt ? key.expiresAt.toISOString() : null,
    revokedAt: null,
    revocationScheduled: false,
    prefix: recognisablePrefixOf(secret),
    lastUsedAt: null,
    secretHash: hashSecret(secret),
  };
  return { record, secret };
}

/** The record with `changes` applied (a copy; origins copied too). */
export function changedRecord(record: KeyRecord, changes: KeyChanges): KeyRecord {
  return {
    ...record,
    ...(changes.origins !== undefined ? { origins: [...changes.origins] } : {}),
    ...(changes.label !== undefined ? { label: changes.label } : {}),
  };
}

/**
 * A revocation (outright, or scheduled for `at`) applied to the record's. Final: an outright
 * revocation is never changed; otherwise the earlier instant is kept (ISO texts as toISOString
 * writes them compare as the instants do), and an outright revocation replaces a scheduled one.
 */
export function revokedState(current: Pick<KeyRecord, 'revokedAt' | 'revocationScheduled'>, at: string, scheduled: boolean): Pick<KeyRecord, 'revokedAt' | 'revocationScheduled'> {
  if (current.revokedAt === null) return { revokedAt: at, revocationScheduled: scheduled };
  if (!current.revocationScheduled) return current;
  return { revokedAt: current.revokedAt <= at ? current.revokedAt : at, revocationScheduled: scheduled };
}

/**
 * Backends: an embedded file-backed store (another process may change it while the gateway
 * runs), Redis (records/keys/redis-key-store.ts, what gateways read when REDIS_URL is set), the
 * durable record in the platform database that Redis copies (records/keys/postgres-key-store.ts)
 * and memory (records/keys/memory-store.ts).
 * Expected outcomes are return values; only broken infrastructure throws. The embedded store
 * answers a lookup synchronously (runtime/awaitable.ts). Every backend passes
 * test/contracts/key-store.ts.
 */
export interface KeyStore {
  /** The record whose secretHash matches, revoked or not; undefined when none. Sees changes made by other processes from the next call on. */
  findBySecretHash(secretHash: string): Awaitable<KeyRecord | undefined>;
  /** The record with this public id; undefined when none. */
  findById(id: string): Promise<KeyRecord | undefined>;
  /** Creates a key; returns the record and the secret, which is shown once and never stored. */
  create(key: NewKey): Promise<{ record: KeyRecord; secret: string }>;
  /** Replaces the given fields; the changed record, or undefined when no key has that id. Effective from the next request on. */
  update(id: string, changes: KeyChanges): Promise<KeyRecord | undefined>;
  /**
   * Revokes the key outright, recorded as revoked at `at`; false when no key has that id.
   * Effective from the next request on, whatever the gateways' clocks; final (again: true, the
   * first time kept). Replaces a scheduled revocation, keeping the earlier instant.
   */
  revoke(id: string, at: Date): Promise<boolean>;
  /**
   * Schedules the key's revocation for `at` (revokedAt = at, revocationScheduled); false when no
   * key has that id. Never undoes or postpones one: a key revoked outright stays so, and of two
   * scheduled instants the earlier is kept.
   */
  scheduleRevocation(id: string, at: Date): Promise<boolean>;
  /**
   * Records when keys were last used (key id → instant): each record keeps the later of its
   * lastUsedAt and the given one. Unknown ids are ignored. Never loses a concurrent change.
   */
  recordUse(lastUsed: ReadonlyMap<string, Date>): Promise<void>;
  list(organizationId?: string): Promise<KeyRecord[]>;
}
