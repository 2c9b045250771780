// Key operations for the admin API and console, through key-admin.ts as the CLI's `keys`
// commands do; here an organization is named by id or slug, and a missing key is a 404.
import type { OrganizationRef } from '../../builder/platform/organizations.ts';
import type { KeyChanges, KeyStore } from '../../gateway/keys/key-store.ts';
import { parseZonedInstant, ZONED_INSTANT_EXAMPLE } from '../../runtime/instant.ts';
import { badRequest, keyNotFound } from '../errors.ts';
import { createKey, DEFAULT_ROLL_GRACE_MS, findKey, type KeyView, listKeys, type NewKeyView, type OrganizationSlugs, revokeKey, rollKey, updateKey } from './key-admin.ts';

/** A key as the admin API and the console ask for one. */
interface KeyCreation {
  /** Id or slug. */
  organization: string;
  origins?: readonly string[];
  label?: string | null;
  /** ISO instant after which the key is refused. */
  expiresAt?: string | null;
}

/** What the admin API and the console do with keys (AdminServices.keys). */
export interface KeyRequests {
  /** Keys without secrets, optionally of one organization (id or slug). */
  list(organization?: string): Promise<KeyView[]>;
  /** One key without its secret; an AdminError (404) when no key has the id. */
  get(keyId: string): Promise<KeyView>;
  /** The secret is in the answer, once. */
  create(request: KeyCreation): Promise<NewKeyView>;
  update(keyId: string, changes: KeyChanges): Promise<KeyView>;
  /** Effective from the next request on; the key with revokedAt set. */
  revoke(keyId: string): Promise<KeyView>;
  /** A new key (with its secret) for the same organization, origins and label; the old one is revoked after graceSeconds (0: now). */
  roll(keyId: string, options: { graceSeconds?: number }): Promise<NewKeyView>;
}

export function keyRequests(store: KeyStore, organization: (idOrSlug: string) => Promise<OrganizationRef>, slugs: OrganizationSlugs): KeyRequests {
  /** Checked first, so that an unknown id is a 404 rather than key-admin's message for the CLI. */
  const known = async (keyId: string): Promise<void> => {
    if ((await store.findById(keyId)) === undefined) throw keyNotFound(keyId);
  };
  return {
    list: async (name) => listKeys(store, name === undefined ? {} : { organizationId: (await organization(name)).id }, slugs),
    get: async (keyId) => {
      const key = await findKey(store, keyId, slugs);
      if (key === undefined) throw keyNotFound(keyId);
      return key;
    },
    create: async ({ organization: name, origins = [], label = null, expiresAt = null }) => {
      const { id } = await organization(name);
      return createKey(store, { organizationId: id, origins, label, expiresAt: expiresAt === null ? null : instant('expiresAt', expiresAt) }, slugs);
    },
    update: async (keyId, changes) => {
      await known(keyId);
      return updateKey(store, keyId, changes, slugs);
    },
    revoke: async (keyId) => {
      await known(keyId);
      return revokeKey(store, keyId, slugs);
    },
    roll: async (keyId, { graceSeconds }) => {
      await known(keyId);
      // The CLI's default when the request names none: one behaviour through both doors.
      const graceMs = graceSeconds === undefined ? DEFAULT_ROLL_GRACE_MS : graceSeconds * 1000;
      return (await rollKey(store, keyId, { graceMs }, slugs)).replacement;
    },
  };
}

function instant(field: string, text: string): Date {
  const date = parseZonedInstant(text);
  if (date === undefined) throw badRequest(`${field} must be an ISO 8601 instant with a zone (e.g. ${ZONED_INSTANT_EXAMPLE}), got ${JSON.stringify(text)}`);
  return date;
}
