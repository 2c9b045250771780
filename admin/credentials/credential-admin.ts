// What `marquee admins …`, the admin API's /admin/v1/admins routes and the console's credentials
// page do with named admin credentials (docs/design.md "Roles"), and the admin port's check
// of a credential offered with a request: all call adminCredentialOperations and show the one shape,
// AdminCredentialView. Which role may call what is decided at the doors (api-routes.ts, the
// console's route declarations), not here: the CLI acts as an owner.
import { parseDurationMs } from '../../runtime/duration.ts';
import { OperatorError } from '../../runtime/errors.ts';
import { parseZonedInstant } from '../../runtime/instant.ts';
import type { SqlQueries } from '../../records/database/sql.ts';
import { ADMIN_ROLES, type Actor, type AdminRole, ROOT_ACTOR } from '../../records/actor.ts';
import { currentAttribution } from '../acting.ts';
import { generateCredentialSecret, hashCredentialSecret, isCredentialSecret, recognisablePrefixOf } from '../../records/credentials/credential-secret.ts';
import { type AdminCredentialRecord, AdminCredentialStore } from '../../records/credentials/credential-store.ts';

/** A mistake in what the operator asked for; the message is meant for them (400 from the admin API). */
export class AdminCredentialError extends OperatorError {
  override name = 'AdminCredentialError';
}

/** No credential has the name: 404 ADMIN_NOT_FOUND from the admin API. */
export class AdminCredentialNotFoundError extends AdminCredentialError {
  override name = 'AdminCredentialNotFoundError';
  constructor(readonly credentialName: string) {
    super(`no admin credential is named ${JSON.stringify(credentialName)} (see: marquee admins list)`);
  }
}

/** The name is taken, by a credential in use or a revoked one: 409 ADMIN_NAME_TAKEN from the admin API. */
export class AdminNameTakenError extends AdminCredentialError {
  override name = 'AdminNameTakenError';
  constructor(readonly credentialName: string) {
    super(`an admin credential named ${JSON.stringify(credentialName)} exists already (names are never reused, so the audit trail's names stay unambiguous): choose another name`);
  }
}

/** A credential as every door shows it: never its secret or the secret's hash. */
export type AdminCredentialView = Omit<AdminCredentialRecord, 'secretHash'>;

/** A credential just made, with its secret: shown this once. */
export type NewAdminCredentialView = AdminCredentialView & { secret: string };

export type CredentialStanding = 'usable' | 'expired' | 'revoked';

export interface AdminCredentialOperations {
  /** Every credential, revoked ones included, oldest first. */
  list(): Promise<AdminCredentialView[]>;
  /** The secret is in the answer, once. `expiresAt` must be in the future; absent or null: never. Made by whoever acts (admin/acting.ts). */
  create(request: { name: string; role: string; expiresAt?: Date | null }): Promise<NewAdminCredentialView>;
  /** Refused from the next request on; final. A credential revoked before keeps its time, and who revoked it. */
  revoke(name: string): Promise<AdminCredentialView>;
  /**
   * The admin port's check: the actor a secret stands for, or undefined when no usable credential
   * has it (unknown, expired, revoked). Read from the database every time, so a revocation by any
   * process refuses the very next request.
   */
  authenticate(secret: string): Promise<Actor | undefined>;
}

export interface CredentialOptions {
  now?: () => Date;
  /**
   * A credential's last use is written at most this often (per credential and process): reading
   * the console is a dozen requests a page, and a write for each would cost more than the look-up.
   */
  useRecordIntervalMs?: number;
}

/** A minute: "last used" is for an auditor asking whether a credential is still needed, not a request log. */
const USE_RECORD_INTERVAL_MS = 60_000;

/** Names that stand for actors no credential can be: ADMIN_TOKEN's `root`, and the CLI's `cli:…` (a colon is not allowed anyway). */
const RESERVED_NAMES = new Set([ROOT_ACTOR.name]);
const NAME = /^[a-z0-9][a-z0-9._@-]{0,63}$/;

