// What `marquee keys create|revoke|list` do (docs/design.md "Command line"); bin/ only parses
// arguments and prints. Their JSON shapes are part of the CLI contract.
import { OperatorError } from '../../snapshot/errors.ts';
import { normalizeAllowedOrigin } from '../access/origin.ts';
import type { KeyRecord, KeyStore } from './key-store.ts';

/** A mistake in what the operator asked for; the message is meant for them. */
export class KeyCommandError extends OperatorError {
  override name = 'KeyCommandError';
}

export interface CreatedKey {
  id: string;
  /** The secret: printed once, never stored. */
  key: string;
  organizationId: string;
  origins: string[];
}

/** A key as `keys list` shows it: everything but the hash of its secret. */
export type ListedKey = Omit<KeyRecord, 'secretHash'>;

/** Validates and normalizes the allowed origins (docs/api.md §5.7), then creates the key. */
export async function createKey(
  store: KeyStore,
  { organizationId, origins, label }: { organizationId: string; origins: readonly string[]; label: string | null },
): Promise<CreatedKey> {
  if (organizationId.trim() === '') throw new KeyCommandError('a key needs an organization');
  const normalized: string[] = [];
  for (const origin of origins) {
    const parsed = normalizeAllowedOrigin(origin);
    if (!parsed.ok) throw new KeyCommandError(`--origin ${parsed.reason}`);
    if (!normalized.includes(parsed.origin)) normalized.push(parsed.origin);
  }
  const { record, secret } = await store.create({ organizationId, origins: normalized, label });
  return { id: record.id, key: secret, organizationId: record.organizationId, origins: record.origins };
}

/** Revokes a key; effective from the next request on (docs/api.md §5.4). */
export async function revokeKey(store: KeyStore, id: string): Promise<void> {
  if (!(await store.revoke(id, new Date()))) throw new KeyCommandError(`no key has the id ${id} (see: marquee keys list)`);
}

/** Keys without their secrets or hashes, optionally of one organization. */
export async function listKeys(store: KeyStore, organizationId?: string): Promise<ListedKey[]> {
  const records = await store.list(organizationId);
  return records.map(({ id, organizationId, label, origins, createdAt, revokedAt }) => ({
    id,
    organizationId,
    label,
    origins,
    createdAt,
    revokedAt,
  }));
}
