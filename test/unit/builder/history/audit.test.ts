import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { auditStore } from '../../../../builder/history/audit.ts';
import { publishSnapshot } from '../../../../builder/publish.ts';
import { codedObjectKey, objectKey, objectPrefix } from '../../../../snapshot/layout.ts';
import { contentObject } from '../../../../snapshot/hash.ts';
import { readManifest, readPointer } from '../../../../snapshot/reader.ts';
import { MemoryStore } from '../../../../snapshot/stores/memory.ts';
import { expectCodedForms, resourcesWithLargeOnes } from '../../../support/coded-forms.ts';
import { PUBLIC_BASE_URL, publishFixture } from '../../../support/gateway-fixtures.ts';
import { PlatformFixture } from '../../../support/platform-fixture.ts';

const BERLIN = '7c1e2a40-5b6d-4e8f-9a0b-1c2d3e4f5a6b';
const BERLIN_EVENT = '7c1e2a40-5b6d-4e8f-9a0b-00000000e001';
const TWO_HOURS_LATER = () => new Date(Date.now() + 2 * 3_600_000);

/**
 * Two organizations: acme (built from fixture rows as the builder would: an event "summit", a
 * speaker, a team member; its description mentions Berlin and a retina logo) and berlin (published
 * by hand: an event "summit" too, which is no finding, and "berlin-summit").
 */
async function twoOrganizations(berlinExtra: (acme: { id: string; event: string }) => Array<{ path: string; value: unknown }> = () => []) {
  const fixture = new PlatformFixture({
    description: 'Meet us in berlin, or write to hello@acme.example. Logo: https://files.acme.example/logo@2x.png',
  });
  const event = fixture.event({ name: 'Summit', slug: 'summit', description: 'After berlin-summit, our own summit.' });
  fixture.bill(fixture.session(event, { name: 'Keynote' }), fixture.speaker({ name: 'Ada' }));
  fixture.teamMember({ fullName: 'Grace' });
  const store = new MemoryStore();
  await publishFixture(store, fixture);
  await publishSnapshot(store, {
    organizationId: BERLIN,
    organizationSlug: 'berlin',
    state: 'active',
    trigger: 'manual',
    now: new Date('2026-01-01T00:00:00Z'),
    slugs: { summit: BERLIN_EVENT, 'berlin-summit': `${BERLIN_EVENT.slice(0, -1)}2` },
    resources: [
      { path: '/organization', value: { id: BERLIN, name: 'Berlin', slug: 'berlin', email: 'info@berlin.example', publicUrl: `${PUBLIC_BASE_URL}/berlin` } },
      { path: `/events/${BERLIN_EVENT}`, value: { id: BERLIN_EVENT, slug: 'summit', publicUrl: `${PUBLIC_BASE_URL}/berlin/events/summit` } },
      ...berlinExtra({ id: fixture.organization.id, event: event.id }),
    ],
  });
  return { store, acme: fixture.organization.id, acmeEvent: event.id };
}

async function objectOf(store: MemoryStore, orgId: string, path: string): Promise<string> {
  const pointer = await readPointer(store, orgId);
  return (await readManifest(store, orgId, pointer!.snapshotId!))!.resources[path]!;
}

