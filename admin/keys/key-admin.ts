// What `marquee keys …`, the admin API's key routes and the console's key pages do (docs/design.md
// "Process model and configuration", "Admin API and console"): all three call keyOperations, and print, answer or show
// the one shape, KeyView. The doors only parse what they are given and present the result.
import { OperatorError } from '../../runtime/errors.ts';
import { normalizeAllowedOrigin } from '../../records/keys/origins.ts';
import { hashSecret } from '../../records/keys/format.ts';
import type { KeyChanges, KeyRecord, KeyStore } from '../../records/keys/key-store.ts';
import { standingAt } from '../../records/keys/key-validity.ts';
import type { OrganizationDirectory } from '../organization-admin.ts';

/** A mistake in what the operator asked for; the message is meant for them. */
export class KeyCommandError extends OperatorError {
  override name = 'KeyCommandError';
}

/** No key has the id: the CLI prints the message, the admin API answers 404 KEY_NOT_FOUND. */
export class KeyNotFoundError extends KeyCommandError {
  override name = 'KeyNotFoundError';
  constructor(readonly keyId: string) {
    super(`no key has the id ${keyId} (see: marquee keys list)`);
  }
}

/**
 * A key as every command and the admin API show it: its record without the secret's hash or how
 * its revocation was made, and with its organization's slug (from the platform database; null
 * when it does not know the organization, or was not asked).
 */
export type KeyView = Omit<KeyRecord, 'secretHash' | 'revocationScheduled'> & { organizationSlug: string | null };

/** A key just made (`keys create`, `keys roll`): the view and the secret, which is shown this once. */
export type NewKeyView = { key: string } & KeyView;

/**
 * Organization id → slug for the given ids, from the platform database (bin/ and admin/ supply
 * it: the gateway has no database). Ids it does not know are simply absent.
 */
export type OrganizationSlugs = OrganizationDirectory['slugs'];

/** For callers with no database at hand (the demo key of `start`, scripts): every organizationSlug is null. */
export const noSlugs: OrganizationSlugs = async () => new Map();

/** What operators do with keys, through every door; an organization is named by id or slug. */
export interface KeyOperations {
  /** Keys without secrets, optionally of one organization; oldest first. */
  list(organization?: string): Promise<KeyView[]>;
  /** One key without its secret; a KeyNotFoundError when no key has the id. */
  get(keyId: string): Promise<KeyView>;
  /** The key a (possibly leaked) secret belongs to; undefined when none. */
  findBySecret(secret: string): Promise<KeyView | undefined>;
  /** The secret is in the answer, once. `expiresAt` must be in the future. */
  create(request: { organization: string; origins?: readonly string[]; label?: string | null; expiresAt?: Date | null }): Promise<NewKeyView>;
  /** Effective from the next request on. */
  update(keyId: string, changes: KeyChanges): Promise<KeyView>;
  /** Effective from the next request on; the key with revokedAt set. */
  revoke(keyId: string): Promise<KeyView>;
  /** A new key (with its secret) for the same organization, origins and label; the old one is revoked after graceSeconds (absent: a day; 0: now). */
  roll(keyId: string, options: { graceSeconds?: number }): Promise<{ replacement: NewKeyView; replaced: KeyView }>;
}

export function keyOperations(store: KeyStore, organizations: OrganizationDirectory): KeyOperations {
  const slugs = organizations.slugs;
  return {
    list: async (organization) => listKeys(store, organization === undefined ? {} : { organizationId: (await organizations.find(organization)).id }, slugs),
    get: async (keyId) => {
      const key = await findKey(store, keyId, slugs);
      if (key === undefined) throw unknownKey(keyId);
      return key;
    },
    findBySecret: (secret) => findKeyBySecret(store, secret, slugs),
    create: async ({ organization, origins = [], label = null, expiresAt = null }) => {
      const found = await organizations.find(organization);
      // The slug is known already: the view needs no second look-up.
      const known: OrganizationSlugs = async () => new Map([[found.id, found.slug]]);
      return createKey(store, { organizationId: found.id, origins, label, expiresAt }, known);
    },
    update: (keyId, changes) => updateKey(store, keyId, changes, slugs),
    revoke: (keyId) => revokeKey(store, keyId, slugs),
    roll: (keyId, { graceSeconds }) => rollKey(store, keyId, { graceMs: graceSeconds === undefined ? DEFAULT_ROLL_GRACE_MS : graceSeconds * 1000 }, slugs),
  };
}

/**
 * Validates and normalizes the allowed origins (docs/api.md §5.7), then creates the key.
 * `expiresAt` must be in the future. Without `slugs`, organizationSlug is null.
 */
export async function createKey(
  store: KeyStore,
  { organizationId, origins, label, expiresAt = null }: { organizationId: string; origins: readonly string[]; label: string | null; expiresAt?: Date | null },
  slugs: OrganizationSlugs = noSlugs,
  now: Date = new Date(),
): Promise<NewKeyView> {
  if (organizationId.trim() === '') throw new KeyCommandError('a key needs an organization');
  const normalized = normalizedOrigins(origins);
  if (expiresAt !== null && expiresAt.getTime() <= now.getTime()) throw new KeyCommandError(`${expiresAt.toISOString()} is not in the future`, { field: 'expiresAt' });
  const { record, secret } = await store.create({ organizationId, origins: normalized, label: labelOf(label), expiresAt });
  const [view] = await viewsOf([record], slugs);
  return { key: secret, ...view! };
}

/** Keys without their secrets or hashes, optionally of one organization; oldest first. */
export async function listKeys(store: KeyStore, { organizationId }: { organizationId?: string }, slugs: OrganizationSlugs): Promise<KeyView[]> {
  const records = await store.list(organizationId);
  // Keys made within one millisecond keep the store's order (sort is stable): the key file and the
  // memory store list in order of creation, so those stay oldest first; ids are random.
  records.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  return viewsOf(records, slugs);
}

