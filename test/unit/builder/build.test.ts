import { describe, expect, it } from 'vitest';
import { buildOrganizations } from '../../../builder/build.ts';
import { InProcessBuildLocks } from '../../../builder/build-locks.ts';
import { BuildError } from '../../../builder/errors.ts';
import { publishSnapshot } from '../../../builder/publish.ts';
import { validateResources } from '../../../builder/validate.ts';
import { resourcePath } from '../../../snapshot/resource-catalog.ts';
import { readPointer } from '../../../snapshot/reader.ts';
import { SchemaSet } from '../../../snapshot/schemas.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { setup } from '../../support/memory-platform.ts';
import type { Coding } from '../../../snapshot/codings.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';
import { readWholeSnapshot } from '../../support/snapshot-integrity.ts';

const schemas = new SchemaSet();

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

  it('stores the coded forms its context names (SNAPSHOT_CODINGS) beside the objects worth them, gzip alone by default', async () => {
    const codedKeys = async (codings?: Coding[]) => {
      const { store, context, orgId } = setup();
      await buildOrganizations(codings === undefined ? context : { ...context, codings }, { trigger: 'manual' });
      return (await store.list(`orgs/${orgId}/objects/`)).filter((key) => !key.endsWith('.json'));
    };
    const suffixes = async (codings?: Coding[]) => new Set((await codedKeys(codings)).map((key) => key.slice(key.indexOf('.json'))));
    expect(await suffixes()).toEqual(new Set(['.json.gz']));
    expect(await suffixes(['br', 'gzip'])).toEqual(new Set(['.json.br', '.json.gz']));
    expect(await codedKeys([])).toEqual([]);
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
        if (key.endsWith('current.json')) await whileBuilding('pointer');
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
  override async putIfVersion(key: string, bytes: Uint8Array, expected: string | null): Promise<'written' | 'conflict'> {
    const written = await super.putIfVersion(key, bytes, expected);
    if (this.inside || this.times === 0 || !key.includes('/snapshots/')) return written;
    this.times--;
    this.inside = true;
    try {
      await this.otherBuilder(this);
    } finally {
      this.inside = false;
    }
    return written;
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
