// What the builders counted of the campaign's requests (docs/design.md "Usage per key"), read once
// everything is healed and sent: marquee_key_usage summed per key and outcome over hours and
// routes, read again until two reads agree, so that no batch still on its way is missed. The
// judgement is usage-invariants.ts's.
import { setTimeout as sleep } from 'node:timers/promises';
import type { SqlClient } from '../../records/database/sql.ts';
import type { CountedUsage, UsageRecord } from './history.ts';

/** How often the builders' intake takes the waiting batches (records/usage/usage-intake.ts). */
export const INTAKE_INTERVAL_MS = 2_000;
/** Reads stop agreeing or not after this; the last read is judged, and the report says it never settled. */
const SETTLE_BOUND_MS = 60_000;

/**
 * Reads until two reads in a row agree, each a move and an intake round and a second apart (a
 * count still in a gateway is in the database by the next read), at most for SETTLE_BOUND_MS. A
 * read that fails (the database just back) is tried again within the bound.
 */
export async function readCountedUsage(db: SqlClient, moveMs: number): Promise<Pick<UsageRecord, 'counted' | 'reads' | 'settled' | 'failure'>> {
  const apart = moveMs + INTAKE_INTERVAL_MS + 1_000;
  const until = performance.now() + SETTLE_BOUND_MS;
  let last: CountedUsage[] | undefined;
  let failure: string | undefined;
  let reads = 0;
  for (;;) {
    const read = await readOnce(db).catch((error: Error) => {
      failure = error.message;
      return undefined;
    });
    reads++;
    if (read !== undefined) {
      if (last !== undefined && JSON.stringify(read) === JSON.stringify(last)) return { counted: read, reads, settled: true };
      last = read;
    }
    if (performance.now() + apart > until) break;
    await sleep(apart);
  }
  return last === undefined ? { counted: [], reads, settled: false, failure: failure ?? 'no read' } : { counted: last, reads, settled: false };
}

async function readOnce(db: SqlClient): Promise<CountedUsage[]> {
  const rows = await db.query<{ key_id: string; organization_id: string; status: number; error_code: string; requests: string }>(
    `SELECT key_id, min(organization_id) AS organization_id, status, error_code, sum(requests)::text AS requests
       FROM marquee_key_usage GROUP BY key_id, status, error_code ORDER BY key_id, status, error_code`,
  );
  return rows.map((row) => ({ keyId: row.key_id, organizationId: row.organization_id, status: Number(row.status), errorCode: row.error_code, requests: Number(row.requests) }));
}
