// Key operations for the admin API and console, through gateway/keys/key-admin.ts as the CLI's
// `keys` commands do; here an organization is named by id or slug and a missing key is a 404.
import type { OrganizationRef } from '../builder/platform/source.ts';
import { type CreatedKey, createKey, type ListedKey, listKeys, revokeKey } from '../gateway/keys/key-admin.ts';
import type { KeyStore } from '../gateway/keys/key-store.ts';
import { keyNotFound, notImplemented } from './errors.ts';
import type { KeyChanges, KeyCreation } from './services.ts';

export interface KeyRequests {
  list(organization?: string): Promise<ListedKey[]>;
  create(request: KeyCreation): Promise<CreatedKey>;
  update(keyId: string, changes: KeyChanges): Promise<ListedKey>;
  revoke(keyId: string): Promise<ListedKey>;
  roll(keyId: string, options: { graceSeconds?: number }): Promise<CreatedKey>;
}

export function keyRequests(store: KeyStore, organization: (idOrSlug: string) => Promise<OrganizationRef>): KeyRequests {
  const find = async (keyId: string): Promise<ListedKey> => {
    const key = (await listKeys(store)).find((candidate) => candidate.id === keyId);
    if (!key) throw keyNotFound(keyId);
    return key;
  };
  return {
    list: async (name) => listKeys(store, name === undefined ? undefined : (await organization(name)).id),
    create: async ({ organization: name, origins = [], label = null, expiresAt }) => {
      const { id } = await organization(name);
      if (expiresAt) throw notImplemented('a key expiry');
      return createKey(store, { organizationId: id, origins, label });
    },
    update: async (keyId) => {
      await find(keyId);
      throw notImplemented('editing a key');
    },
    revoke: async (keyId) => {
      await find(keyId);
      await revokeKey(store, keyId);
      return find(keyId);
    },
    roll: async (keyId) => {
      await find(keyId);
      throw notImplemented('rolling a key');
    },
  };
}