export function adminCredentialOperations(db: SqlQueries, options: CredentialOptions = {}): AdminCredentialOperations {
  const store = new AdminCredentialStore(db);
  const now = options.now ?? (() => new Date());
  const interval = options.useRecordIntervalMs ?? USE_RECORD_INTERVAL_MS;
  /** Credential name → when this process last wrote its use. */
  const recorded = new Map<string, number>();
  return {
    list: async () => (await store.list()).map(viewOf),
    create: async ({ name, role, expiresAt = null }) => {
      const checkedName = credentialName(name);
      const checkedRole = adminRole(role);
      const at = now();
      if (expiresAt !== null && expiresAt.getTime() <= at.getTime()) throw new AdminCredentialError(`the expiry ${expiresAt.toISOString()} is not in the future`);
      const secret = generateCredentialSecret();
      const record: AdminCredentialRecord = {
        name: checkedName,
        role: checkedRole,
        secretHash: hashCredentialSecret(secret),
        prefix: recognisablePrefixOf(secret),
        createdAt: at.toISOString(),
        createdBy: currentAttribution().actor.name,
        expiresAt: expiresAt?.toISOString() ?? null,
        revokedAt: null,
        revokedBy: null,
        lastUsedAt: null,
      };
      if (!(await store.insert(record))) throw new AdminNameTakenError(checkedName);
      return { ...viewOf(record), secret };
    },
    revoke: async (name) => {
      const revoked = await store.revoke(name, now(), currentAttribution().actor.name);
      if (revoked === undefined) throw new AdminCredentialNotFoundError(name);
      recorded.delete(name);
      return viewOf(revoked);
    },
    authenticate: async (secret) => {
      if (!isCredentialSecret(secret)) return undefined;
      const record = await store.bySecretHash(hashCredentialSecret(secret));
      if (record === undefined) return undefined;
      const at = now();
      if (credentialStanding(record, at.getTime()) !== 'usable') return undefined;
      const last = recorded.get(record.name);
      if (last === undefined || at.getTime() - last >= interval) {
        recorded.set(record.name, at.getTime());
        await store.recordUse(record.name, at);
      }
      return { name: record.name, role: record.role };
    },
  };
}

/** Whether a credential is accepted at `nowMs`: revoked wins over expired. */
export function credentialStanding(credential: Pick<AdminCredentialRecord, 'expiresAt' | 'revokedAt'>, nowMs: number): CredentialStanding {
  if (credential.revokedAt !== null && Date.parse(credential.revokedAt) <= nowMs) return 'revoked';
  if (credential.expiresAt !== null && Date.parse(credential.expiresAt) <= nowMs) return 'expired';
  return 'usable';
}

/** A credential's name as given, checked: lower-case letters, digits and `.` `_` `@` `-`, at most 64, not `root`. */
export function credentialName(text: string): string {
  const name = text.trim();
  if (!NAME.test(name)) {
    throw new AdminCredentialError(
      `${JSON.stringify(text)} is not a credential name: use 1 to 64 lower-case letters, digits, '.', '_', '@' or '-', starting with a letter or digit (e.g. alice or ci-deploy)`,
    );
  }
  if (RESERVED_NAMES.has(name)) throw new AdminCredentialError(`${JSON.stringify(name)} is ADMIN_TOKEN's name in the audit trail: choose another name`);
  return name;
}

export function adminRole(text: string): AdminRole {
  const role = ADMIN_ROLES.find((known) => known === text);
  if (role === undefined) throw new AdminCredentialError(`${JSON.stringify(text)} is not a role: use one of ${ADMIN_ROLES.join(', ')}`);
  return role;
}

/** A credential's `expiresAt` as an operator writes it (the CLI's flag, the console's field): a duration from `now` (`90d`, `24h`), or an ISO 8601 instant with its offset. */
export function credentialExpiry(text: string, now: Date): Date {
  const ms = parseDurationMs(text);
  if (ms !== undefined && ms > 0) return new Date(now.getTime() + ms);
  const at = parseZonedInstant(text);
  if (at === undefined)
    throw new AdminCredentialError(`${JSON.stringify(text)} is neither a duration such as 90d nor an ISO instant such as 2027-01-01T00:00:00Z`, { field: 'expiresAt' });
  return at;
}

function viewOf({ secretHash: _secretHash, ...view }: AdminCredentialRecord): AdminCredentialView {
  return view;
}
