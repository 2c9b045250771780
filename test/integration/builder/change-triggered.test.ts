// Change-triggered builds on the embedded database, bound in time: a removed team member and an
// unpublished event leave the snapshot within about a second, so this file runs with nothing beside
// it (vitest.config.ts ALONE); the rest of the pipeline is pipeline.test.ts.
import { describe, expect, it } from 'vitest';
import { auditStore } from '../../../builder/history/audit.ts';
import { listenForChanges } from '../../../builder/platform/changes.ts';
import { openFreshPglite } from '../../support/fresh-pglite.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { BuildRunner } from '../../../builder/runs/runner.ts';
import { resourcePath } from '../../../snapshot/resource-catalog.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { sampleBuildContext as context, seeded } from '../../support/sample-build.ts';
import { readWholeSnapshot } from '../../support/snapshot-integrity.ts';

describe('change-triggered builds', () => {
  it('drop a removed team member and an unpublished event from the snapshot within about a second', async () => {
    const db = await seeded(await openFreshPglite());
    const store = new MemoryStore();
    const log = new RecordingLog();
    const runner = new BuildRunner(context(db, store), { debounceMs: 50, log });
    const orgId = SAMPLE.organizations.nordic.id;
    try {
      await runner.build('manual');
      const unlisten = await listenForChanges(db, (id) => runner.organizationChanged(id));
      const team = async () => (await readWholeSnapshot(store, orgId)).resources[resourcePath.team] as Array<{ fullName: string }>;
      const [gone] = await db.query<{ id: string; full_name: string }>(
        `SELECT id, full_name FROM team_members WHERE organization_id = $1 AND show_on_website ORDER BY id LIMIT 1`,
        [orgId],
      );
      expect((await team()).map((m) => m.fullName)).toContain(gone!.full_name);

      const started = Date.now();
      await db.query(`DELETE FROM team_members WHERE id = $1`, [gone!.id]);
      await db.query(`UPDATE events SET status = 'draft' WHERE id = $1`, [SAMPLE.events.stockholmDevDays.id]);
      await expect.poll(async () => (await team()).map((m) => m.fullName), { timeout: 5000, interval: 50 }).not.toContain(gone!.full_name);
      await expect
        .poll(async () => Object.keys((await readWholeSnapshot(store, orgId)).resources), { timeout: 5000, interval: 50 })
        .not.toContain(resourcePath.event(SAMPLE.events.stockholmDevDays.id));
      expect(Date.now() - started).toBeLessThan(2000);
      // Each change build is one line of the runner's log, with what a program would filter on.
      expect(log.lines).toContainEqual({
        level: 'info',
        message: expect.stringMatching(/^nordic-dev: published \S+$/),
        fields: expect.objectContaining({ trigger: 'change', organizationId: orgId, slug: 'nordic-dev', result: 'published' }),
      });
      expect(log.lines.filter((line) => line.level !== 'info')).toEqual([]);
      expect((await auditStore(store)).findings).toEqual([]);
      await unlisten();
    } finally {
      await runner.stop();
      await db.close();
    }
  });
});
