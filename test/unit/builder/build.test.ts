import { describe, expect, it } from 'vitest';
import { buildOrganizations, type BuildContext } from '../../../builder/build.ts';
import { BuildError } from '../../../builder/errors.ts';
import { BuildRunner } from '../../../builder/runner.ts';
import { validateResources } from '../../../builder/validate.ts';
import type { OrganizationData, PlatformSource } from '../../../builder/platform/rows.ts';
import { InProcessChannel } from '../../../snapshot/notifications.ts';
import { readPointer } from '../../../snapshot/reader.ts';
import { SchemaSet } from '../../../snapshot/schemas.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { readWholeSnapshot } from '../../support/snapshot-integrity.ts';

/** A platform held in memory: each organization's data can be replaced between builds. */
class MemorySource implements PlatformSource {
  readonly data = new Map<string, OrganizationData>();
  failing = new Set<string>();
  async listOrganizations() {
    return [...this.data.values()].map((d) => ({ id: d.organization.id, slug: d.organization.slug, status: d.organization.status })).sort((a, b) => (a.id < b.id ? -1 : 1));
  }
  async readOrganization(id: string) {
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
    expect(result!.failure).toEqual({ stage: 'validate', resource: '/team' });
    expect(await readWholeSnapshot(store, orgId)).toEqual(before);
  });

  it('reports a projection failure with the event, and a read failure with its cause', async () => {
    const { fixture, source, context, orgId } = setup();
    fixture.events[0]!.timeZone = 'Mars/Olympus_Mons';
    source.data.set(orgId, fixture.data());
    const [projected] = await buildOrganizations(context, { trigger: 'manual' });
    expect(projected!.result).toBe('failed');
    expect(projected!.error).toContain('Mars/Olympus_Mons');

    expect(projected!.failure).toEqual({ stage: 'project', resource: `/events/${fixture.events[0]!.id}` });

    source.failing.add(orgId);
    const [read] = await buildOrganizations(context, { trigger: 'manual' });
    expect(read).toMatchObject({ result: 'failed', error: `organization ${orgId}: read failed: connection reset by peer`, failure: { stage: 'read' } });
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
    const results = await buildOrganizations(context, { trigger: 'manual', organizationIds: [orgId], onProgress: (done, total) => progress.push(`${done}/${total}`) });
    expect(results.map((r) => r.id)).toEqual([orgId]);
    expect(progress).toEqual(['1/1']);
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
    await runner.build('schedule'); // unchanged: nothing to say
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
});
