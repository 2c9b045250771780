// The runner of a builder process (builder/runs/): what its builds log, how change builds are
// debounced, coalesced and kept apart from full builds, and what it does after a failure.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { BuildRunner } from '../../../../builder/runs/runner.ts';
import { InProcessWorkList } from '../../../../builder/runs/work-list.ts';
import { readPointer } from '../../../../snapshot/reader.ts';
import { StoreUnavailableError } from '../../../../snapshot/store.ts';
import { MemoryStore } from '../../../../snapshot/stores/memory.ts';
import { setup } from '../../../support/memory-platform.ts';
import { PlatformFixture } from '../../../support/platform-fixture.ts';
import { RecordingLog } from '../../../support/recording-log.ts';

describe('BuildRunner', () => {
  it('logs what a build changed and why an organization failed, with fields to filter on', async () => {
    const { fixture, source, context, orgId } = setup();
    const log = new RecordingLog();
    const runner = new BuildRunner(context, { log });
    const [published] = await runner.build('manual');
    await runner.build('schedule'); // unchanged: nothing to say of the organization
    fixture.teamMembers[0]!.sortOrder = 2 ** 31;
    source.data.set(orgId, fixture.data());
    await runner.build('change', [orgId]);
    await runner.stop();
    expect(log.lines).toEqual([
      {
        level: 'info',
        message: `acme: published ${published!.snapshotId}`,
        fields: expect.objectContaining({ trigger: 'manual', organizationId: orgId, slug: 'acme', result: 'published' }),
      },
      // A run over the fleet ends with one line saying what came of it.
      {
        level: 'info',
        message: expect.stringMatching(/^manual run over 1 organization in \d+\.\d s: 1 built \(1 published\)$/),
        fields: expect.objectContaining({ trigger: 'manual', organizations: 1, published: 1, unchanged: 0, failed: 0 }),
      },
      {
        level: 'info',
        message: expect.stringMatching(/^schedule run over 1 organization in \d+\.\d s: 1 built \(1 unchanged\)$/),
        fields: expect.objectContaining({ trigger: 'schedule', organizations: 1, published: 0, unchanged: 1 }),
      },
      {
        level: 'warn',
        message: `acme: build failed: organization ${orgId}: resource /team fails schema team: /0/sortOrder must be <= 2147483647`,
        fields: { trigger: 'change', organizationId: orgId, slug: 'acme', stage: 'validate', resource: '/team' },
      },
    ]);
  });

  it('logs a change build that could not run at all as an error, with the error itself', async () => {
    const { source, context, orgId } = setup();
    const log = new RecordingLog();
    const runner = new BuildRunner(context, { log, debounceMs: 1 });
    const down = new Error('connection terminated');
    source.listOrganizations = async () => {
      throw down;
    };
    runner.organizationChanged(orgId);
    await expect.poll(() => log.lines).toEqual([{ level: 'error', message: 'change build failed', fields: { trigger: 'change', err: down } }]);
    await runner.stop();
  });

  it('coalesces a burst of changes made while the organization builds into one more build after it', async () => {
    const { source, context, orgId } = setup();
    const runner = new BuildRunner(context, { log: new RecordingLog(), debounceMs: 1 });
    const firstRead = gate();
    const readsOf: string[] = [];
    source.onRead = (id) => {
      readsOf.push(id);
      return readsOf.length === 1 ? firstRead.wait : undefined;
    };
    runner.organizationChanged(orgId);
    await expect.poll(() => source.reads).toBe(1);
    // Each change after the quiet period of the one before: debouncing alone would build each.
    for (let change = 0; change < 5; change++) {
      runner.organizationChanged(orgId);
      await sleep(20);
    }
    expect(source.lists).toBe(1);
    firstRead.open();
    await expect.poll(() => source.reads).toBe(2);
    // Nothing else is due once the second build has ended. A change of another organization after
    // that is built after a quiet period begun later than a third build's would have: its read
    // comes after that build's.
    await expect.poll(() => runner.runs.list().filter((run) => run.trigger === 'change' && run.state === 'finished').length).toBe(2);
    const other = new PlatformFixture({ id: 'ffffffff-ffff-4fff-8fff-fffffffffff1', slug: 'other' });
    source.data.set(other.organization.id, other.data());
    runner.organizationChanged(other.organization.id);
    await expect.poll(() => readsOf).toEqual([orgId, orgId, other.organization.id]);
    expect(source.lists).toBe(3);
    await runner.stop();
  });

  it('builds a changed organization beside a full build that is busy with another', async () => {
    const { source, context, orgId } = setup();
    const other = new PlatformFixture({ id: 'ffffffff-ffff-4fff-8fff-fffffffffff0', slug: 'other' });
    source.data.set(other.organization.id, other.data());
    const runner = new BuildRunner({ ...context, concurrency: 1 }, { log: new RecordingLog(), debounceMs: 1 });
    const fullBuildRead = gate();
    const readsOf: string[] = [];
    source.onRead = (id) => {
      readsOf.push(id);
      return id === orgId && readsOf.length === 1 ? fullBuildRead.wait : undefined;
    };
    const full = runner.build('schedule');
    await expect.poll(() => readsOf).toEqual([orgId]);
    runner.organizationChanged(other.organization.id);
    await expect.poll(() => readsOf).toEqual([orgId, other.organization.id]);
    fullBuildRead.open();
    // The change build published the other organization first; the full build found it unchanged.
    expect((await full).map((r) => r.result)).toEqual(['published', 'unchanged']);
    await runner.stop();
  });

  it('catches up after missed notifications with one run, triggered by change', async () => {
    const { fixture, source, context, orgId } = setup();
    const log = new RecordingLog();
    const runner = new BuildRunner(context, { log });
    const reads = [gate(), gate()];
    source.onRead = () => reads[source.reads - 1]?.wait;
    const first = runner.build('start');
    await expect.poll(() => source.reads).toBe(1);
    // Reconnected three times while the first build runs: one full build after it covers them all.
    runner.catchUp();
    runner.catchUp();
    runner.catchUp();
    reads[0]!.open();
    await first;
    await expect.poll(() => source.reads).toBe(2);
    fixture.teamMembers[0]!.fullName = 'Grace Hopper';
    source.data.set(orgId, fixture.data());
    reads[1]!.open();
    await runner.stop();
    expect(source.reads).toBe(2);
    expect(log.lines.filter((line) => line.fields.trigger === 'change')).toEqual([
      ...Array.from({ length: 3 }, () => ({
        level: 'info',
        message: 'listening for platform changes again: building the organizations changed while not listening',
        fields: { trigger: 'change' },
      })),
      { level: 'info', message: expect.stringMatching(/^acme: published /), fields: expect.objectContaining({ trigger: 'change', organizationId: orgId }) },
      { level: 'info', message: expect.stringMatching(/^change run over 1 organization in .*: 1 built \(1 published\)$/), fields: expect.objectContaining({ trigger: 'change' }) },
    ]);
  });
});

