// The order files start in (vitest.config.ts `sequence.sequencer`): with two integration files
// running at a time, a two-minute file started last leaves one worker idle while it runs alone,
// so the longest files start first. Vitest orders by the durations it cached from the last run on
// this checkout and, on a fresh clone (CI), by file size, which puts them anywhere; these are the
// files that took longest in docs/development.md's measurements, in seconds, ahead of the rest.
// Each project group still runs in its order (unit, then the integration files two at a time,
// then the ones that run alone); a file missing here only starts later, nothing else.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST_SECONDS: Record<string, number> = {
  'test/integration/production/redis-lost-mid-run.test.ts': 150,
  'test/integration/production/fault-matrix.test.ts': 122,
  'test/integration/cli/audit-history.test.ts': 108,
  'test/integration/cli/cli.test.ts': 83,
  'test/integration/webhooks/webhooks.test.ts': 79,
  'test/integration/cli/keys-lifecycle.test.ts': 76,
  'test/integration/builder/pipeline.test.ts': 66,
  'test/integration/builder/divided-runs.test.ts': 59,
  'test/integration/contracts/s3-store.test.ts': 56,
  'test/integration/production/keys-outlive-redis.test.ts': 48,
  'test/integration/builder/change-during-run.test.ts': 42,
  'test/integration/webhooks/example-receiver.test.ts': 38,
  'test/integration/admin/builder-admin.test.ts': 35,
  'test/integration/release/install.test.ts': 33,
  'test/integration/gateway/fuzz.property.test.ts': 30,
  'test/integration/admin/start-admin.test.ts': 30,
  'test/integration/clients/clients.test.ts': 27,
  'test/integration/production/restarts.test.ts': 27,
  'test/integration/cli/builder-upgrade.test.ts': 24,
  'test/integration/admin/console.test.ts': 23,
  'test/integration/platform/sql.test.ts': 21,
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
