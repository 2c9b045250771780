import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { buildOrganizations, type BuildContext } from '../../../builder/build.ts';
import { InProcessBuildLocks } from '../../../builder/build-locks.ts';
import { BuildError } from '../../../builder/errors.ts';
import { publishSnapshot } from '../../../builder/publish.ts';
import { BuildRunner } from '../../../builder/runs/runner.ts';
import { validateResources } from '../../../builder/validate.ts';
import type { OrganizationData, PlatformSource } from '../../../builder/platform/rows.ts';
import { InProcessChannel } from '../../../snapshot/notifications.ts';
import { resourcePath } from '../../../snapshot/layout.ts';
import { readPointer } from '../../../snapshot/reader.ts';
import { SchemaSet } from '../../../snapshot/schemas.ts';
import { StoreUnavailableError } from '../../../snapshot/store.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { readWholeSnapshot } from '../../support/snapshot-integrity.ts';

/** A platform held in memory: each organization's data can be replaced between builds. */
class MemorySource implements PlatformSource {
  readonly data = new Map<string, OrganizationData>();
  failing = new Set<string>();
  /** Called at every read, before it returns: a test sees (and may change) the moment of each read. */
  onRead: (id: string) => void | Promise<void> = () => {};
  reads = 0;
  lists = 0;
  /** The organizations cannot be listed: the database is gone. */
  listingFails = false;
  async listOrganizations() {
    this.lists++;
    if (this.listingFails) throw new Error('connection terminated unexpectedly');
    return [...this.data.values()].map((d) => ({ id: d.organization.id, slug: d.organization.slug, status: d.organization.status })).sort((a, b) => (a.id < b.id ? -1 : 1));
  }
  async readOrganization(id: string) {
    this.reads++;
    await this.onRead(id);
    if (this.failing.has(id)) throw new Error('connection reset by peer');
    return this.data.get(id);
  }
  async close() {}
}

const schemas = new SchemaSet();

function setup() {
  const fixture = new PlatformFixture();
  const event = fixture.event({ name: 'Summit', slug: 'summit' });
  const session = fixture.session(event, { name: 'Keynote' });
  fixture.bill(session, fixture.speaker({ name: 'Ada' }));
  fixture.teamMember({ fullName: 'Grace' });
  const source = new MemorySource();
  source.data.set(fixture.organization.id, fixture.data());
  const store = new MemoryStore();
  const channel = new InProcessChannel();
  const announced: string[] = [];
  channel.subscribe((id) => announced.push(id));
  const context: BuildContext = {
    source,
    store,
    schemas,
    channel,
    publicBaseUrl: 'https://events.example.com',
    builderVersion: 'test',
    now: () => new Date('2026-11-21T10:00:00Z'),
  };
  return { fixture, source, store, context, announced, orgId: fixture.organization.id };
}

