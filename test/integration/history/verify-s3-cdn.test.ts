// The tamperings an auditor of a production deployment must catch, on the store they have: an S3
// bucket (s3rver) behind the CDN (nginx). `marquee verify` reads it through the S3 API with the
// platform database (embedded) that built into it; the independent example verifier
// (examples/verify-history.mjs) reads it through the CDN, with the publication log's leaves. One
// store holds one tampering per organization, so one run of each verifier names all four: an
// organization's prefix deleted (history-missing), the newest two manifests deleted with the
// pointer moved back (publication-missing), a suspended organization's newest manifest deleted
// (publication-missing), a manifest edited and signed again by a key record the forger published
// (content-hash-mismatch); then the whole store deleted, which both refuse. The untampered store is
// read through the CDN as a copy under another prefix, so the CDN never caches what is then changed.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { canonicalJson } from '../../../snapshot/canonical.ts';
import { sha256Hex } from '../../../snapshot/hash.ts';
import { manifestKey, pointerKey } from '../../../snapshot/layout.ts';
import { listSnapshotIds } from '../../../snapshot/reader.ts';
import { newSigningKeyPem, signerFromPem, signingKeyRecordKey } from '../../../snapshot/signing.ts';
import { S3Store } from '../../../snapshot/stores/s3.ts';
import { marquee } from '../../support/cli.ts';
import { migratedHome } from '../../support/migrated-home.ts';
import { seedSampleIn, sqlIn } from '../../support/embedded-platform.ts';
import { expectHistoryBreak, expectHistoryVerified, exportLeaves, verifyHistoryExample } from '../../support/example-verifiers.ts';
import { startHttpCache, type TestHttpCache } from '../../support/http-cache.ts';
import { startS3, type TestS3 } from '../../support/s3.ts';

const { nordic, pacific, harbor, oldTown } = SAMPLE.organizations;
const PREFIX = 'production';

let s3: TestS3;
let cdn: TestHttpCache;
let home: string;
let env: Record<string, string>;
let store: S3Store;
let leaves: string;

const run = (args: string[]) => marquee(args, env);
const ok = async (args: string[]) => {
  const done = await run(args);
  expect(done, `${args.join(' ')}: ${done.stderr}`).toMatchObject({ code: 0 });
  return done;
};
const viaCdn = (prefix: string) => `${cdn.url}/${s3.bucket}/${prefix}`;
const verifyJson = async () => {
  const done = await run(['verify', '--all', '--json']);
  return { code: done.code, report: JSON.parse(done.stdout) as { organizations: Array<{ organizationId: string; break?: { snapshotId: string; kind: string } }> } };
};
/** One at a time: s3rver answers 500 to deletes racing in one folder. */
const deleteAll = async (prefix: string) => {
  for (const key of await store.list(prefix)) await store.delete(key);
};

beforeAll(async () => {
  // The platform database is copied and seeded while the bucket and the CDN start: it needs neither.
  const servers = (async () => {
    s3 = await startS3();
    cdn = await startHttpCache(s3.endpoint);
  })();
  home = await migratedHome({ prefix: 'marquee-verify-s3-' });
  await seedSampleIn(home);
  await servers;
  env = { MARQUEE_HOME: home, ...s3.env(PREFIX) };
  for (const [name, value] of Object.entries(env)) if (name.startsWith('AWS_')) vi.stubEnv(name, value);
  store = new S3Store({ bucket: s3.bucket, prefix: PREFIX, endpoint: s3.endpoint });
  // nordic and pacific published, harbor suspended, oldTown closed; then three snapshots of nordic,
  // two of pacific and then its suspension, and harbor reactivated with one snapshot.
  await ok(['build']);
  await sqlIn(
    home,
    `UPDATE team_members SET title = 'Host' WHERE full_name = 'Mikko Virtanen'`,
    `UPDATE organizations SET name = 'Pacific Renamed' WHERE id = '${pacific.id}'`,
    `UPDATE organizations SET status = 'active' WHERE id = '${harbor.id}'`,
  );
  await ok(['build']);
  await sqlIn(home, `UPDATE team_members SET title = 'Co-host' WHERE full_name = 'Mikko Virtanen'`, `UPDATE organizations SET status = 'suspended' WHERE id = '${pacific.id}'`);
  await ok(['build']);
  leaves = await exportLeaves(env, join(home, 'leaves.txt'));
  expect((await listSnapshotIds(store, nordic.id)).length).toBe(3);
  expect((await listSnapshotIds(store, pacific.id)).length).toBe(2);
  expect((await listSnapshotIds(store, harbor.id)).length).toBe(1);
}, 120_000);

