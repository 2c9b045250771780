// The admins commands: a door over admin/credentials/credential-admin.ts, as the admin API and the
// console are. The CLI acts as `cli:<user>@<host>`, an owner: whoever can run it can read the
// database it writes.
import {
  type AdminCredentialOperations,
  type AdminCredentialView,
  adminCredentialOperations,
  adminRole,
  credentialExpiry,
  credentialName,
  credentialStanding,
} from '../../admin/credentials/credential-admin.ts';
import { recordedArea } from '../../admin/trail/recorded-operations.ts';
import { migrateMarquee } from '../../records/schema/migrate.ts';
import type { Config } from '../config.ts';
import { line, printJson } from '../output.ts';
import { withDatabase } from '../services.ts';
import { usageChecked } from '../usage.ts';
import { cliRecorder } from './trail.ts';

export async function adminsCreateCommand(config: Config, options: { name: string; role: string; expires?: string; json?: boolean }): Promise<void> {
  // Checked before the database is opened, so a typo costs nothing; a duration counts from creation.
  // A value the command line got wrong is a usage error (exit 2, with the usage line), as commander's own are.
  usageChecked(() => {
    credentialName(options.name);
    adminRole(options.role);
  });
  const expiry = (now: Date) => (options.expires === undefined ? null : credentialExpiry(options.expires, now));
  usageChecked(() => expiry(new Date()));
  const created = await withCredentials(config, (admins) => admins.create({ name: options.name, role: options.role, expiresAt: expiry(new Date()) }));
  if (options.json) return printJson(created);
  line(`admin credential ${created.name} (${created.prefix}…), role ${created.role}`);
  if (created.expiresAt !== null) line(`expires: ${created.expiresAt}`);
  line(`secret (shown once, store it now): ${created.secret}`);
  line('use it as a Bearer token, or as the password of the console (any user name)');
}

export async function adminsListCommand(config: Config, options: { json?: boolean }): Promise<void> {
  const credentials = await withCredentials(config, (admins) => admins.list());
  if (options.json) return printJson(credentials);
  const now = Date.now();
  for (const credential of credentials) line(credentialLine(credential, now));
}

export async function adminsRevokeCommand(config: Config, name: string, options: { json?: boolean } = {}): Promise<void> {
  const revoked = await withCredentials(config, (admins) => admins.revoke(name));
  if (options.json) return printJson(revoked);
  line(`admin credential ${revoked.name} revoked at ${revoked.revokedAt}; refused from the next request on`);
}

/** The credentials live in Marquee's own relations, made by its migrations (a no-op once applied). */
function withCredentials<T>(config: Config, work: (admins: AdminCredentialOperations) => Promise<T>): Promise<T> {
  return withDatabase(config, async (db) => {
    await migrateMarquee(db);
    return work(
      recordedArea(
        'admins',
        adminCredentialOperations(db),
        cliRecorder(async () => db),
      ),
    );
  });
}

function credentialLine(credential: AdminCredentialView, now: number): string {
  const used = credential.lastUsedAt ? `used ${credential.lastUsedAt}` : 'never used';
  return [credential.name, credential.role, `${credential.prefix}…`, standingText(credential, now), used, `made by ${credential.createdBy} ${credential.createdAt}`].join('  ');
}

function standingText(credential: AdminCredentialView, now: number): string {
  const standing = credentialStanding(credential, now);
  if (standing === 'revoked') return `revoked ${credential.revokedAt} by ${credential.revokedBy}`;
  if (standing === 'expired') return `expired ${credential.expiresAt}`;
  return credential.expiresAt === null ? 'active' : `active, expires ${credential.expiresAt}`;
}
