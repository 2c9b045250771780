// The key commands of docs/design.md's command table: a door over admin/keys/key-admin.ts's key
// operations, as the admin API and the console are. Here: arguments in, the one key shape (KeyView) out.
import { text } from 'node:stream/consumers';
import { KeyCommandError, type KeyOperations, type KeyView, keyOperations } from '../../admin/keys/key-admin.ts';
import { parseDuration, parseExpiry } from '../../admin/keys/key-times.ts';
import { withKeyStore } from '../../records/keys/key-backends.ts';
import { recordedArea } from '../../admin/trail/recorded-operations.ts';
import { assertEmbeddedDatabase } from '../../records/database/database-backends.ts';
import { organizationDirectory } from '../../admin/organization-admin.ts';
import { auditWindow } from '../../admin/trail/audit-since.ts';
import { type ListedKey, type UsageGranularity, type UsageOperations, usageOperations, usageRange } from '../../admin/usage-admin.ts';
import { migrateMarquee } from '../../records/schema/migrate.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import type { Config } from '../config.ts';
import { UsageError, usageChecked } from '../usage.ts';
import { createLog } from '../log.ts';
import { line, printJson } from '../output.ts';
import { openDatabase } from '../services.ts';
import { usageCsv, usageTable } from './key-usage-table.ts';
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
  const keys = await withUsage(config, (usage) => usage.keyList(options.org));
  if (options.json) return printJson(keys);
  const now = Date.now();
  for (const key of keys) line(keyLine(key, now));
}

export interface KeyUsageOptions {
  org?: string;
  since?: string;
  until?: string;
  by?: UsageGranularity;
  json?: boolean;
  csv?: boolean;
}

/** One key's usage, or every key's of `--org`: a table, `--json` (the report) or `--csv`. */
export async function keysUsageCommand(config: Config, keyId: string | undefined, options: KeyUsageOptions): Promise<void> {
  if (keyId !== undefined && options.org !== undefined) throw new UsageError(`a key id and --org contradict each other: give ${keyId} or --org ${options.org}, not both`);
  if (keyId === undefined && options.org === undefined) throw new UsageError('whose usage? give a key id (marquee keys list shows them) or --org ID|SLUG');
  if (options.json && options.csv) throw new UsageError('--json and --csv contradict each other: give one or the other');
  // A range the command line got wrong is refused before anything is opened (exit 2, with the usage line).
  const range = usageChecked(() =>
    usageRange(
      { ...auditWindow({ since: options.since, until: options.until }, { since: '--since', until: '--until' }, new Date()), ...(options.by ? { by: options.by } : {}) },
      Date.now(),
    ),
  );
  const report = await withUsage(config, (usage) => (keyId !== undefined ? usage.key(keyId, range) : usage.organization(options.org!, range)));
  if (options.json) return printJson(report);
  for (const text of options.csv ? usageCsv(report) : usageTable(report, keyId ?? `organization ${options.org}`)) line(text);
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

/**
 * Runs one command's work on the usage operations (admin/usage-admin.ts), over the same key store
 * and database as the other key commands. Marquee's relations are migrated first, as by every
 * command that reads them: the usage counts are in migration 012; once applied, that is one read.
 */
async function withUsage<T>(config: Config, work: (usage: UsageOperations) => Promise<T>): Promise<T> {
  return withKeys(config, async (keys, db) => {
    const database = await db();
    await migrateMarquee(database);
    return work(usageOperations({ db: database, keys, organizations: organizationDirectory(db) }));
  });
}

/** A key's line; a listed key's shows its requests of the last 24 hours beside its last use. */
function keyLine(key: KeyView | ListedKey, now: number): string {
  const used = key.lastUsedAt ? `used ${key.lastUsedAt}` : 'never used';
  const requests = 'requests24h' in key ? [`${key.requests24h} ${key.requests24h === 1 ? 'request' : 'requests'} in 24h`] : [];
  return [
    key.id,
    key.organizationSlug ?? key.organizationId,
    key.prefix ? `${key.prefix}…` : '-',
    standingText(key, now),
    used,
    ...requests,
    key.label ?? '',
    originsText(key),
  ].join('  ');
}

function standingText(key: KeyView, now: number): string {
  if (key.revokedAt !== null) return Date.parse(key.revokedAt) <= now ? `revoked ${key.revokedAt}` : `revoked from ${key.revokedAt}`;
  if (key.expiresAt !== null) return Date.parse(key.expiresAt) <= now ? `expired ${key.expiresAt}` : `expires ${key.expiresAt}`;
  return 'active';
}

function originsText(key: KeyView): string {
  return key.origins.length ? key.origins.join(' ') : '(no origins: server-side use only)';
}
