// The auditors' commands through the real program: history with state changes, diff by id, show
// as of an instant (clock-dependent fields computed for that instant), and gc --dry-run.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE, seedSample } from '../../../builder/platform/sample.ts';
import { marquee } from '../../support/cli.ts';
import { onEmbeddedPlatform } from '../../support/embedded-platform.ts';
import { migratedHome } from '../../support/migrated-home.ts';

let home: string;
let env: Record<string, string>;
const nordic = SAMPLE.organizations.nordic;
const workshop = SAMPLE.events.rustWorkshop;
/**
 * The workshop starts this long after it is moved, so that it is upcoming at the first build and
 * past by the end. The first build is a `marquee build` on PGlite, which on a busy machine took
 * longer than the 12 s this was: the workshop had begun before it. The wait for its end comes after
 * the other setup builds and two tests, which take longer than this already.
 */
const WORKSHOP_STARTS_IN_MS = 30_000;

const json = async (args: string[]) => {
  const run = await marquee(args, env);
  expect(run, run.stderr).toMatchObject({ code: 0 });
  return JSON.parse(run.stdout);
};
const build = () => json(['build', '--org', nordic.id, '--json']);

let firstBuiltAt: Date;
let workshopStart: Date;
let suspendedAt: Date;
let removedMember: { id: string; fullName: string; index: number };
let snapshots: string[];

