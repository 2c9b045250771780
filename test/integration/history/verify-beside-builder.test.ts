// `verify --all` beside a live builder (docs/operation.md "Verifying history"), on PostgreSQL 15 and
// on PGlite with a directory store: verify reads what the platform database and the publication
// log expect of the store once, before any organization is verified (verification-expectations.ts);
// a builder then publishes a new snapshot of an organization and its retention prunes the oldest,
// both logged, before that organization's turn. Neither is a break: the organization's entries are
// read again before `unlogged` or `publication-missing` is reported. A manifest the log never
// recorded (copied in from another store) still is `unlogged`.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrganizations } from '../../../builder/build.ts';
import { databaseBasis } from '../../../builder/history/verification-expectations.ts';
import { type Expectations, type StoreVerification, verifyStore } from '../../../builder/history/verify-history.ts';
import { SqlBuiltVersions } from '../../../builder/platform/versions.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { publishSnapshot } from '../../../builder/publish.ts';
import { applyRetention } from '../../../builder/retention.ts';
import { databasePublicationLog } from '../../../records/publication-log/log-store.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import { manifestKey } from '../../../snapshot/layout.ts';
import { listSnapshotIds } from '../../../snapshot/reader.ts';
import { newSigningKeyPem, signerFromPem } from '../../../snapshot/signing.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { platformBackends } from '../../support/platform-backends.ts';
import { sampleBuildContext, seeded } from '../../support/sample-build.ts';

const platforms = platformBackends();
const nordic = SAMPLE.organizations.nordic.id;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'marquee-verify-beside-builder-'));
});
afterAll(async () => {
  await platforms.close();
  await rm(work, { recursive: true, force: true });
});

const broken = ({ organizations }: StoreVerification) =>
  organizations.filter((organization) => !organization.ok).map(({ organizationId, break: found }) => ({ organizationId, snapshotId: found?.snapshotId, kind: found?.kind }));

/** The same expectations, without the means to read the log again: what verify did before it read again. */
const neverReadAgain = (expected: Expectations): Expectations =>
  new Map([...expected].map(([id, list]) => [id, list.map((expectation) => ({ ...expectation, again: undefined }))]));

describe.each(platforms.backends)('verify --all beside a builder, on $name', (backend) => {
  it("a publish and a pruning logged after the expectations were read, before the organization's turn, are no break; a manifest never logged is", async () => {
    const db = await seeded(await backend.open());
    await migrateMarquee(db);
    const store = new DirectoryStore(join(work, backend.name));
    const log = databasePublicationLog(db);
    const context = {
      ...sampleBuildContext(db, store),
      publicationLog: log,
      builtVersions: new SqlBuiltVersions(db, store.description),
      signer: signerFromPem(newSigningKeyPem(), 'builders'),
    };
    const built = await buildOrganizations(context, { trigger: 'manual' });
    expect(built.map((result) => result.result)).toEqual(['published', 'published', 'suspended', 'suspended']);
    const [first] = await listSnapshotIds(store, nordic);

    // What verify --all reads first: every organization's expectations, the log's among them.
    const { expected, against } = await databaseBasis(db, store);
    expect(against).toContain('every publication its publication log records');

    // Then a builder, before nordic's turn: a new snapshot, and retention keeping only it.
    const later = new Date(context.now!().getTime() + 60_000);
    await db.query(`UPDATE team_members SET title = 'Host' WHERE full_name = 'Mikko Virtanen'`);
    const [rebuilt] = await buildOrganizations({ ...context, now: () => later }, { trigger: 'change', organizationIds: [nordic] });
    expect(rebuilt).toMatchObject({ result: 'published' });
    const pruned = await applyRetention(store, { keep: 1, days: 0, graceMinutes: 0, now: new Date(later.getTime() + 1000), publicationLog: log });
    expect(pruned.deleted.map(({ organizationId, snapshots }) => ({ organizationId, snapshots }))).toEqual([{ organizationId: nordic, snapshots: [first] }]);
    expect(await listSnapshotIds(store, nordic)).toEqual([rebuilt!.snapshotId]);

    // The expectations read before know neither: taken as they are, the new snapshot is unlogged.
    const stale = expected!.get(nordic)!;
    expect(stale.map((expectation) => expectation.snapshot?.snapshotId).filter(Boolean)).toEqual([first]);
    expect(broken(await verifyStore(store, neverReadAgain(expected!)))).toEqual([{ organizationId: nordic, snapshotId: rebuilt!.snapshotId, kind: 'unlogged' }]);
    // Read again at nordic's turn: both are logged, nothing is broken.
    const verified = await verifyStore(store, expected);
    expect(broken(verified)).toEqual([]);
    expect(verified.organizations.find((organization) => organization.organizationId === nordic)).toMatchObject({ beginning: 'pruned', snapshots: 1 });

    // A manifest published into another store and copied in: read again, the log still does not know it.
    const elsewhere = new DirectoryStore(join(work, `${backend.name}-elsewhere`));
    const copied = await publishSnapshot(elsewhere, {
      organizationId: nordic,
      organizationSlug: 'nordic-dev',
      state: 'active',
      trigger: 'change',
      resources: [{ path: '/organization', value: { id: nordic, name: 'Copied' } }],
      slugs: {},
      now: new Date(later.getTime() + 60_000),
      signer: signerFromPem(newSigningKeyPem(), 'elsewhere'),
    });
    await cp(join(work, `${backend.name}-elsewhere`, manifestKey(nordic, copied.snapshotId!)), join(work, backend.name, manifestKey(nordic, copied.snapshotId!)));
    const found = await verifyStore(store, expected);
    expect(broken(found)).toEqual([{ organizationId: nordic, snapshotId: copied.snapshotId, kind: 'unlogged' }]);
    expect(found.organizations.find((organization) => organization.organizationId === nordic)?.break?.detail).not.toContain('not confirmed');
  });
});
