// How the CLI's commands record their audit entries (docs/design.md "The audit trail"): the keys and
// webhooks commands call the same recorded operations as the admin API and the console; build and
// db, which are the CLI's alone, record around their work here. Every command runs as the CLI's
// actor, set once in bin/cli.ts. What start and a builder do of their own accord (migrations,
// start's sample data and demo key) is recorded here too, through the same recorder, as their
// system actor (records/actor.ts systemActor): so "who created key X" has an answer for every key.
import { type Attribution, systemActor } from '../../records/actor.ts';
import type { KnownSecret } from '../../records/trail/audit-entry.ts';
import { databaseAuditTrail } from '../../records/trail/audit-trail.ts';
import { type ActionRecord, type AuditRecorder, auditRecorder, outcomeOf } from '../../admin/trail/recorded-operations.ts';
import { organizationDirectory } from '../../admin/organization-admin.ts';
import { MARQUEE_MIGRATION_NAMES, migrateMarquee } from '../../records/schema/migrate.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import { describeError } from '../../runtime/errors.ts';

/**
 * Entries go to the platform database the command works on; Marquee's relations are made first if
 * missing (one read once they are). `known`: secrets to name by a marker (bin/admin-token.ts).
 */
export function cliRecorder(db: () => Promise<SqlClient>, known: readonly KnownSecret[] = []): AuditRecorder {
  let trail: Promise<ReturnType<typeof databaseAuditTrail>> | undefined;
  return auditRecorder(
    () =>
      (trail ??= (async () => {
        const database = await db();
        await migrateMarquee(database);
        return databaseAuditTrail(database);
      })()),
    organizationDirectory(db),
    known,
  );
}

/** A reason is a line for the reader, not a log. */
const REASON_MAX = 500;

type Recorded = Omit<ActionRecord, 'outcome' | 'reason'>;

/**
 * Runs a command's work and records it: `ok`, or what `judge` makes of its result (a build with a
 * failed organization; what a migration applied), or `refused`/`failed` when it throws. A trail that cannot be written
 * after a failure (the database is the failure) is said on stderr; the command's error is the one reported.
 */
export async function recordedWork<T>(
  recorder: AuditRecorder,
  record: Recorded,
  work: () => Promise<T>,
  judge?: (result: T) => { failure?: string; changes?: ActionRecord['changes']; targetId?: string; unrecorded?: true },
): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    // The operator who ran it is told the whole reason; so is the trail (a statement's error names the relation).
    const { outcome } = outcomeOf(error);
    await recorder.record({ ...record, outcome, reason: describeError(error).slice(0, REASON_MAX) }).catch((failure: unknown) => {
      process.stderr.write(`marquee: the audit trail could not record this failure: ${describeError(failure)}\n`);
    });
    throw error;
  }
  const { failure, changes, targetId, unrecorded } = judge?.(result) ?? {};
  // Work that changed nothing and that no one asked for by name (start's look for an empty database to seed) is no entry.
  if (unrecorded) return result;
  await recorder.record({
    ...record,
    ...(targetId !== undefined ? { targetId } : {}),
    ...(changes !== undefined ? { changes: { ...record.changes, ...changes } } : {}),
    ...(failure === undefined ? { outcome: 'ok' } : { outcome: 'failed', reason: failure }),
  });
  return result;
}

/** A process's own doings, through the CLI's door that started it (`start`, `builder`). */
export function systemAttribution(process: 'start' | 'builder'): Attribution {
  return { actor: systemActor(process), door: 'cli' };
}

/**
 * One `db.migrated` entry per migration this process applied: each of Marquee's (its number and
 * name) and each of the platform's schema versions (start's embedded database). What another
 * process applied first is not applied here, so each migration is recorded once, by whoever
 * applied it. After the migrations: the trail is one of the relations they make.
 */
export async function recordMigrations(recorder: AuditRecorder, applied: { marquee: readonly number[]; platform?: readonly number[] }): Promise<void> {
  for (const number of applied.marquee) {
    await recorder.record({ action: 'db.migrated', outcome: 'ok', changes: { marqueeMigration: number, name: MARQUEE_MIGRATION_NAMES.get(number) ?? null } });
  }
  for (const version of applied.platform ?? []) await recorder.record({ action: 'db.migrated', outcome: 'ok', changes: { platformVersion: version } });
}
