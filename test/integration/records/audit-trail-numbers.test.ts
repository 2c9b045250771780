// The audit trail's numbers (migration 9, records/trail/audit-trail.ts), on PostgreSQL 15 and
// PGlite alike: a number is never handed out twice. Entries an owner deletes from the end, with
// the triggers dropped, leave a gap the next append does not fill, which verify reports as entries
// missing, not as an edit; an append that fails uses up no number (no gap without a removal); the
// counter only rises; and an existing trail's counter starts at its newest entry.
import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../../runtime/package-root.ts';
import type { AuditRecord } from '../../../records/trail/audit-entry.ts';
import { headKey } from '../../../records/trail/audit-heads.ts';
import { type AuditTrail, databaseAuditTrail } from '../../../records/trail/audit-trail.ts';
import { verifyAuditTrail } from '../../../records/trail/audit-verify.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { platformBackends } from '../../support/platform-backends.ts';

const { backends, close } = platformBackends();
afterAll(close);

const RECORD: AuditRecord = {
  actor: 'root',
  actorRole: 'owner',
  door: 'api',
  action: 'key.created',
  organizationId: null,
  targetId: null,
  outcome: 'ok',
  reason: null,
  requestId: null,
  clientAddress: null,
  changes: {},
};

async function appended(trail: AuditTrail, count: number): Promise<number[]> {
  const seqs: number[] = [];
  for (let index = 0; index < count; index++) seqs.push((await trail.append({ ...RECORD, targetId: `key_${index}` })).seq);
  return seqs;
}

/** As an owner who drops the relation's refusals: what only the heads in the store can catch. */
async function withoutTriggers(db: SqlClient, work: () => Promise<unknown>): Promise<void> {
  await db.exec('ALTER TABLE marquee.marquee_audit_trail DISABLE TRIGGER USER; ALTER TABLE marquee.marquee_audit_trail_counter DISABLE TRIGGER USER');
  try {
    await work();
  } finally {
    await db.exec('ALTER TABLE marquee.marquee_audit_trail ENABLE TRIGGER USER; ALTER TABLE marquee.marquee_audit_trail_counter ENABLE TRIGGER USER');
  }
}

describe.each(backends)('the audit trail numbers on $name', (backend) => {
  it('never hands out a number twice: entries deleted from the end leave a gap verify reports as missing, caught against the store too', async () => {
    const db = await backend.open();
    await migrateMarquee(db);
    const trail = databaseAuditTrail(db);
    expect(await appended(trail, 5)).toEqual([1, 2, 3, 4, 5]);
    const kept = (await trail.head())!;
    const heads = [{ ...kept, key: headKey(kept) }];

    await withoutTriggers(db, () => db.query('DELETE FROM marquee.marquee_audit_trail WHERE seq >= 4'));
    // Before anything is appended, only the head kept in the store knows.
    expect((await verifyAuditTrail(trail.walk(), [])).ok).toBe(true);
    expect((await verifyAuditTrail(trail.walk(), heads)).broken).toMatchObject({ kind: 'missing', seq: 4, last: 5 });

    const next = await trail.append(RECORD);
    expect(next.seq).toBe(6);
    const entries: number[] = [];
    for await (const entry of trail.walk()) entries.push(entry.seq);
    expect(entries).toEqual([1, 2, 3, 6]);
    // Entry 6 links to entry 3, as the appender found it: the chain alone would hold, the numbers do not.
    expect((await verifyAuditTrail(trail.walk(), [])).broken).toEqual({ kind: 'missing', seq: 4, last: 5, problem: 'entries 4..5 missing: entry 6 follows entry 3' });
    expect((await verifyAuditTrail(trail.walk(), heads)).broken).toMatchObject({ kind: 'missing', seq: 4, last: 5 });
  });

  it('uses up no number for an append that fails, and keeps numbering past the newest entry even with its counter deleted', async () => {
    const db = await backend.open();
    await migrateMarquee(db);
    const trail = databaseAuditTrail(db);
    await appended(trail, 2);
    // A door the relation refuses: the insert fails after the number was drawn, in the same transaction.
    await expect(trail.append({ ...RECORD, door: 'elsewhere' as AuditRecord['door'] })).rejects.toThrow(/door_check|check constraint/);
    expect((await trail.append(RECORD)).seq).toBe(3);
    expect((await verifyAuditTrail(trail.walk(), [])).ok).toBe(true);

    await withoutTriggers(db, () => db.query('DELETE FROM marquee.marquee_audit_trail_counter'));
    expect((await trail.append(RECORD)).seq).toBe(4);
    expect((await verifyAuditTrail(trail.walk(), [])).ok).toBe(true);
  });

  it('has a counter that only rises: lowering, deleting or truncating it is refused', async () => {
    const db = await backend.open();
    await migrateMarquee(db);
    await appended(databaseAuditTrail(db), 3);
    await expect(db.query('UPDATE marquee.marquee_audit_trail_counter SET last_seq = 1')).rejects.toThrow(/counter only rises: UPDATE refused/);
    await expect(db.query('DELETE FROM marquee.marquee_audit_trail_counter')).rejects.toThrow(/counter only rises: DELETE refused/);
    await expect(db.exec('TRUNCATE marquee.marquee_audit_trail_counter')).rejects.toThrow(/counter only rises: TRUNCATE refused/);
    expect(await db.query('SELECT last_seq::int4 AS last FROM marquee.marquee_audit_trail_counter')).toEqual([{ last: 3 }]);
  });

  it("starts an existing trail's counter at its newest entry", async () => {
    const db = await backend.open();
    await migrateMarquee(db);
    await appended(databaseAuditTrail(db), 4);
    // The trail as migration 8 left it, no counter; then migration 9's script, as migrateMarquee runs it.
    await db.exec('DROP TABLE marquee.marquee_audit_trail_counter');
    const script = await readFile(packagePath('records', 'schema', 'migrations', '009-trail-sequence.sql'), 'utf8');
    await db.transaction((tx) => tx.exec(`SET LOCAL search_path TO marquee; ${script}`));
    expect(await db.query('SELECT last_seq::int4 AS last FROM marquee.marquee_audit_trail_counter')).toEqual([{ last: 4 }]);
    expect((await databaseAuditTrail(db).append(RECORD)).seq).toBe(5);
  });
});