describe('buildOrganizations', () => {
  it('publishes every resource of an organization, then writes nothing when nothing changed', async () => {
    const { store, context, announced, orgId } = setup();
    const [first] = await buildOrganizations(context, { trigger: 'manual' });
    expect(first).toMatchObject({ id: orgId, slug: 'acme', result: 'published' });
    const snapshot = await readWholeSnapshot(store, orgId);
    expect(Object.keys(snapshot.resources)).toHaveLength(9); // 5 organization-wide + 4 for the one event
    expect(announced).toEqual([orgId]);

    const entries = store.entries.size;
    const [second] = await buildOrganizations(context, { trigger: 'schedule' });
    expect(second).toMatchObject({ result: 'unchanged', snapshotId: first!.snapshotId, objectsWritten: 0 });
    expect(store.entries.size).toBe(entries);
    expect(announced).toEqual([orgId]); // nothing to announce
  });

  it('keeps the previous snapshot when a resource fails its schema, naming organization, resource and reason', async () => {
    const { fixture, source, store, context, orgId } = setup();
    await buildOrganizations(context, { trigger: 'manual' });
    const before = await readWholeSnapshot(store, orgId);
    fixture.teamMembers[0]!.sortOrder = 2 ** 31; // not an int32 (docs/api.md §2 TeamMember.sortOrder)
    source.data.set(orgId, fixture.data());
    const [result] = await buildOrganizations(context, { trigger: 'manual' });
    expect(result!.result).toBe('failed');
    expect(result!.error).toBe(`organization ${orgId}: resource /team fails schema team: /0/sortOrder must be <= 2147483647`);
    expect(result!.failure).toEqual({ stage: 'validate', resource: '/team', backend: false });
    expect(await readWholeSnapshot(store, orgId)).toEqual(before);
  });

  it('reports a projection failure with the event, and a read failure with its cause', async () => {
    const { fixture, source, context, orgId } = setup();
    fixture.events[0]!.timeZone = 'Mars/Olympus_Mons';
    source.data.set(orgId, fixture.data());
    const [projected] = await buildOrganizations(context, { trigger: 'manual' });
    expect(projected!.result).toBe('failed');
    expect(projected!.error).toContain('Mars/Olympus_Mons');

    expect(projected!.failure).toEqual({ stage: 'project', resource: `/events/${fixture.events[0]!.id}`, backend: false });

    source.failing.add(orgId);
    const [read] = await buildOrganizations(context, { trigger: 'manual' });
    expect(read).toMatchObject({ result: 'failed', error: `organization ${orgId}: read failed: connection reset by peer`, failure: { stage: 'read', backend: true } });
  });

  it('reports a store failure with every cause below it', async () => {
    const { context, orgId } = setup();
    const disk = Object.assign(new Error("EACCES: permission denied, open 'orgs/x'"), { code: 'EACCES' });
    const store = new (class extends MemoryStore {
      override async put(): Promise<void> {
        throw new Error('write refused', { cause: disk });
      }
    })();
    const [result] = await buildOrganizations({ ...context, store }, { trigger: 'manual' });
    expect(result).toMatchObject({
      result: 'failed',
      error: `organization ${orgId}: publish failed: write refused: EACCES: permission denied, open 'orgs/x'`,
      failure: { stage: 'publish' },
    });
  });

  it('publishes a suspended organization as a pointer in that state and no content', async () => {
    const { fixture, source, store, context, orgId } = setup();
    await buildOrganizations(context, { trigger: 'manual' });
    source.data.set(orgId, { ...fixture.data(), organization: { ...fixture.organization, status: 'suspended' } });
    const [result] = await buildOrganizations(context, { trigger: 'manual' });
    expect(result).toMatchObject({ result: 'suspended' });
    expect(await readPointer(store, orgId)).toMatchObject({ state: 'suspended', snapshotId: null });
  });

  it('builds only the organizations asked for and reports progress', async () => {
    const { source, context, orgId } = setup();
    const other = new PlatformFixture({ id: '11111111-1111-4111-8111-111111111111', slug: 'other' });
    source.data.set(other.organization.id, other.data());
    const progress: string[] = [];
    const results = await buildOrganizations(context, {
      trigger: 'manual',
      organizationIds: [orgId],
      onListed: (total) => progress.push(`listed ${total}`),
      onProgress: (done, total) => progress.push(`${done}/${total}`),
    });
    expect(results.map((r) => r.id)).toEqual([orgId]);
    expect(progress).toEqual(['listed 1', '1/1']);
    progress.length = 0;
    await buildOrganizations(context, { trigger: 'manual', onListed: (total) => progress.push(`listed ${total}`), onProgress: (done, total) => progress.push(`${done}/${total}`) });
    expect(progress).toEqual(['listed 2', '1/2', '2/2']);
  });
});

