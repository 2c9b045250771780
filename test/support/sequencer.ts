// The order files start in (vitest.config.ts `sequence.sequencer`). With two integration files
// running at a time, a two-minute file started last leaves one worker idle while it runs alone, so
// the longest files start first. Vitest orders by the durations it cached from the last run on
// this checkout and, on a fresh clone (CI), by file size, which puts them anywhere; these are the
// files that took 15 s or more on Node 26 in CI run 23 (docs/development.md; each file's own time
// from scripts/slowest-tests.mjs, beside another file), in seconds, ahead of the rest. Refresh them
// from a run's .test-output/file-times-lts.json when files are added or get much faster.
// Some of them mostly wait (on a fault held, a lock's expiry, a schedule's period, a receiver's
// retry): two of those side by side left the cores three quarters idle in run 16. So a waiting
// file never starts right after another while a busy one is left to start instead.
// Each project group still runs in its order (unit, the integration files two at a time, the
// fault campaigns, then the ones that run alone); a file missing here only starts later.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST_SECONDS: Record<string, number> = {
  'test/integration/production/chaos.test.ts': 164,
  // Added 2026-12-02 (issue 49's files), timed alone under load; not yet in a CI run's table.
  'test/integration/production/readiness.test.ts': 110,
  'test/integration/monitoring/fleet-monitoring.test.ts': 85,
  'test/integration/backup/backup-restore.test.ts': 55,
  'test/integration/builder/change-claims.test.ts': 40,
  'test/integration/upgrade/db-status.test.ts': 30,
  'test/integration/builder/builder-start-logs.test.ts': 25,
  'test/integration/history/verify-log.test.ts': 140,
  'test/integration/history/verify-missing.test.ts': 131,
  'test/integration/production/fault-matrix.test.ts': 129,
  'test/integration/cli/cli.test.ts': 121,
  'test/integration/cli/checkpoint.test.ts': 116,
  'test/integration/cli/history-evidence.test.ts': 92,
  'test/integration/webhooks/webhooks.test.ts': 90,
  'test/integration/cli/keys-lifecycle.test.ts': 89,
  'test/integration/admin/audit-trail.test.ts': 86,
  'test/integration/production/redis-lost-mid-run.test.ts': 83,
  'test/integration/cli/audit-history.test.ts': 79,
  'test/integration/admin/admin-credentials.test.ts': 79,
  'test/integration/history/log-rows.test.ts': 72,
  'test/integration/cli/show-inclusion.test.ts': 71,
  'test/integration/publication-log/log-store.test.ts': 60,
  'test/integration/builder/divided-runs.test.ts': 58,
  'test/integration/cli/key-usage.test.ts': 55,
  'test/integration/history/verify-s3-cdn.test.ts': 52,
  'test/integration/production/builder-killed.test.ts': 44,
  'test/integration/cli/start-database.test.ts': 40,
  'test/integration/release/install.test.ts': 75,
  'test/integration/records/audit-trail-numbers.test.ts': 38,
  'test/integration/builder/scheduled-runs.test.ts': 37,
  'test/integration/clients/clients.test.ts': 37,
  'test/integration/admin/console.test.ts': 36,
  'test/integration/clients/eleventy-site.test.ts': 36,
  'test/integration/admin/start-admin.test.ts': 36,
  'test/integration/cli/cli-postgres.test.ts': 35,
  'test/integration/production/misconfigured.test.ts': 31,
  'test/integration/publication-log/log-rows-checked.test.ts': 30,
  'test/integration/cli/refusals.test.ts': 29,
  'test/integration/production/keys-outlive-redis.test.ts': 27,
  'test/integration/cli/builder-upgrade.test.ts': 27,
  'test/integration/webhooks/example-receiver.test.ts': 27,
  'test/integration/platform/sql.test.ts': 27,
  'test/integration/builder/pipeline.test.ts': 26,
  'test/integration/admin/auditor-checks.test.ts': 26,
  'test/integration/production/restarts.test.ts': 26,
  'test/integration/production/scheduled-builds.test.ts': 26,
  'test/integration/builder/run-record.test.ts': 25,
  'test/integration/gateway/security.property.test.ts': 24,
  'test/integration/webhooks/endpoint-health.test.ts': 24,
  'test/integration/builder/s3-publish.test.ts': 23,
  'test/integration/admin/key-usage-routes.test.ts': 23,
  'test/integration/admin/admin-port-hardening.test.ts': 22,
  'test/integration/publication-log/verify-example.test.ts': 22,
  'test/integration/cli/secrets-in-logs.test.ts': 22,
  'test/integration/admin/audit-trail-embedded.test.ts': 22,
  'test/integration/platform/embedded-server.test.ts': 22,
  'test/integration/contracts/s3-store.test.ts': 22,
  'test/integration/clients/typed-client.test.ts': 21,
  'test/integration/platform/marquee-migrations.test.ts': 21,
  'test/integration/publication-log/builder-process.test.ts': 21,
  'test/integration/admin/builder-admin.test.ts': 20,
  'test/integration/browser/console-usage.test.ts': 20,
  'test/integration/platform/source.test.ts': 19,
  'test/integration/cli/first-run.test.ts': 19,
  'test/integration/publication-log/builder-log.test.ts': 19,
  'test/integration/platform/migrations.test.ts': 18,
  'test/integration/history/verify-beside-builder.test.ts': 18,
  'test/integration/platform/triggers.test.ts': 17,
  'test/integration/builder/change-during-run.test.ts': 17,
  'test/integration/security/hostile-local.test.ts': 17,
  'test/integration/platform/embedded-lock.test.ts': 17,
  'test/integration/cli/serve-beside.test.ts': 16,
  'test/integration/contracts/s3-store-stuck.test.ts': 16,
  'test/integration/cli/start.test.ts': 15,
};

/** Files that spend most of their time waiting, not computing (run 16's idle cores beside them). */
const WAITING = new Set(
  ['webhooks/webhooks', 'production/keys-outlive-redis', 'production/builder-killed', 'production/scheduled-builds', 'builder/scheduled-runs'].map(
    (name) => `test/integration/${name}.test.ts`,
  ),
);

const relative = (file: string): string => {
  const at = file.indexOf('test/integration/');
  return at === -1 ? '' : file.slice(at);
};
const expectedSeconds = (file: string): number => LONGEST_SECONDS[relative(file)] ?? 0;
const waits = (file: string): boolean => WAITING.has(relative(file));

/** Longest first, except that a waiting file never follows another while a busy one is left. */
export function startOrder<T>(files: readonly T[], id: (file: T) => string): T[] {
  const left = [...files].sort((a, b) => expectedSeconds(id(b)) - expectedSeconds(id(a)));
  const order: T[] = [];
  while (left.length > 0) {
    const previousWaits = order.length > 0 && waits(id(order.at(-1)!));
    const index = previousWaits
      ? Math.max(
          0,
          left.findIndex((file) => !waits(id(file))),
        )
      : 0;
    order.push(...left.splice(index, 1));
  }
  return order;
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Group by group (Array.prototype.sort is stable: vitest's own order within a group first).
    const groups = new Map<number, TestSpecification[]>();
    for (const file of sorted) {
      const order = file.project.config.sequence.groupOrder;
      groups.set(order, [...(groups.get(order) ?? []), file]);
    }
    return [...groups.keys()].sort((a, b) => a - b).flatMap((order) => startOrder(groups.get(order)!, (file) => file.moduleId));
  }
}
