// The key commands of docs/design.md's command table; what they do is gateway/keys/key-admin.ts.
import { createKey, listKeys, revokeKey } from '../../gateway/keys/key-admin.ts';
import type { Config } from '../config.ts';
import { line, printJson } from '../output.ts';
import { organizationId, organizationNamed, withDatabase, withKeyStore } from '../services.ts';

export async function keysCreateCommand(config: Config, options: { org: string; origin: string[]; label?: string; json?: boolean }): Promise<void> {
  const org = await withDatabase(config, (db) => organizationNamed(db, options.org));
  const created = await withKeyStore(config, (keys) => createKey(keys, { organizationId: org.id, origins: options.origin, label: options.label ?? null }));
  if (options.json) return printJson(created);
  line(`key ${created.id} for ${org.slug} (${org.id})`);
  line(`origins: ${created.origins.length ? created.origins.join(' ') : '(none: server-side use only)'}`);
  line(`secret (shown once, store it now): ${created.key}`);
}

export async function keysRevokeCommand(config: Config, id: string): Promise<void> {
  await withKeyStore(config, (keys) => revokeKey(keys, id));
  line(`key ${id} revoked; refused from the next request on`);
}

export async function keysListCommand(config: Config, options: { org?: string; json?: boolean }): Promise<void> {
  const orgId = options.org ? await organizationId(config, options.org) : undefined;
  const keys = await withKeyStore(config, (store) => listKeys(store, orgId));
  if (options.json) return printJson(keys);
  for (const key of keys) {
    line(`${key.id}  ${key.organizationId}  ${key.revokedAt ? `revoked ${key.revokedAt}` : 'active'}  ${key.label ?? ''}  ${key.origins.join(' ')}`);
  }
}