afterAll(async () => {
  await cdn?.stop();
  await s3?.stop();
  await rm(home, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

describe('S3 behind the CDN: verify and the example verifier find every tampering', () => {
  it('the store as built verifies; then one tampering per organization is four findings of each', async () => {
    const built = await verifyJson();
    expect({ code: built.code, broken: built.report.organizations.filter((o) => o.break) }).toEqual({ code: 0, broken: [] });
    // The untampered store through the CDN: a copy, so that nothing the tamperings change is cached.
    const pristine = new S3Store({ bucket: s3.bucket, prefix: 'pristine', endpoint: s3.endpoint });
    await Promise.all((await store.list('')).map(async (key) => pristine.put(key, (await store.get(key))!)));
    expectHistoryVerified(await verifyHistoryExample(viaCdn('pristine'), { leaves }));

    // oldTown (closed): its whole prefix.
    await deleteAll(`orgs/${oldTown.id}/`);
    // nordic: the newest two manifests, and the pointer moved back to the first.
    const nordicIds = await listSnapshotIds(store, nordic.id);
    for (const id of nordicIds.slice(1)) await store.delete(manifestKey(nordic.id, id));
    const nordicPointer = JSON.parse((await store.get(pointerKey(nordic.id)))!.toString('utf8'));
    const first = (await store.get(manifestKey(nordic.id, nordicIds[0]!)))!;
    await store.put(pointerKey(nordic.id), Buffer.from(canonicalJson({ ...nordicPointer, snapshotId: nordicIds[0], manifestHash: sha256Hex(first) })));
    // pacific (suspended since): its newest manifest.
    const pacificNewest = (await listSnapshotIds(store, pacific.id)).at(-1)!;
    await store.delete(manifestKey(pacific.id, pacificNewest));
    // harbor: /team served from the /organization object, signed again by a key the forger
    // published, the old contentHash kept; the pointer names the forged bytes.
    const [harborId] = await listSnapshotIds(store, harbor.id);
    const manifest = JSON.parse((await store.get(manifestKey(harbor.id, harborId!)))!.toString('utf8'));
    const forger = signerFromPem(newSigningKeyPem(), 'forger');
    await store.put(signingKeyRecordKey(forger.keyId), Buffer.from(canonicalJson(forger.record(new Date(Date.parse(manifest.publishedAt) - 60_000)))));
    const { signature: _signature, ...unsigned } = manifest;
    const forged = Buffer.from(canonicalJson(forger.sign({ ...unsigned, resources: { ...manifest.resources, '/team': manifest.resources['/organization'] } })));
    await store.put(manifestKey(harbor.id, harborId!), forged);
    const harborPointer = JSON.parse((await store.get(pointerKey(harbor.id)))!.toString('utf8'));
    await store.put(pointerKey(harbor.id), Buffer.from(canonicalJson({ ...harborPointer, manifestHash: sha256Hex(forged) })));

    const expected = [
      { organizationId: nordic.id, at: nordicIds[1]!, kind: 'publication-missing' },
      { organizationId: pacific.id, at: pacificNewest, kind: 'publication-missing' },
      { organizationId: harbor.id, at: harborId!, kind: 'content-hash-mismatch' },
      { organizationId: oldTown.id, at: 'current', kind: 'history-missing' },
    ];
    const [verified, example] = await Promise.all([verifyJson(), verifyHistoryExample(viaCdn(PREFIX), { leaves })]);
    expect(verified.code).toBe(1);
    expect(verified.report.organizations.flatMap((o) => (o.break ? [{ organizationId: o.organizationId, at: o.break.snapshotId, kind: o.break.kind }] : []))).toEqual(
      expect.arrayContaining(expected),
    );
    expect(verified.report.organizations.filter((o) => o.break)).toHaveLength(expected.length);
    for (const finding of expected) expectHistoryBreak(example, finding);
    expect(example.stdout.match(/BROKEN/g)).toHaveLength(expected.length);
  });

  // Last: nothing is left of the store.
  it('the whole store deleted: both refuse it, neither says "0 verified"', async () => {
    await deleteAll('');
    const [verified, example] = await Promise.all([run(['verify', '--all']), verifyHistoryExample(viaCdn(PREFIX), { leaves })]);
    expect({ code: verified.code, stdout: verified.stdout }).toEqual({ code: 1, stdout: '' });
    expect(verified.stderr).toMatch(new RegExp(`^marquee: s3://${s3.bucket}/${PREFIX} .*holds no organization's history`));
    expect({ code: example.code, stdout: example.stdout }).toEqual({ code: 1, stdout: '' });
    expect(example.stderr).toContain(`${viaCdn(PREFIX)} holds no organization's history (nothing under orgs/), yet the publication log in ${leaves} records 4 organizations`);
  });
});