describe('BuildRunner after a failure', () => {
  it('builds an organization again after a failure to reach a backend, until it succeeds, with nobody asking', async () => {
    vi.useFakeTimers();
    try {
      // The JSON alone: fake timers advance without waiting for compressions on the thread pool.
      const { source, context, orgId } = setup();
      const runner = new BuildRunner({ ...context, codings: [] }, { log: new RecordingLog(), debounceMs: 1 });
      source.failing.add(orgId);
      expect((await runner.build('manual')).map((r) => r.result)).toEqual(['failed']);
      // The first retry 1 s after the failure (plus the quiet period), the next 2 s after that one.
      await vi.advanceTimersByTimeAsync(1_100);
      expect(source.reads).toBe(2);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(source.reads).toBe(2);
      source.failing.delete(orgId);
      await vi.advanceTimersByTimeAsync(1_100);
      expect(source.reads).toBe(3);
      expect((await readPointer(context.store, orgId))?.state).toBe('active');
      // Published: no more attempts.
      await vi.advanceTimersByTimeAsync(120_000);
      expect(source.reads).toBe(3);
      await runner.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops a full build once 8 organizations in a row fail for want of the store, and builds the rest once it answers, after one probe', async () => {
    vi.useFakeTimers();
    try {
      const { source, context } = setup();
      source.data.clear();
      for (let n = 0; n < 40; n++) {
        const organization = new PlatformFixture({ id: `00000000-0000-4000-8000-${String(n + 1).padStart(12, '0')}`, slug: `org-${n}` });
        source.data.set(organization.organization.id, organization.data());
      }
      const writes = { attempted: 0 };
      const store = new (class extends MemoryStore {
        down = false;
        override async put(key: string, bytes: Uint8Array): Promise<void> {
          writes.attempted++;
          if (this.down) throw new StoreUnavailableError('store unreachable');
          return super.put(key, bytes);
        }
      })();
      store.down = true;
      const runner = new BuildRunner({ ...context, store }, { log: new RecordingLog(), debounceMs: 1 });
      const results = await runner.build('schedule');
      expect(results.every((result) => result.result === 'failed')).toBe(true);
      const notBuilt = results.filter((result) => result.error?.includes('not built, since the last 8 organizations built failed for want of a backend'));
      // Four at once: the eight that failed in a row, and those already started beside the last of them.
      expect(results.length - notBuilt.length).toBeLessThanOrEqual(8 + 3);
      expect(notBuilt[0]?.error).toContain('the last with: organization ');
      const readsWhileDown = source.reads;

      // One probe a second later, which fails; the next after 2 s more.
      await vi.advanceTimersByTimeAsync(1_100);
      expect(source.reads).toBe(readsWhileDown + 1);
      await vi.advanceTimersByTimeAsync(1_500);
      expect(source.reads).toBe(readsWhileDown + 1);
      store.down = false;
      // The next probe gets through, and then every organization is built, with nobody asking:
      // the failed probe, the one that succeeded and the 39 others.
      await vi.advanceTimersByTimeAsync(1_000);
      expect(source.reads).toBe(readsWhileDown + 1 + 1 + 39);
      for (const id of source.data.keys()) expect((await readPointer(store, id))?.state).toBe('active');
      await vi.advanceTimersByTimeAsync(120_000);
      expect(source.reads).toBe(readsWhileDown + 41);
      await runner.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('runs a catch-up full build again when it could not list the organizations, until it can', async () => {
    vi.useFakeTimers();
    try {
      // The JSON alone: fake timers advance without waiting for compressions on the thread pool.
      const { source, context, orgId } = setup();
      const runner = new BuildRunner({ ...context, codings: [] }, { log: new RecordingLog() });
      source.listingFails = true;
      runner.catchUp();
      await vi.advanceTimersByTimeAsync(10);
      expect(source.lists).toBe(1);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(source.lists).toBe(2);
      source.listingFails = false;
      await vi.advanceTimersByTimeAsync(2_000);
      expect(source.lists).toBe(3);
      expect((await readPointer(context.store, orgId))?.state).toBe('active');
      await vi.advanceTimersByTimeAsync(120_000);
      expect(source.lists).toBe(3);
      await runner.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not build again a resource that fails its schema: the same rows would fail the same way', async () => {
    vi.useFakeTimers();
    try {
      const { fixture, source, context, orgId } = setup();
      fixture.teamMembers[0]!.sortOrder = 2 ** 31; // not an int32: fails the team schema
      source.data.set(orgId, fixture.data());
      const runner = new BuildRunner(context, { log: new RecordingLog(), debounceMs: 1 });
      expect((await runner.build('manual')).map((r) => r.error)).toEqual([expect.stringContaining('fails schema')]);
      await vi.advanceTimersByTimeAsync(120_000);
      expect(source.reads).toBe(1);
      await runner.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

/** A promise a test opens when it chooses: `wait` resolves once `open` is called. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

describe('BuildRunner sharing a run with other builders', () => {
  it('divides a run between two runners on one work list: each organization built once, the run recorded by both under one id', async () => {
    const { source, context } = setup();
    for (let index = 0; index < 11; index++) {
      const fixture = new PlatformFixture({ id: randomUUID(), slug: `org-${index}` });
      source.data.set(fixture.organization.id, fixture.data());
    }
    // Each read takes a moment, so the second runner finds the run with most of it left to take.
    source.onRead = () => sleep(25);
    const workList = new InProcessWorkList();
    const options = { workList, pollMs: 20, claimTimeoutMs: 1_000 };
    const first = new BuildRunner(context, { log: new RecordingLog(), builder: 'builder-a', ...options });
    const second = new BuildRunner(context, { log: new RecordingLog(), builder: 'builder-b', ...options });
    const { run, results } = first.queue('manual');
    const built = await results;
    expect(source.reads).toBe(12);
    expect(built.map((result) => result.id).sort()).toEqual([...source.data.keys()].sort());
    expect(new Set(built.map((result) => result.builder))).toEqual(new Set(['builder-a', 'builder-b']));
    await expect.poll(() => second.runs.get(run.id)?.state).toBe('finished');
    const seen = [first.runs.get(run.id)!, second.runs.get(run.id)!];
    for (const record of seen) expect(record).toMatchObject({ id: run.id, trigger: 'manual', scope: 'every', state: 'finished', done: 12, total: 12 });
    expect(seen[1]!.organizations).toEqual(seen[0]!.organizations);
    await Promise.all([first.stop(), second.stop()]);
  });

  it('leaves out of a run of changed organizations those another unfinished run has yet to build: builders starting together build each once', async () => {
    const { source, context } = setup();
    for (let index = 0; index < 11; index++) {
      const fixture = new PlatformFixture({ id: randomUUID(), slug: `org-${index}` });
      source.data.set(fixture.organization.id, fixture.data());
    }
    // No organization is built until the second builder has listed its run.
    const listed = gate();
    source.onRead = () => listed.wait;
    const workList = new InProcessWorkList();
    const options = { workList, pollMs: 20, claimTimeoutMs: 1_000 };
    const first = new BuildRunner(context, { log: new RecordingLog(), builder: 'builder-a', ...options });
    const second = new BuildRunner(context, { log: new RecordingLog(), builder: 'builder-b', ...options });
    const firstRun = first.buildChanged('start');
    await expect.poll(() => first.runs.list()[0]?.total).toBe(12);
    // Listed while the first run has every organization still to build: it lists none, and helps with the first.
    expect(await second.buildChanged('start')).toEqual([]);
    listed.open();
    expect(second.runs.list().find((run) => run.trigger === 'start' && run.state === 'finished' && run.total === 0)).toMatchObject({ skipped: 12 });
    expect(await firstRun).toHaveLength(12);
    expect(source.reads).toBe(12);
    await Promise.all([first.stop(), second.stop()]);
  });

  it('fails a run its work list no longer knows, saying how many have no result, and opens a run for them at once', async () => {
    const { source, context } = setup();
    for (let index = 0; index < 5; index++) {
      const fixture = new PlatformFixture({ id: randomUUID(), slug: `org-${index}` });
      source.data.set(fixture.organization.id, fixture.data());
    }
    source.onRead = () => sleep(10);
    // A list that forgets the first run once two of its organizations are done, as a lost database table would.
    const workList = new InProcessWorkList();
    let lostRun: string | undefined;
    const forgetting = Object.assign(Object.create(workList) as InProcessWorkList, {
      progress: async (runId: string, from?: number) => {
        const progress = await workList.progress(runId, from);
        if (lostRun === undefined && progress && progress.done >= 2) lostRun = runId;
        return runId === lostRun ? undefined : progress;
      },
      take: async (runId: string, builder: string, count: number) => (runId === lostRun ? [] : workList.take(runId, builder, count)),
    });
    const log = new RecordingLog();
    const runner = new BuildRunner(context, { log, workList: forgetting, pollMs: 20 });
    const { run } = runner.queue('manual');
    await expect.poll(() => runner.runs.get(run.id)?.state).toBe('failed');
    const failed = runner.runs.get(run.id)!;
    expect(failed.error).toMatch(/^its work list no longer knows it; \d of 6 organizations have no result$/);
    expect(log.lines).toContainEqual(
      expect.objectContaining({ level: 'error', message: expect.stringContaining(`manual run ${run.id} failed: its work list no longer knows it`) }),
    );
    // The run opened in its place builds what is left, and finishes with every one it listed.
    await expect.poll(() => runner.runs.list().find((other) => other.trigger === 'change')?.state, { timeout: 5_000 }).toBe('finished');
    const replacement = runner.runs.list().find((other) => other.trigger === 'change')!;
    expect(replacement.done).toBe(replacement.total);
    await runner.stop();
  });
});
