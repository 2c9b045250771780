// The promises of WorkList (builder/runs/work-list.ts), as one suite every implementation runs:
// the in-process list and the platform database's. Builders are names; on PostgreSQL each is also a
// pool of connections of its own (`view`), as each builder process has. What an implementation must do:
//
// - an opened run is listed as unfinished for every builder, with what it was opened with; a run
//   of no organization is finished at once and not listed;
// - each organization is taken by one builder, among builders asking at once, and carries what it
//   was opened with (its status, source version, whether it is verified);
// - a result recorded counts once: a second result for the same organization is dropped; the run
//   is finished, and no longer listed, when every organization has its result;
// - progress gives the results from an index on, in the order recorded, with who built each;
// - a claim its builder keeps is never taken over; one it stops keeping (a builder that died) is
//   taken over by another builder after the claim timeout, with its organization;
// - the organizations unfinished runs have no result for yet are known to every builder;
// - a run the list does not know has no progress and nothing to take.
//
// Takeover takes a claim timeout of real time, so the harness's is short (about half a second).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Target } from '../../builder/build.ts';
import type { OpenedRun, RunResult, WorkList } from '../../builder/runs/work-list.ts';
import { type ContractHooks, useHarness } from './harness.ts';

export interface WorkListHarness {
  /** The list as one builder process opens it. */
  list: WorkList;
  /** The same list as another builder process opens it (closed by the teardown). */
  view(): WorkList;
  claimTimeoutMs: number;
}

function organizations(count: number): Target[] {
  return Array.from({ length: count }, (_, index) => ({
    id: randomUUID(),
    slug: `org-${index}`,
    status: 'active' as const,
    sourceVersion: String(100 + index),
    ...(index % 2 === 1 ? { verify: true } : {}),
  }));
}

function opened(total: number, overrides: Partial<OpenedRun> = {}): OpenedRun {
  return {
    id: randomUUID(),
    trigger: 'schedule',
    scope: 'changed',
    openedBy: 'builder-a',
    queuedAt: '2026-11-25T10:00:00.000Z',
    startedAt: '2026-11-25T10:00:01.000Z',
    total,
    skipped: 7,
    ...overrides,
  };
}

function resultOf(organization: Target, builder: string, outcome: RunResult['result'] = 'published'): RunResult {
  return { id: organization.id, slug: organization.slug, result: outcome, builder, ...(organization.verify ? { verified: true as const } : {}) };
}

/** Takes every organization of the run as `builder`, one call at a time, until none is left. */
async function takeAll(list: WorkList, runId: string, builder: string, count = 3) {
  const taken = [];
  for (;;) {
    const claims = await list.take(runId, builder, count);
    if (claims.length === 0) return taken;
    taken.push(...claims);
  }
}

