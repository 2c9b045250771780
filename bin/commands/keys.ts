// The key commands of docs/design.md's command table; what they do is gateway/keys/key-admin.ts,
// which the admin API calls too. Here: arguments in, the one key shape (KeyView) out.
import { text } from 'node:stream/consumers';
import { findOrganization, organizationSlugs } from '../../builder/platform/organizations.ts';
import { createKey, findKeyBySecret, KeyCommandError, type KeyView, listKeys, type OrganizationSlugs, revokeKey, rollKey, updateKey } from '../../admin/keys/key-admin.ts';
import { parseDuration, parseExpiry } from '../../admin/keys/key-times.ts';
import type { Config } from '../config.ts';
import { line, printJson } from '../output.ts';
import { withKeyStore } from '../../gateway/access/access-backends.ts';
import { organizationId, withDatabase } from '../services.ts';

export async function keysCreateCommand(config: Config, options: { org: string; origin: string[]; label?: string; expires?: string; json?: boolean }): Promise<void> {
  // Checked before anything is opened, so a typo costs nothing; a duration counts from creation,
  // not from the start of a command that may spend seconds opening the database.
  const expiry = (now: Date) => (options.expires === undefined ? null : parseExpiry(options.expires, now));
  expiry(new Date());
  const org = await withDatabase(config, (db) => findOrganization(db, options.org));
  const known: OrganizationSlugs = async () => new Map([[org.id, org.slug]]);
  const created = await withKeyStore(config, (keys) =>
    createKey(keys, { organizationId: org.id, origins: options.origin, label: options.label ?? null, expiresAt: expiry(new Date()) }, known),
  );
  if (options.json) return printJson(created);
  line(`key ${created.id} (${created.prefix}…) for ${org.slug} (${org.id})`);
  line(`origins: ${originsText(created)}`);
  if (created.expiresAt !== null) line(`expires: ${created.expiresAt}`);
  line(`secret (shown once, store it now): ${created.key}`);
}

export async function keysUpdateCommand(config: Config, id: string, options: { origin: string[]; origins: boolean; label?: string; json?: boolean }): Promise<void> {
  if (!options.origins && options.origin.length > 0) throw new KeyCommandError('--no-origins and --origin contradict each other: give one or the other');
  const origins = !options.origins ? [] : options.origin.length > 0 ? options.origin : undefined;
  const changes = { ...(origins !== undefined ? { origins } : {}), ...(options.label !== undefined ? { label: options.label } : {}) };
  if (Object.keys(changes).length === 0) throw new KeyCommandError(`nothing to change for key ${id}: give --origin, --no-origins or --label`);
  const updated = await withKeyStore(config, (keys) => updateKey(keys, id, changes, databaseSlugs(config)));
  if (options.json) return printJson(updated);
  line(`key ${updated.id} updated; from the next request on:`);
  line(`origins: ${originsText(updated)}`);
  line(`label: ${updated.label ?? '(none)'}`);
}

export async function keysRollCommand(config: Config, id: string, options: { grace: string; json?: boolean }): Promise<void> {
  const graceMs = parseDuration(options.grace, '--grace');
  const { replacement, replaced } = await withKeyStore(config, (keys) => rollKey(keys, id, { graceMs }, databaseSlugs(config)));
  if (options.json) return printJson(replacement);
  line(`key ${replacement.id} (${replacement.prefix}…) replaces ${replaced.id} for ${replacement.organizationSlug ?? replacement.organizationId}`);
  line(`${replaced.id} is refused from ${replaced.revokedAt}: switch your clients to the new key before then`);
  line(`origins: ${originsText(replacement)}`);
  line(`secret (shown once, store it now): ${replacement.key}`);
}

export async function keysRevokeCommand(config: Config, id: string, options: { json?: boolean } = {}): Promise<void> {
  const revoked = await withKeyStore(config, (keys) => revokeKey(keys, id, databaseSlugs(config)));
  if (options.json) return printJson(revoked);
  line(`key ${id} revoked; refused from the next request on`);
}

export async function keysListCommand(config: Config, options: { org?: string; json?: boolean }): Promise<void> {
  const orgId = options.org ? await organizationId(config, options.org) : undefined;
  const keys = await withKeyStore(config, (store) => listKeys(store, orgId === undefined ? {} : { organizationId: orgId }, databaseSlugs(config)));
  if (options.json) return printJson(keys);
  const now = Date.now();
  for (const key of keys) line(keyLine(key, now));
}

/** `--secret -` reads the secret from standard input, so that it stays out of shell history and `ps`. */
export async function keysFindCommand(config: Config, options: { secret: string; json?: boolean }): Promise<void> {
  const secret = options.secret === '-' ? await text(process.stdin) : options.secret;
  const found = await withKeyStore(config, (keys) => findKeyBySecret(keys, secret, databaseSlugs(config)));
  if (found === undefined) throw new KeyCommandError('no key matches that secret');
  if (options.json) return printJson(found);
  line(keyLine(found, Date.now()));
}

/** The organizations' slugs from the platform database, opened only when there is a key to show. */
function databaseSlugs(config: Config): OrganizationSlugs {
  return async (ids) => (ids.length === 0 ? new Map() : withDatabase(config, (db) => organizationSlugs(db, ids)));
}

function keyLine(key: KeyView, now: number): string {
  const used = key.lastUsedAt ? `used ${key.lastUsedAt}` : 'never used';
  return [key.id, key.organizationSlug ?? key.organizationId, key.prefix ? `${key.prefix}…` : '-', standingText(key, now), used, key.label ?? '', originsText(key)].join('  ');
}

function standingText(key: KeyView, now: number): string {
  if (key.revokedAt !== null) return Date.parse(key.revokedAt) <= now ? `revoked ${key.revokedAt}` : `revoked from ${key.revokedAt}`;
  if (key.expiresAt !== null) return Date.parse(key.expiresAt) <= now ? `expired ${key.expiresAt}` : `expires ${key.expiresAt}`;
  return 'active';
}

function originsText(key: KeyView): string {
  return key.origins.length ? key.origins.join(' ') : '(no origins: server-side use only)';
}
