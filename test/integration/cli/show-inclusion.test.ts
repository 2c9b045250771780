// `show --evidence`'s inclusion proof (docs/operation.md "Auditing"), through the real program: the
// manifest an answer came from is proved in the publication log against the newest checkpoint in
// the store, and the independent verifier (examples/verify-publication-log.mjs, no Marquee module)
// accepts the proof with the checkpoint printed beside it, the store's signing key record and the
// manifest file itself, for the newest answer and an older one; a proof, a leaf or a manifest
// changed it refuses. Without a proof to give, the answer still comes, saying why: no checkpoint
// covers the manifest yet (until the next one), or it was published before the log (until
// `checkpoint --backfill`).
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { publishSnapshot } from '../../../builder/publish.ts';
import { manifestKey } from '../../../snapshot/layout.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { marquee } from '../../support/cli.ts';
import { migratedHome } from '../../support/migrated-home.ts';
import { seedSampleIn, sqlIn } from '../../support/embedded-platform.ts';

const VERIFIER = fileURLToPath(new URL('../../../examples/verify-publication-log.mjs', import.meta.url));
const ORG = SAMPLE.organizations.nordic.id;

interface Evidence {
  snapshotId: string;
  manifestHash: string;
  signature: { keyId: string } | null;
  inclusion: { checkpoint: string; proof: { kind: string; origin: string; treeSize: number; leafIndex: number; leaf: string; proof: string[] } } | null;
  inclusionReason?: string;
  body: unknown;
}

let work: string;
let home: string;
const env = () => ({ MARQUEE_HOME: home });
let files = 0;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'marquee-show-inclusion-'));
  home = await migratedHome({ at: join(work, 'built') });
  await seedSampleIn(home);
  const done = await marquee(['build'], env());
  expect(done, done.stderr).toMatchObject({ code: 0 });
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

function verifier(...args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [VERIFIER, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, out: `${stdout}${stderr}` });
    });
  });
}

/** `show --evidence` of /organization at `at`, in `home` unless told. */
async function evidence(at: Date | string, extra: { home?: string } = {}): Promise<Evidence> {
  const instant = typeof at === 'string' ? at : at.toISOString();
  const done = await marquee(['show', '--org', ORG, '--at', instant, '--evidence', '/organization'], { MARQUEE_HOME: extra.home ?? home });
  expect(done, done.stderr).toMatchObject({ code: 0 });
  return JSON.parse(done.stdout) as Evidence;
}

/** The checkpoint and the proof as an auditor files them, and the verifier's verdict on them with the store's key record and `object`. */
async function check(shown: Evidence, options: { home?: string; keyId?: string; object?: string; proof?: unknown } = {}) {
  const { inclusion } = shown;
  if (inclusion === null) throw new Error(`no inclusion proof: ${shown.inclusionReason}`);
  const n = ++files;
  const [checkpointFile, proofFile] = [join(work, `${n}.checkpoint`), join(work, `${n}.proof.json`)];
  await writeFile(checkpointFile, inclusion.checkpoint);
  await writeFile(proofFile, JSON.stringify(options.proof ?? inclusion.proof));
  const store = join(options.home ?? home, 'snapshots');
  const key = join(store, 'signing-keys', `${options.keyId ?? shown.signature!.keyId}.json`);
  const origin = inclusion.checkpoint.slice(0, inclusion.checkpoint.indexOf('\n'));
  return verifier('inclusion', checkpointFile, proofFile, '--key', key, '--origin', origin, '--object', options.object ?? join(store, manifestKey(ORG, shown.snapshotId)));
}

const decodedLeaf = (shown: Evidence) => JSON.parse(Buffer.from(shown.inclusion!.proof.leaf, 'base64').toString('utf8'));

const sql = (statement: string) => sqlIn(home, statement);