export function workListContract<H extends WorkListHarness>(name: string, hooks: ContractHooks<H>): void {
  describe(`WorkList contract: ${name}`, () => {
    const harness = useHarness(hooks);
    const list = () => harness().list;

    it('lists an opened run for every builder, gives each organization to one builder with what it was opened with, and finishes the run once each has a result', async () => {
      const other = harness().view();
      const run = opened(10);
      const targets = organizations(10);
      await list().open(run, targets);
      expect((await other.unfinished()).find((listed) => listed.id === run.id)).toEqual(run);

      // One share each, one after the other, so that each builder has some to complete (taking at
      // once, one builder may take them all before the other's first take: the next tests race them).
      const mine = await list().take(run.id, 'builder-a', 4);
      const theirs = await takeAll(other, run.id, 'builder-b');
      expect([mine.length, theirs.length]).toEqual([4, 6]);
      const taken = [...mine, ...theirs];
      expect(taken.map((claim) => claim.organization).sort((a, b) => a.slug.localeCompare(b.slug))).toEqual([...targets].sort((a, b) => a.slug.localeCompare(b.slug)));
      expect(new Set(taken.map((claim) => claim.entry)).size).toBe(10);

      for (const claim of mine) await list().complete(run.id, claim.entry, resultOf(claim.organization, 'builder-a'));
      const halfway = await other.progress(run.id);
      expect(halfway).toMatchObject({ run, done: mine.length, finishedAt: null });
      expect((await list().unfinished()).map((listed) => listed.id)).toContain(run.id);
      for (const claim of theirs) await other.complete(run.id, claim.entry, resultOf(claim.organization, 'builder-b'));

      const done = (await list().progress(run.id))!;
      expect(done.done).toBe(10);
      expect(done.finishedAt).toEqual(expect.any(String));
      expect(done.results).toEqual([...mine.map((c) => resultOf(c.organization, 'builder-a')), ...theirs.map((c) => resultOf(c.organization, 'builder-b'))]);
      expect((await other.unfinished()).map((listed) => listed.id)).not.toContain(run.id);
      expect(await list().take(run.id, 'builder-a', 5)).toEqual([]);
    });

    it('gives each organization exactly once when many builders take at once', async () => {
      const run = opened(40);
      await list().open(run, organizations(40));
      const views = [list(), harness().view(), harness().view()];
      const taken = await Promise.all(views.map((view, index) => takeAll(view, run.id, `builder-${index}`, 1)));
      const ids = taken.flat().map((claim) => claim.organization.id);
      expect(ids).toHaveLength(40);
      expect(new Set(ids).size).toBe(40);
    });

    it('claims no more organizations than it is asked for, however many builders ask at once', async () => {
      // A builder builds what take returns and keeps only those claims fresh: one claimed beyond
      // the count would wait for the claim timeout before anyone built it.
      const run = opened(300);
      await list().open(run, organizations(300));
      const views = [list(), harness().view(), harness().view(), harness().view()];
      const rounds = await Promise.all(
        views.flatMap((view, index) => [1, 1, 2].map((count) => view.take(run.id, `builder-${index}`, count).then((claims) => ({ count, claims })))),
      );
      for (const { count, claims } of rounds) expect(claims.length).toBe(count);
      const rest = await takeAll(harness().view(), run.id, 'builder-late', 50);
      expect(rest).toHaveLength(300 - 16);
    });

    it('counts the first result of an organization: a second one is dropped', async () => {
      const run = opened(2);
      const targets = organizations(2);
      await list().open(run, targets);
      const [first, second] = await takeAll(list(), run.id, 'builder-a');
      await list().complete(run.id, first!.entry, resultOf(first!.organization, 'builder-a'));
      await harness()
        .view()
        .complete(run.id, first!.entry, resultOf(first!.organization, 'builder-b', 'unchanged'));
      expect(await list().progress(run.id)).toMatchObject({ done: 1, finishedAt: null, results: [resultOf(first!.organization, 'builder-a')] });
      await list().complete(run.id, second!.entry, resultOf(second!.organization, 'builder-a', 'failed'));
      const progress = (await list().progress(run.id, 1))!;
      expect(progress).toMatchObject({ done: 2, results: [resultOf(second!.organization, 'builder-a', 'failed')] });
      expect(progress.finishedAt).not.toBeNull();
    });

    it('finishes a run of no organization at once, and lists it nowhere', async () => {
      const run = opened(0);
      await list().open(run, []);
      expect((await list().progress(run.id))?.finishedAt).toEqual(expect.any(String));
      expect((await harness().view().unfinished()).map((listed) => listed.id)).not.toContain(run.id);
      expect(await list().take(run.id, 'builder-a', 1)).toEqual([]);
    });

    it('takes over the claims of a builder that stopped keeping them, and never those of one that keeps them', async () => {
      const { claimTimeoutMs } = harness();
      const other = harness().view();
      const run = opened(3);
      await list().open(run, organizations(3));
      const kept = await list().take(run.id, 'builder-a', 1);
      const abandoned = await list().take(run.id, 'builder-dead', 1);
      const until = performance.now() + 2 * claimTimeoutMs;
      const takenOver = [];
      while (performance.now() < until) {
        await list().keep(run.id, 'builder-a', [kept[0]!.entry]);
        await other.keep(
          run.id,
          'builder-b',
          takenOver.map((claim) => claim.entry),
        );
        takenOver.push(...(await other.take(run.id, 'builder-b', 5)));
        await sleep(claimTimeoutMs / 5);
      }
      // builder-b took the one nobody had at once, and the dead builder's once its claim went stale.
      expect(takenOver).toHaveLength(2);
      expect(takenOver.map((claim) => claim.organization.id)).toContain(abandoned[0]!.organization.id);
      expect(takenOver.map((claim) => claim.organization.id)).not.toContain(kept[0]!.organization.id);
      const stolen = takenOver.find((claim) => claim.organization.id === abandoned[0]!.organization.id)!;
      expect(stolen.organization).toEqual(abandoned[0]!.organization);
      await other.complete(run.id, stolen.entry, resultOf(stolen.organization, 'builder-b'));
      expect((await list().progress(run.id))?.results).toEqual([resultOf(stolen.organization, 'builder-b')]);
    });

    it('says which organizations unfinished runs still have to build: those waiting or taken, not those with a result, none of a finished run', async () => {
      const other = harness().view();
      const run = opened(3);
      const targets = organizations(3);
      await list().open(run, targets);
      const [first] = await list().take(run.id, 'builder-a', 1);
      const waiting = await other.waiting();
      for (const target of targets) expect(waiting.has(target.id)).toBe(true);
      await list().complete(run.id, first!.entry, resultOf(first!.organization, 'builder-a'));
      expect((await other.waiting()).has(first!.organization.id)).toBe(false);
      for (const claim of await takeAll(list(), run.id, 'builder-a')) await list().complete(run.id, claim.entry, resultOf(claim.organization, 'builder-a'));
      const after = await other.waiting();
      for (const target of targets) expect(after.has(target.id)).toBe(false);
    });

    it('knows nothing of a run never opened', async () => {
      const runId = randomUUID();
      expect(await list().progress(runId)).toBeUndefined();
      expect(await list().take(runId, 'builder-a', 1)).toEqual([]);
    });
  });
}
