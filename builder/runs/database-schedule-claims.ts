// One scheduled run per period for the whole fleet (docs/design.md "Production shape (many machines)"):
// every builder's schedule fires, and node-cron asks this coordinator whether this one should run.
// The first builder to insert the period's row runs it; the others skip it. The row names the
// schedule's slot (the instant the expression matched, the same on every builder whatever its
// clock's small drift), so there is nothing to release; rows older than the claim's lifetime are
// cleared by later claims. Kept in the platform database with the runs (Marquee's migrations make
// both, records/schema/migrations/004-runs.sql), not in Redis: a period is
// run once whatever Redis loses. When the database cannot be asked, this builder runs the period
// anyway (node-cron would skip it): at worst a period is run twice, never not at all
// (docs/design.md "A run never lies"). Without several builders there is no coordinator.
import type { RunCoordinator } from 'node-cron';
import { describeError } from '../../runtime/errors.ts';
import type { Log } from '../../runtime/log.ts';
import type { SqlClient } from '../../records/database/sql.ts';

/** Longer than any builder's clock may be off: a slot is never run twice while the database answers. */
export const SCHEDULE_CLAIM_MS = 60 * 60 * 1_000;

const CLAIM = `
  WITH cleared AS (DELETE FROM marquee_schedule_claims WHERE claimed_at < now() - $3 * interval '1 millisecond')
  INSERT INTO marquee_schedule_claims (slot, builder) VALUES ($1, $2) ON CONFLICT (slot) DO NOTHING
  RETURNING slot`;

export class DatabaseScheduleClaims implements RunCoordinator {
  constructor(
    private readonly db: SqlClient,
    private readonly options: { log: Log; builder: string },
  ) {}

  /** `key` is node-cron's: the task's name and the slot's instant. */
  async shouldRun(key: string, ttlMs: number): Promise<boolean> {
    try {
      return (await this.db.query(CLAIM, [key, this.options.builder, ttlMs])).length === 1;
    } catch (error) {
      this.options.log.warn(`scheduled build ${key}: the platform database could not say which builder runs it, so this one does (another may too): ${describeError(error)}`, {
        trigger: 'schedule',
        backend: 'database',
      });
      return true;
    }
  }
}