beforeAll(async () => {
  home = await migratedHome({ prefix: 'marquee-audit-' });
  env = { MARQUEE_HOME: home };
  workshopStart = new Date(Date.now() + WORKSHOP_STARTS_IN_MS);
  // Seeded and the workshop moved in one opening of the database, in this process (what `db seed` does is cli.test.ts's).
  const { seeded } = await onEmbeddedPlatform(home, async (db) => {
    const result = await seedSample(db, { now: new Date() });
    await db.query('UPDATE events SET starts_at = $2, ends_at = $3, registration_starts_at = NULL, registration_ends_at = NULL WHERE id = $1', [
      workshop.id,
      workshopStart,
      new Date(workshopStart.getTime() + 1000),
    ]);
    return result;
  });
  expect(seeded).toBe(true);
  await build();
  firstBuiltAt = new Date();
  // One team member from the middle of the list leaves.
  const team = (await json(['show', '--org', nordic.id, '--at', firstBuiltAt.toISOString(), '/team'])) as Array<{ id: string; fullName: string }>;
  expect(team.length).toBeGreaterThanOrEqual(3);
  removedMember = { id: team[1]!.id, fullName: team[1]!.fullName, index: 1 };
  await onEmbeddedPlatform(home, (db) => db.query('DELETE FROM team_members WHERE id = $1', [removedMember.id]));
  await build();
  await onEmbeddedPlatform(home, (db) => db.query(`UPDATE organizations SET status = 'suspended' WHERE id = $1`, [nordic.id]));
  await build();
  suspendedAt = new Date();
  await onEmbeddedPlatform(home, (db) => db.query(`UPDATE organizations SET status = 'active' WHERE id = $1`, [nordic.id]));
  await build();
  snapshots = ((await json(['history', '--org', nordic.id, '--json'])) as Array<{ snapshotId: string | null }>).flatMap((e) => (e.snapshotId ? [e.snapshotId] : []));
}, 180_000);
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('auditing through the CLI', () => {
  it('history lists the suspension and the reactivation between the snapshots', async () => {
    const history = await json(['history', '--org', 'nordic-dev', '--json']);
    expect(history).toEqual([
      { state: 'active', snapshotId: null, publishedAt: expect.any(String), trigger: 'manual' },
      { state: 'suspended', snapshotId: null, publishedAt: expect.any(String), trigger: 'manual' },
      { snapshotId: snapshots[0], publishedAt: expect.any(String), trigger: 'manual', resources: expect.any(Number) },
      { snapshotId: snapshots[1], publishedAt: expect.any(String), trigger: 'manual', resources: expect.any(Number) },
    ]);
    const text = (await marquee(['history', '--org', 'nordic-dev'], env)).stdout.split('\n');
    expect(text[0]).toMatch(/^reactivated +\S+Z +manual +the API serves the snapshot published then +\(current\)$/);
    expect(text[1]).toMatch(/^suspended +\S+Z +manual +the API answers 403 ORGANIZATION_SUSPENDED$/);
    expect(text[2]).toMatch(new RegExp(`^${snapshots[0]} .* resources  \\(current\\)$`));
    expect(await marquee(['audit'], env)).toMatchObject({ code: 0 });
  });

  it('diff reports the removal of one team member as one removal, in JSON and in text', async () => {
    const diff = await json(['diff', '--org', nordic.id, snapshots[1]!, snapshots[0]!, '--json']);
    expect(diff).toEqual({ added: [], removed: [], changed: [{ path: '/team', patch: [{ op: 'remove', path: `/${removedMember.index}` }] }] });
    const text = await marquee(['diff', '--org', nordic.id, snapshots[1]!, 'current'], env);
    expect(text.stdout).toMatch(new RegExp(`^/team\\n  - team\\[id=${removedMember.id}\\]: removed \\{fullName ${JSON.stringify(removedMember.fullName)}, .*\\n$`));
  });

  it('show --at answers as the API did then: before the first snapshot, while suspended, and the clock of then', async () => {
    const before = await marquee(['show', '--org', nordic.id, '--at', '2020-01-01T00:00:00Z', '/organization'], env);
    expect(before.code).toBe(1);
    expect(before.stderr).toContain(`organization ${nordic.id} had no snapshot at 2020-01-01T00:00:00.000Z`);
    expect(before.stderr).toContain(`its oldest retained snapshot is ${snapshots[1]}`);

    const suspended = await marquee(['show', '--org', nordic.id, '--at', suspendedAt.toISOString(), '/team'], env);
    expect(suspended.code).toBe(1);
    expect(JSON.parse(suspended.stdout)).toMatchObject({ status: 403, errorCode: 'ORGANIZATION_SUSPENDED', instance: '/api/integration/v1/team' });

    const at = firstBuiltAt.toISOString();
    const teamThen = (await json(['show', '--org', nordic.id, '--at', at, '/team'])) as Array<{ id: string; fullName: string }>;
    expect(teamThen.map((m) => m.id)).toContain(removedMember.id);
    expect(((await json(['show', '--org', nordic.id, '--at', new Date().toISOString(), '/team'])) as Array<{ id: string }>).map((m) => m.id)).not.toContain(removedMember.id);

    expect(await json(['show', '--org', nordic.id, '--at', at, `/events/${workshop.slug}`])).toMatchObject({ id: workshop.id, timing: 'upcoming' });
    const upcomingThen = await json(['show', '--org', nordic.id, '--at', at, '/api/integration/v1/events?timing=upcoming']);
    expect(upcomingThen.items.map((e: { id: string }) => e.id)).toContain(workshop.id);
    // Wait until the workshop is over: now it is past, and it was upcoming then.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, workshopStart.getTime() + 2000 - Date.now())));
    const now = new Date().toISOString();
    expect(await json(['show', '--org', nordic.id, '--at', now, `/events/${workshop.slug}`])).toMatchObject({ id: workshop.id, timing: 'past' });
    const upcomingNow = await json(['show', '--org', nordic.id, '--at', now, '/events?timing=upcoming']);
    expect(upcomingNow.items.map((e: { id: string }) => e.id)).not.toContain(workshop.id);
    expect(await json(['show', '--org', nordic.id, '--at', at, `/events/${workshop.slug}`])).toMatchObject({ timing: 'upcoming' });

    const unknown = await marquee(['show', '--org', nordic.id, '--at', now, '/events/no-such-event'], env);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ status: 404, errorCode: 'EVENT_NOT_FOUND' });
    expect(await marquee(['show', '--org', nordic.id, '--at', '2026-01-01', '/team'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('ISO 8601 instant with a zone'),
    });
  }, 60_000);

  it('gc --dry-run --json reports what would be deleted and deletes nothing', async () => {
    const before = await json(['history', '--org', nordic.id, '--json']);
    const report = await json(['gc', '--keep', '1', '--days', '0', '--grace-minutes', '0', '--dry-run', '--json']);
    expect(report).toMatchObject({ dryRun: true, interruptedWritesDeleted: null, stateRecordsDeleted: 1 });
    const ours = report.deleted.find((o: { organizationId: string }) => o.organizationId === nordic.id);
    expect(ours).toMatchObject({ snapshots: [snapshots[1]], stateRecords: [expect.stringMatching(/-suspended\.json$/)] });
    expect(await json(['history', '--org', nordic.id, '--json'])).toEqual(before);
    // The same without --dry-run deletes exactly that; the default keeps everything younger than 90 days.
    expect(await json(['gc', '--json'])).toMatchObject({ dryRun: false, manifestsDeleted: 0, stateRecordsDeleted: 0 });
    const done = await json(['gc', '--keep', '1', '--days', '0', '--grace-minutes', '0', '--json']);
    expect(done.deleted.find((o: { organizationId: string }) => o.organizationId === nordic.id)).toEqual(ours);
    expect((await json(['history', '--org', nordic.id, '--json'])).map((e: { snapshotId: string | null }) => e.snapshotId)).toEqual([null, snapshots[0]]);
    expect(await marquee(['audit'], env)).toMatchObject({ code: 0 });
  });
});
