// The order files start in (vitest.config.ts `sequence.sequencer`): with two integration files
// running at a time, a two-minute file started last leaves one worker idle while it runs alone,
// so the longest files start first. Vitest orders by the durations it cached from the last run on
// this checkout and, on a fresh clone (CI), by file size, which puts them anywhere; these are the
// files that took 15 s or more in CI run 14 on Node 26 (docs/development.md), in seconds, ahead
// of the rest.
// Each project group still runs in its order (unit, then the integration files two at a time,
// then the ones that run alone); a file missing here only starts later, nothing else.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST_SECONDS: Record<string, number> = {
  'test/integration/production/chaos.test.ts': 130,
  'test/integration/production/fault-matrix.test.ts': 112,
  'test/integration/webhooks/webhooks.test.ts': 82,
  'test/integration/production/redis-lost-mid-run.test.ts': 74,
  'test/integration/cli/history-evidence.test.ts': 60,
  'test/integration/builder/divided-runs.test.ts': 56,
  'test/integration/cli/cli.test.ts': 54,
  'test/integration/cli/keys-lifecycle.test.ts': 54,
  'test/integration/cli/audit-history.test.ts': 49,
  'test/integration/admin/audit-trail.test.ts': 46,
  'test/integration/admin/admin-credentials.test.ts': 46,
  'test/integration/production/keys-outlive-redis.test.ts': 45,
  'test/integration/production/builder-killed.test.ts': 41,
  'test/integration/production/restarts.test.ts': 28,
  'test/integration/builder/scheduled-runs.test.ts': 27,
  'test/integration/contracts/s3-store.test.ts': 26,
  'test/integration/admin/start-admin.test.ts': 24,
  'test/integration/admin/console.test.ts': 23,
  'test/integration/builder/change-during-run.test.ts': 23,
  'test/integration/production/scheduled-builds.test.ts': 22,
  'test/integration/clients/clients.test.ts': 22,
  'test/integration/release/install.test.ts': 22,
  'test/integration/admin/audit-trail-embedded.test.ts': 20,
  'test/integration/gateway/security.property.test.ts': 18,
  'test/integration/platform/embedded-server.test.ts': 17,
  'test/integration/production/misconfigured.test.ts': 17,
  'test/integration/builder/pipeline.test.ts': 17,
  'test/integration/cli/builder-upgrade.test.ts': 16,
  'test/integration/clients/typed-client.test.ts': 16,
  'test/integration/contracts/s3-store-stuck.test.ts': 15,
};

function expectedSeconds(file: string): number {
  const at = file.indexOf('test/integration/');
  return at === -1 ? 0 : (LONGEST_SECONDS[file.slice(at)] ?? 0);
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Array.prototype.sort is stable: within a group, files not listed keep vitest's own order.
    return sorted.sort((a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || expectedSeconds(b.moduleId) - expectedSeconds(a.moduleId));
  }
}