/** One key without its secret or hash; undefined when no key has the id. */
async function findKey(store: KeyStore, id: string, slugs: OrganizationSlugs): Promise<KeyView | undefined> {
  const record = await store.findById(id);
  return record === undefined ? undefined : (await viewsOf([record], slugs))[0];
}

/**
 * Replaces a key's allowed origins (validated and normalized as at creation; [] = server-side
 * only) and/or its label (null or '' = none). Effective from the next request on. A revoked or
 * expired key cannot be changed: that would look like bringing it back.
 */
export async function updateKey(store: KeyStore, id: string, changes: KeyChanges, slugs: OrganizationSlugs, now: Date = new Date()): Promise<KeyView> {
  if (changes.origins === undefined && changes.label === undefined) throw new KeyCommandError(`nothing to change for key ${id}: give origins or a label`);
  const origins = changes.origins === undefined ? undefined : normalizedOrigins(changes.origins);
  const existing = await existingKey(store, id);
  const standing = standingAt(existing, now.getTime());
  if (standing !== 'usable') throw new KeyCommandError(`key ${id} is ${standing}; create a new key instead`);
  const updated = await store.update(id, { ...(origins !== undefined ? { origins } : {}), ...(changes.label !== undefined ? { label: labelOf(changes.label) } : {}) });
  if (updated === undefined) throw unknownKey(id);
  return (await viewsOf([updated], slugs))[0]!;
}

/**
 * Revokes a key outright, from the next request on, recorded at `at` (default now). Final: a key
 * revoked before keeps its time; a scheduled revocation (`keys roll`) takes effect now.
 */
export async function revokeKey(store: KeyStore, id: string, slugs: OrganizationSlugs, at: Date = new Date()): Promise<KeyView> {
  if (!(await store.revoke(id, at))) throw unknownKey(id);
  return (await viewsOf([await existingKey(store, id)], slugs))[0]!;
}

/** How long a rolled key keeps working when nobody says: a day, time to deploy the new secret everywhere. */
export const DEFAULT_ROLL_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * Rotation without downtime: a new key with the same organization, origins and label (no
 * expiry), and the old one revoked when `graceMs` has passed (0: now), so clients can switch
 * over meanwhile. A revoked key cannot be rolled. A scheduled revocation earlier than the grace
 * period's end is kept.
 */
export async function rollKey(
  store: KeyStore,
  id: string,
  { graceMs }: { graceMs: number },
  slugs: OrganizationSlugs,
  now: Date = new Date(),
): Promise<{ replacement: NewKeyView; replaced: KeyView }> {
  if (!Number.isFinite(graceMs) || graceMs < 0) throw new KeyCommandError(`the grace period must be 0 or more, not ${graceMs} ms`);
  const old = await existingKey(store, id);
  if (standingAt(old, now.getTime()) === 'revoked') throw new KeyCommandError(`key ${id} is revoked; create a new key instead`);
  const { record, secret } = await store.create({ organizationId: old.organizationId, origins: old.origins, label: old.label });
  // Created first: should the revocation fail, the operator has both keys and can retry, never neither.
  const revoked = graceMs === 0 ? await store.revoke(id, now) : await store.scheduleRevocation(id, new Date(now.getTime() + graceMs));
  if (!revoked) throw unknownKey(id);
  const [replacement, replaced] = await viewsOf([record, await existingKey(store, id)], slugs);
  return { replacement: { key: secret, ...replacement! }, replaced: replaced! };
}

/**
 * The key a (possibly leaked) secret belongs to, found by its hash; undefined when none. The
 * secret itself is never part of the answer. Surrounding white space is ignored (a pasted line).
 */
export async function findKeyBySecret(store: KeyStore, secret: string, slugs: OrganizationSlugs): Promise<KeyView | undefined> {
  const record = await store.findBySecretHash(hashSecret(secret.trim()));
  return record === undefined ? undefined : (await viewsOf([record], slugs))[0];
}

/** Creation's and update's origin rules: each valid (§5.7), normalized, duplicates dropped. */
function normalizedOrigins(origins: readonly string[]): string[] {
  const normalized: string[] = [];
  for (const [index, origin] of origins.entries()) {
    const parsed = normalizeAllowedOrigin(origin);
    // Which one of the list, as a JSON pointer would say it: a client that sent five sees which.
    if (!parsed.ok) throw new KeyCommandError(parsed.reason, { field: `origins[${index}]` });
    if (!normalized.includes(parsed.origin)) normalized.push(parsed.origin);
  }
  return normalized;
}

function labelOf(label: string | null): string | null {
  return label === null || label.trim() === '' ? null : label;
}

async function existingKey(store: KeyStore, id: string): Promise<KeyRecord> {
  const record = await store.findById(id);
  if (record === undefined) throw unknownKey(id);
  return record;
}

function unknownKey(id: string): KeyNotFoundError {
  return new KeyNotFoundError(id);
}

/** The records as views, their organizations' slugs asked for in one call. */
async function viewsOf(records: KeyRecord[], slugs: OrganizationSlugs): Promise<KeyView[]> {
  const bySlug = await slugs([...new Set(records.map((record) => record.organizationId))]);
  return records.map((record) => ({
    id: record.id,
    organizationId: record.organizationId,
    organizationSlug: bySlug.get(record.organizationId) ?? null,
    prefix: record.prefix,
    label: record.label,
    origins: record.origins,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    revokedAt: record.revokedAt,
    lastUsedAt: record.lastUsedAt,
  }));
}
