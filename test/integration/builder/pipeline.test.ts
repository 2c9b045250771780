// The whole builder against real databases: read → project → validate → serialize → publish (the
// change-triggered builds, bound in time, run alone: change-triggered.test.ts).
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditStore } from '../../../builder/history/audit.ts';
import { buildOrganizations } from '../../../builder/build.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { openFreshPglite } from '../../support/fresh-pglite.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import { resourcePath } from '../../../snapshot/resource-catalog.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { CrashingStore } from '../../support/faulty-store.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { sampleBuildContext as context, seeded } from '../../support/sample-build.ts';
import { readWholeSnapshot } from '../../support/snapshot-integrity.ts';

let postgres: TestPostgres;
let work: string;
beforeAll(async () => {
  postgres = await startPostgres();
  work = await mkdtemp(join(tmpdir(), 'marquee-pipeline-'));
});
afterAll(async () => {
  await postgres?.stop();
  await rm(work, { recursive: true, force: true });
});

describe('the same platform data through PostgreSQL 15 and PGlite', () => {
  it('yields byte-identical snapshots', async () => {
    const [pg, lite] = await Promise.all([openPostgres(postgres.url).then(seeded), openFreshPglite().then(seeded)]);
    const [fromPg, fromLite] = [new MemoryStore(), new MemoryStore()];
    try {
      const [a, b] = await Promise.all([buildOrganizations(context(pg, fromPg), { trigger: 'manual' }), buildOrganizations(context(lite, fromLite), { trigger: 'manual' })]);
      expect(a.map((r) => r.result)).toEqual(['published', 'published', 'suspended', 'suspended']);
      expect(b.map(({ snapshotId, result }) => ({ snapshotId, result }))).toEqual(a.map(({ snapshotId, result }) => ({ snapshotId, result })));
      expect((await auditStore(fromPg)).findings).toEqual([]);
    } finally {
      await Promise.all([pg.close(), lite.close()]);
    }
    // Objects are compared byte for byte; manifests too, but for their build duration.
    const comparable = (store: MemoryStore) =>
      new Map(
        [...store.entries].map(([key, { bytes }]) => {
          if (!key.includes('/snapshots/') && !key.endsWith('current.json')) return [key, bytes.toString('utf8')];
          const { build: _build, manifestHash: _hash, ...rest } = JSON.parse(bytes.toString('utf8'));
          return [key, JSON.stringify(rest)];
        }),
      );
    expect(comparable(fromLite)).toEqual(comparable(fromPg));
    expect([...fromPg.entries.keys()].filter((k) => k.includes('/objects/')).length).toBeGreaterThan(20);
  });
});

describe('platform data that fails a schema', () => {
  it('is a failed result naming organization, resource and reason; the previous snapshot stays current', async () => {
    const db = await seeded(await openFreshPglite());
    try {
      const store = new MemoryStore();
      const orgId = SAMPLE.organizations.nordic.id;
      await buildOrganizations(context(db, store), { trigger: 'manual' });
      const before = await readWholeSnapshot(store, orgId);
      // A float8 the API cannot carry: JSON has no Infinity.
      await db.query(`UPDATE organizations SET latitude = 'Infinity' WHERE id = $1`, [orgId]);
      const results = await buildOrganizations(context(db, store), { trigger: 'manual', organizationIds: [orgId] });
      expect(results).toEqual([
        expect.objectContaining({
          id: orgId,
          result: 'failed',
          failure: { stage: 'validate', resource: '/organization', backend: false },
          error: `organization ${orgId}: resource /organization fails schema organization: /latitude must be number,null`,
        }),
      ]);
      expect(await readWholeSnapshot(store, orgId)).toEqual(before);
      expect((await auditStore(store)).findings).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

describe('a build killed between any two writes', () => {
  it('leaves every previous snapshot readable and whole, and the next build completes', async () => {
    const db = await seeded(await openFreshPglite());
    try {
      const base = join(work, 'base');
      await buildOrganizations(context(db, new DirectoryStore(base)), { trigger: 'manual' });
      const orgIds = Object.values(SAMPLE.organizations).map((o) => o.id);
      const before = await Promise.all(orgIds.map((id) => readWholeSnapshot(new DirectoryStore(base), id)));

      // One change that touches several objects of one organization, and a suspension.
      await db.query(`UPDATE events SET name = 'Stockholm Dev Days (renamed)' WHERE id = $1`, [SAMPLE.events.stockholmDevDays.id]);
      await db.query(`UPDATE team_members SET show_on_website = true WHERE id = $1`, [SAMPLE.teamMembers.hidden]);
      await db.query(`UPDATE organizations SET status = 'suspended' WHERE id = $1`, [SAMPLE.organizations.pacific.id]);

      let crashes = 0;
      for (let writes = 0; ; writes++) {
        const dir = join(work, `crash-${writes}`);
        await cp(base, dir, { recursive: true });
        const crashing = new CrashingStore(new DirectoryStore(dir), writes);
        const results = await buildOrganizations({ ...context(db, crashing), concurrency: 1 }, { trigger: 'manual' });
        const failed = results.filter((r) => r.result === 'failed');
        if (failed.length === 0) break;
        crashes++;
        expect(failed[0]!.error).toMatch(/crashed before write/);
        // Every organization still reads whole: the old snapshot, or (for an organization whose
        // publish completed before the crash) its new one — never a mixture.
        for (const [index, id] of orgIds.entries()) {
          const now = await readWholeSnapshot(new DirectoryStore(dir), id);
          if (failed.some((r) => r.id === id)) expect(now).toEqual(before[index]);
        }
        const next = await buildOrganizations(context(db, new DirectoryStore(dir)), { trigger: 'manual' });
        expect(next.every((r) => r.result !== 'failed')).toBe(true);
        expect((await auditStore(new DirectoryStore(dir))).findings).toEqual([]); // a crash's leftovers are young, not orphans yet
        const nordic = await readWholeSnapshot(new DirectoryStore(dir), SAMPLE.organizations.nordic.id);
        expect(JSON.stringify(nordic.resources[resourcePath.event(SAMPLE.events.stockholmDevDays.id)])).toContain('(renamed)');
        expect((await readWholeSnapshot(new DirectoryStore(dir), SAMPLE.organizations.pacific.id)).snapshotId).toBeNull();
        await rm(dir, { recursive: true, force: true });
      }
      expect(crashes).toBeGreaterThan(5);
    } finally {
      await db.close();
    }
  });
});
