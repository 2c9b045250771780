// Change builds claimed in the platform database, so that a change every builder hears is built
// by one (docs/design.md "A run never lies"; change-builds.ts says when a claim covers a change). One row
// per organization (records/schema/migrations/014-change-claims.sql). A claim is taken when the
// organization has none, when its claim was taken before this builder heard the change (that
// build's read may predate it), or when its builder stopped keeping it for the claim timeout (it
// died mid-build): taken over as a run's work list takes over a dead builder's claims
// (database-work-list.ts), and measured by the database's clock, so builders' clocks need not agree.
// When the change was heard is told as a duration ago, which the database turns into its own
// time: later than the true instant by the query's way there, so a claim counted as covering a
// change was always taken after it.
import { randomUUID } from 'node:crypto';
import { describeError } from '../../runtime/errors.ts';
import type { Log } from '../../runtime/log.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import type { ChangeClaim, ChangeClaims } from './change-builds.ts';
import { DEFAULT_CLAIM_TIMEOUT_MS } from './work-list.ts';

// `existing` is read from the statement's snapshot: a claim committed by another builder during
// this statement is not in it (null), and the outcome is then 'building', looked at again later.
const CLAIM = `
  WITH existing AS (
    SELECT done FROM marquee_change_claims WHERE organization_id = $1
  ), claimed AS (
    INSERT INTO marquee_change_claims AS c (organization_id, builder, token, claimed_at, kept_at, done)
    VALUES ($1, $2, $3, clock_timestamp(), clock_timestamp(), false)
    ON CONFLICT (organization_id) DO UPDATE
      SET builder = excluded.builder, token = excluded.token, claimed_at = excluded.claimed_at, kept_at = excluded.kept_at, done = false
      WHERE c.claimed_at < clock_timestamp() - $4 * interval '1 millisecond'
         OR (NOT c.done AND c.kept_at < clock_timestamp() - $5 * interval '1 millisecond')
    RETURNING 1
  )
  SELECT EXISTS (SELECT FROM claimed) AS claimed, (SELECT done FROM existing) AS done`;

const KEEP = `UPDATE marquee_change_claims SET kept_at = clock_timestamp() WHERE organization_id = $1 AND token = $2 AND NOT done`;
const RELEASE = `UPDATE marquee_change_claims SET done = true, kept_at = clock_timestamp() WHERE organization_id = $1 AND token = $2`;

/** A database that cannot be asked is said once per this long, not at every change. */
const UNREACHABLE_WARNING_EVERY_MS = 30_000;

export class DatabaseChangeClaims implements ChangeClaims {
  private readonly claimTimeoutMs: number;
  private lastWarning = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: SqlClient,
    private readonly options: { log: Log; builder: string; claimTimeoutMs?: number },
  ) {
    this.claimTimeoutMs = options.claimTimeoutMs ?? DEFAULT_CLAIM_TIMEOUT_MS;
  }

  async claim(organizationId: string, heardAgoMs: number): Promise<ChangeClaim> {
    const token = randomUUID();
    let row: { claimed: boolean; done: boolean | null } | undefined;
    try {
      [row] = await this.db.query<{ claimed: boolean; done: boolean | null }>(CLAIM, [organizationId, this.options.builder, token, Math.round(heardAgoMs), this.claimTimeoutMs]);
    } catch (error) {
      this.unreachable(organizationId, error);
      return { outcome: 'claimed', release: async () => {} };
    }
    if (!row?.claimed) return { outcome: row?.done === true ? 'built' : 'building' };
    // Kept at a third of the timeout, so a live builder's claim is never taken over.
    const keeping = setInterval(() => void this.db.query(KEEP, [organizationId, token]).catch(() => {}), this.claimTimeoutMs / 3);
    keeping.unref();
    return {
      outcome: 'claimed',
      release: async () => {
        clearInterval(keeping);
        // Not released (the database is away): the claim lapses, and a builder that heard the
        // change builds it once more. Harmless; and the next scheduled run builds it anyway.
        await this.db.query(RELEASE, [organizationId, token]).catch(() => {});
      },
    };
  }

  private unreachable(organizationId: string, error: unknown): void {
    const now = performance.now();
    if (now - this.lastWarning < UNREACHABLE_WARNING_EVERY_MS) return;
    this.lastWarning = now;
    this.options.log.warn(
      `change build of ${organizationId}: the platform database could not say whether another builder builds it, so this one does (another may too): ${describeError(error)}`,
      { trigger: 'change', organizationId, backend: 'database' },
    );
  }
}
