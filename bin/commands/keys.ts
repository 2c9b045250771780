// The key commands of docs/design.md's command table: a door over admin/keys/key-admin.ts's key
// operations, as the admin API and the console are. Here: arguments in, the one key shape (KeyView) out.
import { text } from 'node:stream/consumers';
import { KeyCommandError, type KeyOperations, type KeyView, keyOperations } from '../../admin/keys/key-admin.ts';
import { parseDuration, parseExpiry } from '../../admin/keys/key-times.ts';
import { withKeyStore } from '../../records/keys/key-backends.ts';
import { recordedArea } from '../../admin/trail/recorded-operations.ts';
import { assertEmbeddedDatabase } from '../../records/database/database-backends.ts';
import { organizationDirectory } from '../../admin/organization-admin.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import type { Config } from '../config.ts';
import { UsageError, usageChecked } from '../usage.ts';
import { createLog } from '../log.ts';
import { line, printJson } from '../output.ts';
import { openDatabase } from '../services.ts';
import { cliRecorder } from './trail.ts';

export async function keysCreateCommand(config: Config, options: { org: string; origin: string[]; label?: string; expires?: string; json?: boolean }): Promise<void> {
  // A duration counts from creation, not from the start of a command that may spend seconds opening
  // the database; checked first all the same, as a wrong command line, so a typo costs nothing.
  const expiry = (now: Date) => (options.expires === undefined ? null : parseExpiry(options.expires, now));
  usageChecked(() => {
    const now = new Date();
    const at = expiry(now);
    if (at !== null && at.getTime() <= now.getTime()) throw new UsageError(`--expires ${at.toISOString()} is not in the future`);
  });
  const created = await withKeys(config, async (keys, db) => {
    // Opened first: opening the database may take seconds, which a duration must not count.
    await db();
    return keys.create({ organization: options.org, origins: options.origin, label: options.label ?? null, expiresAt: expiry(new Date()) });
  });
  if (options.json) return printJson(created);
  line(`key ${created.id} (${created.prefix}…) for ${created.organizationSlug} (${created.organizationId})`);
  line(`origins: ${originsText(created)}`);
  if (created.expiresAt !== null) line(`expires: ${created.expiresAt}`);
  line(`secret (shown once, store it now): ${created.key}`);
}

export async function keysUpdateCommand(config: Config, id: string, options: { origin: string[]; origins: boolean; label?: string; json?: boolean }): Promise<void> {
  if (!options.origins && options.origin.length > 0) throw new UsageError('--no-origins and --origin contradict each other: give one or the other');
  const origins = !options.origins ? [] : options.origin.length > 0 ? options.origin : undefined;
  const changes = { ...(origins !== undefined ? { origins } : {}), ...(options.label !== undefined ? { label: options.label } : {}) };
  if (Object.keys(changes).length === 0) throw new UsageError(`nothing to change for key ${id}: give --origin, --no-origins or --label`);
  const updated = await withKeys(config, (keys) => keys.update(id, changes));
  if (options.json) return printJson(updated);
  line(`key ${updated.id} updated; from the next request on:`);
  line(`origins: ${originsText(updated)}`);
  line(`label: ${updated.label ?? '(none)'}`);
}

export async function keysRollCommand(config: Config, id: string, options: { grace: string; json?: boolean }): Promise<void> {
  const graceMs = usageChecked(() => parseDuration(options.grace, '--grace'));
  const { replacement, replaced } = await withKeys(config, (keys) => keys.roll(id, { graceSeconds: graceMs / 1000 }));
  if (options.json) return printJson(replacement);
  line(`key ${replacement.id} (${replacement.prefix}…) replaces ${replaced.id} for ${replacement.organizationSlug ?? replacement.organizationId}`);
  line(`${replaced.id} is refused from ${replaced.revokedAt}: switch your clients to the new key before then`);
  line(`origins: ${originsText(replacement)}`);
  line(`secret (shown once, store it now): ${replacement.key}`);
}

export async function keysRevokeCommand(config: Config, id: string, options: { json?: boolean } = {}): Promise<void> {
  const revoked = await withKeys(config, (keys) => keys.revoke(id));
  if (options.json) return printJson(revoked);
  line(`key ${id} revoked; refused from the next request on`);
}

export async function keysListCommand(config: Config, options: { org?: string; json?: boolean }): Promise<void> {
  const keys = await withKeys(config, (operations) => operations.list(options.org));
  if (options.json) return printJson(keys);
  const now = Date.now();
  for (const key of keys) line(keyLine(key, now));
}

/** `--secret -` reads the secret from standard input, so that it stays out of shell history and `ps`. */
export async function keysFindCommand(config: Config, options: { secret: string; json?: boolean }): Promise<void> {
  const secret = options.secret === '-' ? await text(process.stdin) : options.secret;
  const found = await withKeys(config, (keys) => keys.findBySecret(secret));
  if (found === undefined) throw new KeyCommandError('no key matches that secret');
  if (options.json) return printJson(found);
  line(keyLine(found, Date.now()));
}

/**
 * Runs one command's work on the key operations. The platform database is opened at most once,
 * and only when needed: for the key store with Redis (the durable record), for an organization,
 * or for the slugs of keys to show. Warnings (Redis unreachable) go to stderr, apart from the
 * command's output.
 */
async function withKeys<T>(config: Config, work: (keys: KeyOperations, db: () => Promise<SqlClient>) => Promise<T>): Promise<T> {
  // Embedded, the keys' organizations are in the database beside the key file: no database there
  // means the wrong MARQUEE_HOME, whose empty key file would list nothing and exit 0.
  if (config.databaseUrl === undefined) await assertEmbeddedDatabase(config.home);
  let opened: Promise<SqlClient> | undefined;
  const db = (): Promise<SqlClient> => (opened ??= openDatabase(config));
  const log = await createLog({ format: config.logFormat, destination: 2 });
  try {
    // Each change is recorded in the audit trail, as through the admin API.
    return await withKeyStore(config, db, log, (store) => work(recordedArea('keys', keyOperations(store, organizationDirectory(db)), cliRecorder(db)), db));
  } finally {
    await opened?.then(
      (database) => database.close(),
      () => {},
    );
  }
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