describe('buildOrganizations with build locks', () => {
  const timing = { ttlMs: 5_000, renewEveryMs: 1_000 };

  it("holds the organization's lock from the read to the pointer write, and releases it afterwards", async () => {
    const { source, context, orgId } = setup();
    const locks = new InProcessBuildLocks(timing);
    const otherBuilder = locks.sibling();
    const heldAt: string[] = [];
    const whileBuilding = async (moment: string) => {
      const lease = await otherBuilder.acquire(orgId);
      heldAt.push(`${moment}: ${lease ? 'free' : 'held'}`);
      await lease?.release();
    };
    source.onRead = () => whileBuilding('read');
    const watched = new (class extends MemoryStore {
      override async putIfVersion(key: string, bytes: Uint8Array, expected: string | null) {
        await whileBuilding('pointer');
        return super.putIfVersion(key, bytes, expected);
      }
    })();
    const [result] = await buildOrganizations({ ...context, store: watched, locks }, { trigger: 'manual' });
    expect(result!.result).toBe('published');
    expect(heldAt).toEqual(['read: held', 'pointer: held']);
    expect(await otherBuilder.acquire(orgId)).toBeDefined();
  });

  it('waits while another builder holds the lock, then builds from a read made after it was released', async () => {
    const { source, context, orgId } = setup();
    const locks = new InProcessBuildLocks(timing);
    const otherBuilder = locks.sibling();
    const events: string[] = [];
    let asked = 0;
    const counting = {
      acquire: (id: string) => {
        asked++;
        return locks.acquire(id);
      },
      close: () => locks.close(),
    };
    source.onRead = () => void events.push('read');
    const held = (await otherBuilder.acquire(orgId))!;
    const building = buildOrganizations({ ...context, locks: counting }, { trigger: 'change' });
    await expect.poll(() => asked).toBeGreaterThan(1);
    events.push('released');
    await held.release();
    const [result] = await building;
    expect(result!.result).toBe('published');
    expect(events).toEqual(['released', 'read']);
  });

  it('fails the organization unread when another builder holds its lock for longer than the wait', async () => {
    const { source, store, context, orgId } = setup();
    const locks = new InProcessBuildLocks(timing);
    await locks.sibling().acquire(orgId);
    const [result] = await buildOrganizations({ ...context, locks, lockWaitMs: 300 }, { trigger: 'change' });
    expect(result).toMatchObject({
      result: 'failed',
      error: `organization ${orgId}: another builder held its build lock for more than 0.3 s`,
      failure: { stage: undefined },
    });
    expect(source.reads).toBe(0);
    expect(store.entries.size).toBe(0);
  });

  it('fails the organization unread when the locks cannot be reached, with the reason', async () => {
    const { source, context, orgId } = setup();
    const unreachable = {
      acquire: () => Promise.reject(new Error('Redis 127.0.0.1:6379 did not answer within 2000 ms')),
      close: async () => {},
    };
    const [result] = await buildOrganizations({ ...context, locks: unreachable }, { trigger: 'change' });
    expect(result).toMatchObject({
      result: 'failed',
      error: `organization ${orgId}: its build lock could not be taken: Redis 127.0.0.1:6379 did not answer within 2000 ms`,
    });
    expect(source.reads).toBe(0);
  });

  it('releases the lock when the build fails', async () => {
    const { fixture, source, context, orgId } = setup();
    const locks = new InProcessBuildLocks(timing);
    fixture.teamMembers[0]!.sortOrder = 2 ** 31;
    source.data.set(orgId, fixture.data());
    const [result] = await buildOrganizations({ ...context, locks }, { trigger: 'manual' });
    expect(result!.failure).toEqual({ stage: 'validate', resource: '/team', backend: false });
    expect(await locks.sibling().acquire(orgId)).toBeDefined();
  });

  it('publishes the state the read finds when the organization was suspended after it was listed', async () => {
    const { fixture, source, store, context, orgId } = setup();
    await buildOrganizations(context, { trigger: 'manual' });
    source.onRead = (id) => void source.data.set(id, { ...fixture.data(), organization: { ...fixture.organization, status: 'suspended' } });
    const [result] = await buildOrganizations(context, { trigger: 'change' });
    expect(result).toMatchObject({ result: 'suspended' });
    expect(await readPointer(store, orgId)).toMatchObject({ state: 'suspended', snapshotId: null });
  });
});

/**
 * A store where another builder publishes the organization while this build publishes it: right
 * after this build's manifest is written, before its pointer, `times` times.
 */
class ContestedStore extends MemoryStore {
  private inside = false;
  constructor(
    private times: number,
    private readonly otherBuilder: (store: MemoryStore) => Promise<unknown>,
  ) {
    super();
  }
  override async put(key: string, bytes: Uint8Array): Promise<void> {
    await super.put(key, bytes);
    if (this.inside || this.times === 0 || !key.includes('/snapshots/')) return;
    this.times--;
    this.inside = true;
    try {
      await this.otherBuilder(this);
    } finally {
      this.inside = false;
    }
  }
}

