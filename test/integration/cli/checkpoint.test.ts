// `marquee checkpoint` as an operator and an auditor use it (docs/operation.md "Checkpoints of the
// publication log"): after a build it prints the latest signed checkpoint, which the independent
// example verifier (examples/verify-publication-log.mjs) accepts with the signing key record the
// store publishes, as it does the log's leaves against both checkpoints; it writes a fresh one when
// the log grew; it refuses without a signing key; and `--backfill` logs a store's history from
// before the log, once.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { publishSnapshot } from '../../../builder/publish.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { onEmbeddedPlatform, seedSampleIn } from '../../support/embedded-platform.ts';
import { marquee } from '../../support/cli.ts';
import { migratedHome } from '../../support/migrated-home.ts';
import { exportLeaves, verifyPublicationLogExample } from '../../support/example-verifiers.ts';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'marquee-checkpoint-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

interface CheckpointJson {
  origin: string;
  size: number;
  rootHash: string;
  keyId: string;
  storeKey: string;
  note: string;
}

describe('marquee checkpoint', () => {
  it('prints the checkpoint a build left, verified by the example verifier; a fresh one once the log grew', async () => {
    const home = await migratedHome({ at: join(work, 'built') });
    const env = { MARQUEE_HOME: home };
    await seedSampleIn(home);
    const built = await marquee(['build', '--json'], env);
    expect(built, built.stderr).toMatchObject({ code: 0 });

    const text = await marquee(['checkpoint'], env);
    expect(text, text.stderr).toMatchObject({ code: 0 });
    const json = await marquee(['checkpoint', '--json'], env);
    const first = JSON.parse(json.stdout) as CheckpointJson;
    // Two published organizations and two suspended: two manifests and two state records.
    expect(first).toMatchObject({ size: 4, storeKey: 'publication-log/checkpoints/000000000004.txt', origin: `${join(home, 'snapshots')}/publication-log` });
    expect(first.note).toBe(text.stdout);
    expect(text.stdout.split('\n').slice(0, 3)).toEqual([first.origin, '4', first.rootHash]);

    await writeFile(join(work, 'first.checkpoint'), text.stdout);
    const key = join(home, 'snapshots', 'signing-keys', `${first.keyId}.json`);
    const checked = await verifyPublicationLogExample('checkpoint', join(work, 'first.checkpoint'), '--key', key, '--origin', first.origin);
    expect(checked, checked.stdout).toMatchObject({ code: 0 });

    // An edit through the database: the next build publishes, and the next checkpoint is larger.
    await onEmbeddedPlatform(home, (db) => db.query('UPDATE organizations SET name = $1 WHERE id = $2', ['Nordic Renamed', SAMPLE.organizations.nordic.id]));
    expect((await marquee(['build', '--org', SAMPLE.organizations.nordic.id], env)).code).toBe(0);
    const second = JSON.parse((await marquee(['checkpoint', '--json'], env)).stdout) as CheckpointJson;
    expect(second).toMatchObject({ size: 5, storeKey: 'publication-log/checkpoints/000000000005.txt', keyId: first.keyId });
    await writeFile(join(work, 'second.checkpoint'), second.note);
    expect((await verifyPublicationLogExample('checkpoint', join(work, 'second.checkpoint'), '--key', key, '--origin', first.origin)).code).toBe(0);
    // The log's leaves, as an auditor takes them from the database, are the log both signed.
    const leaves = await exportLeaves(env, join(work, 'leaves.txt'));
    const both = await verifyPublicationLogExample('log', leaves, join(work, 'first.checkpoint'), join(work, 'second.checkpoint'), '--key', key);
    expect(both, both.stdout).toMatchObject({ code: 0, stdout: expect.stringContaining('5 leaves (') });
    // The consistency proof from the kept checkpoint to the latest, handed out by the CLI, checked by the example alone.
    const proof = join(work, 'first-to-second.proof');
    const proved = await marquee(['checkpoint', '--since', join(work, 'first.checkpoint'), '--proof', proof], env);
    expect(proved, proved.stderr).toMatchObject({ code: 0, stdout: second.note });
    const consistent = await verifyPublicationLogExample('consistency', join(work, 'first.checkpoint'), join(work, 'second.checkpoint'), proof, '--key', key);
    expect(consistent, consistent.stdout).toMatchObject({ code: 0 });
    const document = JSON.parse(await readFile(proof, 'utf8')) as { proof: string[] };
    expect(document.proof.length).toBeGreaterThan(0);
    await writeFile(proof, JSON.stringify({ ...document, proof: [Buffer.alloc(32, 7).toString('base64'), ...document.proof.slice(1)] }));
    expect((await verifyPublicationLogExample('consistency', join(work, 'first.checkpoint'), join(work, 'second.checkpoint'), proof, '--key', key)).code).not.toBe(0);
    const alone = await marquee(['checkpoint', '--proof', proof], env);
    expect(alone, alone.stderr).toMatchObject({ code: 2, stderr: expect.stringContaining('--since') });

    const unsigned = await marquee(['checkpoint'], { ...env, SNAPSHOT_SIGNING_KEY: 'none' });
    expect(unsigned.code).toBe(1);
    expect(unsigned.stderr).toMatch(/no checkpoint: SNAPSHOT_SIGNING_KEY=none/);
  });

  it('--backfill logs the history a store held before the log, once, and the checkpoint then covers it', async () => {
    const home = await migratedHome({ at: join(work, 'older') });
    const env = { MARQUEE_HOME: home };
    await seedSampleIn(home);
    // Published by a release without the log: in the store, not in the log.
    const store = new DirectoryStore(join(home, 'snapshots'));
    const org = SAMPLE.organizations.nordic.id;
    for (const [n, at] of ['2026-11-01T10:00:00Z', '2026-11-02T10:00:00Z'].entries()) {
      await publishSnapshot(store, {
        organizationId: org,
        organizationSlug: 'nordic',
        state: 'active',
        trigger: 'manual',
        slugs: {},
        resources: [{ path: '/organization', value: { id: org, version: n } }],
        now: new Date(at),
      });
    }
    const empty = await marquee(['checkpoint'], env);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/the publication log is empty .*--backfill/);

    const backfilled = await marquee(['checkpoint', '--backfill', '--json'], env);
    expect(backfilled, backfilled.stderr).toMatchObject({ code: 0 });
    expect(backfilled.stderr).toMatch(/backfilled 2 manifests and 0 state records of 1 organizations/);
    expect(JSON.parse(backfilled.stdout)).toMatchObject({ size: 2 });
    const again = await marquee(['checkpoint', '--backfill', '--json'], env);
    expect(again.stderr).toMatch(/backfilled 0 manifests/);
    expect(JSON.parse(again.stdout)).toMatchObject({ size: 2 });
  });
});