describe('auditStore', () => {
  it('finds nothing in clean builds: own contact address, slugs as words, shared event slugs, retina image names', async () => {
    const { store } = await twoOrganizations();
    const report = await auditStore(store, { now: TWO_HOURS_LATER() });
    expect(report.findings).toEqual([]);
    expect(report.organizations).toBe(2);
    // Counted per object: its coded forms are part of it.
    expect(report.objects).toBe((await store.list('orgs/')).filter((key) => key.includes('/objects/') && key.endsWith('.json')).length);
  });

  it("reports an e-mail address other than the organization's own contact address", async () => {
    const { store } = await twoOrganizations(() => [{ path: '/team', value: [{ name: 'Max', bio: 'Reach me at Max.Mustermann@mail.example.com' }] }]);
    const { findings } = await auditStore(store);
    expect(findings).toEqual([
      {
        organizationId: BERLIN,
        kind: 'foreign-email',
        path: '/team',
        object: await objectOf(store, BERLIN, '/team'),
        detail: '/0/bio: e-mail address Max.Mustermann@mail.example.com',
      },
    ]);
  });

  it("reports another organization's id and its events' ids, anywhere", async () => {
    const { store, acme, acmeEvent } = await twoOrganizations((org) => [{ path: '/sponsors', value: [{ note: `see ${org.id.toUpperCase()}`, [org.event]: true }] }]); // members sorted: the id first
    const { findings } = await auditStore(store);
    expect(findings.map(({ kind, path, detail }) => ({ kind, path, detail }))).toEqual([
      { kind: 'foreign-id', path: '/sponsors', detail: `/0/${acmeEvent}: ${acmeEvent} is the id of an event of organization ${acme}` },
      { kind: 'foreign-id', path: '/sponsors', detail: `/0/note: ${acme.toUpperCase()} is the id of organization ${acme}` },
    ]);
  });

  it("reports another organization's slugs in slug and publicUrl fields", async () => {
    const { store, acme } = await twoOrganizations(() => [
      { path: '/speakers', value: [{ slug: 'acme', description: 'acme is not a finding in prose' }] },
      { path: '/sponsors', value: [{ publicUrl: `${PUBLIC_BASE_URL}/acme/events/summit` }, { publicUrl: `${PUBLIC_BASE_URL}/berlin/events/acme` }] },
    ]);
    const { findings } = await auditStore(store);
    expect(findings.map(({ organizationId, kind, path, detail }) => ({ organizationId, kind, path, detail }))).toEqual([
      { organizationId: BERLIN, kind: 'foreign-slug', path: '/speakers', detail: `/0/slug: "acme" is the slug of organization ${acme}` },
      // "summit" is berlin's own event slug too, and "acme" is no event slug of acme's.
      {
        organizationId: BERLIN,
        kind: 'foreign-slug',
        path: '/sponsors',
        detail: `/0/publicUrl: "acme" in ${PUBLIC_BASE_URL}/acme/events/summit is the slug of organization ${acme}`,
      },
    ]);
  });

  it('reports an object no manifest names once it is older than the grace period', async () => {
    const { store, acme } = await twoOrganizations();
    const orphan = contentObject({ left: 'over' });
    await store.put(objectKey(acme, orphan.hash), orphan.bytes);
    expect((await auditStore(store)).findings).toEqual([]); // a build may be publishing it right now
    expect((await auditStore(store, { graceMinutes: 0, now: TWO_HOURS_LATER() })).findings).toEqual([
      { organizationId: acme, kind: 'orphan-object', object: orphan.hash, detail: expect.stringMatching(/^no manifest names it \(written \d{4}-/) },
    ]);
    expect((await auditStore(store, { now: TWO_HOURS_LATER() })).findings).toHaveLength(1);
  });

  it('reports a manifest naming a missing object, and an object whose bytes do not hash to its name', async () => {
    const { store, acme } = await twoOrganizations();
    const team = await objectOf(store, acme, '/team');
    const organization = await objectOf(store, acme, '/organization');
    await store.delete(objectKey(acme, team));
    await store.put(objectKey(acme, organization), Buffer.from('{"id":"tampered"}'));
    const { findings, objects } = await auditStore(store);
    expect(findings).toEqual([
      { organizationId: acme, kind: 'missing-object', path: '/team', object: team, detail: expect.stringContaining('is not in the store') },
      { organizationId: acme, kind: 'corrupt-object', path: '/organization', object: organization, detail: 'its bytes do not hash to its name' },
    ]);
    const jsonOf = async (orgId: string) => (await store.list(objectPrefix(orgId))).filter((key) => key.endsWith('.json')).length;
    expect(objects).toBe((await jsonOf(acme)) + (await jsonOf(BERLIN)));
  });

  it("audits every snapshot of the history: an older contact address is the organization's own; a missing object is reported once", async () => {
    const { store } = await twoOrganizations();
    const berlin = (email: string, at: string) =>
      publishSnapshot(store, {
        organizationId: BERLIN,
        organizationSlug: 'berlin',
        state: 'active',
        trigger: 'manual',
        now: new Date(at),
        slugs: {},
        resources: [
          { path: '/organization', value: { id: BERLIN, slug: 'berlin', email } },
          { path: '/team', value: [{ bio: `ask ${email}` }] },
        ],
      });
    await berlin('old@berlin.example', '2026-02-01T00:00:00Z');
    const oldTeam = await objectOf(store, BERLIN, '/team');
    await berlin('new@berlin.example', '2026-03-01T00:00:00Z');
    expect((await auditStore(store)).findings).toEqual([]);
    await berlin('old@berlin.example', '2026-04-01T00:00:00Z'); // names the old /team again
    await store.delete(objectKey(BERLIN, oldTeam));
    expect((await auditStore(store)).findings).toEqual([
      { organizationId: BERLIN, kind: 'missing-object', path: '/team', object: oldTeam, detail: expect.stringMatching(/^snapshot 20260401T/) },
    ]);
  });

  it('checks every coded form against its name: one that does not decode to its object, and one without its JSON, are findings naming the key', async () => {
    const { store, acme } = await twoOrganizations(() => [{ path: '/speakers', value: resourcesWithLargeOnes(BERLIN, 'Berlin')[2]!.value }]);
    expect(await expectCodedForms(store, BERLIN)).toBe(1);
    const speakers = await objectOf(store, BERLIN, '/speakers');
    expect((await auditStore(store)).findings).toEqual([]);
    // A coded form of other bytes, and one that is no brotli at all.
    const tampered = codedObjectKey(BERLIN, speakers, 'gzip');
    await store.put(tampered, gzipSync('{"speakers":"forged"}'));
    const garbled = codedObjectKey(BERLIN, speakers, 'br');
    await store.put(garbled, Buffer.from('not brotli'));
    // A coded form whose JSON was never written (or deleted on its own).
    const orphan = contentObject({ left: 'over', padding: 'x'.repeat(2000) });
    const alone = codedObjectKey(acme, orphan.hash, 'gzip');
    await store.put(alone, gzipSync(orphan.bytes));
    const { findings } = await auditStore(store);
    expect(findings).toHaveLength(3);
    expect(findings).toEqual(
      expect.arrayContaining([
        { organizationId: acme, kind: 'coded-form-without-json', object: orphan.hash, detail: `${alone}: its object's JSON ${objectKey(acme, orphan.hash)} is not in the store` },
        { organizationId: BERLIN, kind: 'corrupt-coded-form', path: '/speakers', object: speakers, detail: expect.stringContaining(`${garbled}: not br data (`) },
        { organizationId: BERLIN, kind: 'corrupt-coded-form', path: '/speakers', object: speakers, detail: `${tampered}: it decodes to bytes that do not hash to its name` },
      ]),
    );
  });

  it('finds nothing in objects without coded forms: published before they were stored, or with SNAPSHOT_CODINGS=none', async () => {
    const store = new MemoryStore();
    await publishSnapshot(store, {
      organizationId: BERLIN,
      organizationSlug: 'berlin',
      state: 'active',
      trigger: 'manual',
      now: new Date('2026-01-01T00:00:00Z'),
      slugs: {},
      resources: resourcesWithLargeOnes(BERLIN, 'Berlin'),
      codings: [],
    });
    expect(await expectCodedForms(store, BERLIN, [])).toBe(0);
    expect(await auditStore(store, { now: TWO_HOURS_LATER() })).toMatchObject({ objects: 3, findings: [] });
  });

  it('reports a pointer naming a missing manifest', async () => {
    const { store, acme } = await twoOrganizations();
    const pointer = await readPointer(store, acme);
    await store.delete(`orgs/${acme}/snapshots/${pointer!.snapshotId}.json`);
    const { findings } = await auditStore(store);
    expect(findings).toContainEqual({ organizationId: acme, kind: 'broken-snapshot', detail: `the pointer names snapshot ${pointer!.snapshotId}, which is missing` });
  });
});