describe('buildOrganizations when another builder publishes meanwhile', () => {
  /** What the other builder publishes: its own content, so that a pointer naming it is recognisable. */
  const otherBuilderPublishes = (orgId: string, n: () => number) => (store: MemoryStore) =>
    publishSnapshot(store, {
      organizationId: orgId,
      organizationSlug: 'acme',
      state: 'active',
      resources: [{ path: '/organization', value: { publishedBy: 'the other builder', n: n() } }],
      slugs: {},
      trigger: 'change',
      now: new Date('2026-11-21T10:00:01Z'),
    });

  it('builds again from a fresh read, and publishes what that read found', async () => {
    const { fixture, source, context, orgId } = setup();
    let competing = 0;
    const store = new ContestedStore(1, (inner) => {
      // The other builder read a change this build had not seen: the next read sees it too.
      fixture.teamMembers[0]!.fullName = 'Grace Hopper';
      source.data.set(orgId, fixture.data());
      return otherBuilderPublishes(orgId, () => ++competing)(inner);
    });
    const [result] = await buildOrganizations({ ...context, store }, { trigger: 'change' });
    expect(result).toMatchObject({ result: 'published' });
    expect(source.reads).toBe(2);
    const snapshot = await readWholeSnapshot(store, orgId);
    expect(snapshot.snapshotId).toBe(result!.snapshotId);
    expect(snapshot.resources[resourcePath.team]).toEqual([expect.objectContaining({ fullName: 'Grace Hopper' })]);
  });

  it('fails naming the conflict after three attempts, leaving the other builder’s snapshot current', async () => {
    const { source, context, orgId } = setup();
    let competing = 0;
    const store = new ContestedStore(
      Number.POSITIVE_INFINITY,
      otherBuilderPublishes(orgId, () => ++competing),
    );
    const [result] = await buildOrganizations({ ...context, store }, { trigger: 'change' });
    expect(result).toMatchObject({
      result: 'failed',
      error: `organization ${orgId}: another builder published meanwhile, at each of 3 attempts from a fresh read`,
      failure: { stage: 'publish' },
    });
    expect(source.reads).toBe(3);
    expect((await readWholeSnapshot(store, orgId)).resources['/organization']).toEqual({ publishedBy: 'the other builder', n: 3 });
  });
});

describe('validateResources', () => {
  it('returns the first resource that fails, its schema and the reason; nothing is thrown', () => {
    const resources = [
      { path: '/team', kind: 'team' as const, value: [] },
      { path: '/speakers', kind: 'speakers' as const, value: [{ id: 'not enough' }] },
    ];
    expect(validateResources(schemas, resources.slice(0, 1))).toEqual({ valid: true });
    expect(validateResources(schemas, resources)).toEqual({
      valid: false,
      resource: '/speakers',
      schema: 'speaker-list',
      reason: expect.stringContaining('/0 must have required property'),
    });
  });
});

describe('BuildError', () => {
  it('keeps stage, organization and resource, and describes the whole cause chain on one line', () => {
    const refused = Object.assign(new AggregateError([], ''), { code: 'ECONNREFUSED' });
    const error = new BuildError('read', 'org-1', 'organization org-1: read failed', {
      resource: '/team',
      cause: new Error('connection lost', { cause: refused }),
    });
    expect(error).toMatchObject({ name: 'BuildError', stage: 'read', organizationId: 'org-1', resource: '/team' });
    expect(error.describe()).toBe('organization org-1: read failed: connection lost: ECONNREFUSED');
  });
});

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
      // A build of every organization ends with one line saying what came of it.
      {
        level: 'info',
        message: expect.stringMatching(/^manual build of 1 organization in \d+\.\d s: 1 published$/),
        fields: expect.objectContaining({ trigger: 'manual', organizations: 1, published: 1, unchanged: 0, failed: 0 }),
      },
      {
        level: 'info',
        message: expect.stringMatching(/^schedule build of 1 organization in \d+\.\d s: 1 unchanged$/),
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
    source.onRead = () => (source.reads === 1 ? firstRead.wait : undefined);
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
    // Nothing else is due: many quiet periods later there has been no third build.
    await sleep(100);
    expect(source.lists).toBe(2);
    expect(source.reads).toBe(2);
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

  it('catches up after missed notifications with one full build, triggered by change', async () => {
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
        message: 'listening for platform changes again: building every organization, for changes made while not listening',
        fields: { trigger: 'change' },
      })),
      { level: 'info', message: expect.stringMatching(/^acme: published /), fields: expect.objectContaining({ trigger: 'change', organizationId: orgId }) },
      { level: 'info', message: expect.stringMatching(/^change build of 1 organization in .*: 1 published$/), fields: expect.objectContaining({ trigger: 'change' }) },
    ]);
  });
});

describe('BuildRunner after a failure', () => {
  it('builds an organization again after a failure to reach a backend, until it succeeds, with nobody asking', async () => {
    vi.useFakeTimers();
    try {
      const { source, context, orgId } = setup();
      const runner = new BuildRunner(context, { log: new RecordingLog(), debounceMs: 1 });
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
      expect(results.every((result) => result.result === 'failed' && result.failure?.backend)).toBe(true);
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
      const { source, context, orgId } = setup();
      const runner = new BuildRunner(context, { log: new RecordingLog() });
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
      expect((await runner.build('manual')).map((r) => r.failure?.stage)).toEqual(['validate']);
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