describe('show --evidence', () => {
  let first: Evidence;

  it("proves the answer's manifest in the log the store's newest checkpoint signs, which the example verifier accepts", async () => {
    first = await evidence(new Date());
    expect(first.inclusion).not.toBeNull();
    expect(first.inclusionReason).toBeUndefined();
    expect(first.inclusion!.proof).toMatchObject({ kind: 'inclusion-proof', treeSize: Number(first.inclusion!.checkpoint.split('\n')[1]) });
    expect(decodedLeaf(first)).toMatchObject({ kind: 'manifest', organizationId: ORG, id: first.snapshotId, hash: first.manifestHash });
    const checked = await check(first);
    expect(checked, checked.out).toMatchObject({ code: 0 });
    expect(checked.out).toContain(`"id":"${first.snapshotId}"`);
    expect(checked.out).toMatch(/its SHA-256 is the logged manifest's hash/);
  });

  it('proves an older answer against the newest checkpoint once the log grew; a changed proof, leaf or manifest is refused', async () => {
    await sql(`UPDATE organizations SET name = 'Nordic Renamed' WHERE id = '${ORG}'`);
    const built = await marquee(['build', '--org', ORG], env());
    expect(built, built.stderr).toMatchObject({ code: 0 });
    const newest = await evidence(new Date());
    expect(newest.snapshotId).not.toBe(first.snapshotId);
    const older = await evidence(await publishedAt(first.snapshotId));
    expect(older.snapshotId).toBe(first.snapshotId);
    // The same leaf, in the larger tree of the newest checkpoint.
    expect(older.inclusion!.proof.leafIndex).toBe(first.inclusion!.proof.leafIndex);
    expect(older.inclusion!.proof.treeSize).toBeGreaterThan(first.inclusion!.proof.treeSize);
    expect(older.inclusion!.checkpoint).toBe(newest.inclusion!.checkpoint);
    for (const shown of [older, newest]) {
      const checked = await check(shown);
      expect(checked, checked.out).toMatchObject({ code: 0 });
    }

    const proof = older.inclusion!.proof;
    expect(proof.proof.length).toBeGreaterThan(0);
    const flipped = Buffer.from(proof.proof[0]!, 'base64');
    flipped[0]! ^= 1;
    const otherLeaf = Buffer.from(JSON.stringify({ ...decodedLeaf(older), hash: newest.manifestHash }), 'utf8').toString('base64');
    for (const [what, changed, pattern] of [
      ['a hash of the path', { ...proof, proof: [flipped.toString('base64'), ...proof.proof.slice(1)] }, /is not in the checkpoint's tree/],
      ['the leaf', { ...proof, leaf: otherLeaf }, /is not in the checkpoint's tree/],
      ['the leaf index', { ...proof, leafIndex: proof.leafIndex + 1 }, /is not in the checkpoint's tree/],
    ] as const) {
      const refused = await check(older, { proof: changed });
      expect({ what, ...refused }, refused.out).toMatchObject({ what, code: 1 });
      expect(refused.out).toMatch(pattern);
    }
    // The proof holds, but of another manifest than the one in hand.
    const another = await check(older, { object: join(home, 'snapshots', manifestKey(ORG, newest.snapshotId)) });
    expect(another, another.out).toMatchObject({ code: 1 });
    expect(another.out).toMatch(/is not the logged/);
  });

  it('says why when no checkpoint covers the manifest yet, and proves it once one does', async () => {
    await sql(`UPDATE organizations SET name = 'Nordic Again' WHERE id = '${ORG}'`);
    expect((await marquee(['build', '--org', ORG], env())).code).toBe(0);
    // The checkpoint that build wrote, gone: as if its builder had stopped between its publish and its checkpoint.
    const checkpoints = join(home, 'snapshots', 'publication-log', 'checkpoints');
    const newest = (await readdir(checkpoints)).sort().at(-1)!;
    await rm(join(checkpoints, newest));
    const uncovered = await evidence(new Date());
    expect(uncovered).toMatchObject({ inclusion: null, inclusionReason: expect.stringMatching(/^no checkpoint covers it yet: its leaf is number \d+ of the log/) });
    expect(uncovered.body).toMatchObject({ name: 'Nordic Again' });

    expect((await marquee(['checkpoint'], env())).code).toBe(0);
    const covered = await evidence(new Date());
    expect(covered.snapshotId).toBe(uncovered.snapshotId);
    const checked = await check(covered);
    expect(checked, checked.out).toMatchObject({ code: 0 });
  });

  it('says why for a manifest published before the log, and proves it after checkpoint --backfill', async () => {
    // The relations alone (the migrated template): the organization is named by id, which needs no platform row.
    const older = await migratedHome({ at: join(work, 'older') });
    const olderEnv = { MARQUEE_HOME: older };
    // Published by a release without the log: in the store, not in the log.
    const store = new DirectoryStore(join(older, 'snapshots'));
    const published = new Date('2026-01-10T10:00:00Z');
    await publishSnapshot(store, {
      organizationId: ORG,
      organizationSlug: 'nordic-dev',
      state: 'active',
      trigger: 'manual',
      slugs: {},
      resources: [{ path: '/organization', value: { id: ORG, name: 'Before the log' } }],
      now: published,
    });
    const at = new Date(published.getTime() + 60_000);
    const unlogged = await evidence(at, { home: older });
    expect(unlogged).toMatchObject({
      body: { name: 'Before the log' },
      inclusion: null,
      inclusionReason: expect.stringContaining(`does not record snapshot ${unlogged.snapshotId} of organization ${ORG}: it was published before the log existed`),
    });

    const backfilled = await marquee(['checkpoint', '--backfill', '--json'], olderEnv);
    expect(backfilled, backfilled.stderr).toMatchObject({ code: 0 });
    const { keyId } = JSON.parse(backfilled.stdout) as { keyId: string };
    const proved = await evidence(at, { home: older });
    expect(proved.manifestHash).toBe(unlogged.manifestHash);
    const checked = await check(proved, { home: older, keyId });
    expect(checked, checked.out).toMatchObject({ code: 0 });
  });
});

/** When `snapshotId` was published, as `history --json` says. */
async function publishedAt(snapshotId: string): Promise<string> {
  const listed = JSON.parse((await marquee(['history', '--org', ORG, '--json'], env())).stdout) as Array<{ snapshotId: string | null; publishedAt: string }>;
  return listed.find((entry) => entry.snapshotId === snapshotId)!.publishedAt;
}
