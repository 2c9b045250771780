// History as evidence, through the real program (docs/design.md "History as evidence"): a history
// of change builds, a requested run, a suspension and a reactivation, published by `marquee start`
// with the commands beside it, verifies; each way of tampering with a copy of its store is caught
// by `marquee verify`, naming the snapshot, and by the independent example verifier
// (examples/verify-history.mjs, no Marquee module) on the directory and on S3 behind an HTTP cache;
// `show --at` refuses to answer from a snapshot that does not verify, and the answers after the
// break carry their manifest's inclusion proof; a key rotation and a pruned beginning still verify.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { canonicalJson } from '../../../snapshot/canonical.ts';
import { sha256Hex } from '../../../snapshot/hash.ts';
import { manifestKey, pointerKey } from '../../../snapshot/layout.ts';
import { newSigningKeyPem, signerFromPem } from '../../../snapshot/signing.ts';
import { S3Store } from '../../../snapshot/stores/s3.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';
import { nodeLines } from '../../support/node-lines.ts';
import { startHttpCache, type TestHttpCache } from '../../support/http-cache.ts';
import { startS3, type TestS3 } from '../../support/s3.ts';
import { migratedHome } from '../../support/migrated-home.ts';

const ORG = SAMPLE.organizations.nordic.id;
const EXAMPLE = fileURLToPath(new URL('../../../examples/verify-history.mjs', import.meta.url));
const NODES = nodeLines();

let home: string;
let work: string;
let env: Record<string, string>;
let s3: TestS3;
let cdn: TestHttpCache;
/** Snapshot ids of the history, oldest first, and when each was published. */
let snapshots: Array<{ snapshotId: string; publishedAt: string }>;

const run = (args: string[], extra: Record<string, string> = {}) => marquee(args, { ...env, ...extra });
const json = async (args: string[], extra: Record<string, string> = {}) => {
  const done = await run(args, extra);
  expect(done, done.stderr).toMatchObject({ code: 0 });
  return JSON.parse(done.stdout);
};
const history = async () => ((await json(['history', '--org', ORG, '--json'])) as Array<{ snapshotId: string | null; state?: string }>).reverse();
const sql = async (statement: string) => expect((await run(['db', 'sql', statement])).code).toBe(0);

/** The example verifier as an auditor runs it (`node verify-history.mjs`), with every Node line at hand: each must say the same. */
async function example(store: string): Promise<{ code: number; stdout: string }> {
  const outcomes = await Promise.all(
    NODES.map(
      ({ command }) =>
        new Promise<{ code: number; stdout: string }>((resolve) => {
          execFile(command, [EXAMPLE, store, ORG], (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }));
        }),
    ),
  );
  for (const [n, outcome] of outcomes.entries()) expect({ node: NODES[n]!.version, ...outcome }).toEqual({ node: NODES[n]!.version, ...outcomes[0]! });
  return outcomes[0]!;
}

beforeAll(async () => {
  // start finds the embedded database migrated (the run's template: test/support/migrated-home.ts) and seeds it.
  home = await migratedHome({ prefix: 'marquee-evidence-' });
  work = await mkdtemp(join(tmpdir(), 'marquee-evidence-copies-'));
  env = { MARQUEE_HOME: home };
  [s3, cdn] = await (async () => {
    const server = await startS3();
    return [server, await startHttpCache(server.endpoint)] as const;
  })();
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION']) process.env[name] = s3.env('unused')[name];

  const start = await marqueeProcess(['start'], { ...env, PORT: '0', ADMIN_PORT: '0' }, /try: curl/);
  try {
    const grows = async (entries: number, change: () => Promise<void>) => {
      await change();
      await vi.waitFor(async () => expect((await history()).length).toBeGreaterThanOrEqual(entries), { timeout: 30_000, interval: 200 });
    };
    await grows(1, async () => {});
    // Change builds: the change listener rebuilds the organization.
    await grows(2, () => sql("UPDATE team_members SET show_on_website = false WHERE full_name = 'Astrid Lindqvist'"));
    await grows(3, () => sql("UPDATE team_members SET title = 'Host' WHERE full_name = 'Mikko Virtanen'"));
    // A suspension and a reactivation: state records, and the snapshot current again.
    await grows(4, () => sql(`UPDATE organizations SET status = 'suspended' WHERE id = '${ORG}'`));
    await grows(5, () => sql(`UPDATE organizations SET status = 'active' WHERE id = '${ORG}'`));
    await grows(6, () => sql("UPDATE team_members SET show_on_website = true WHERE full_name = 'Astrid Lindqvist'"));
  } finally {
    await start.stop();
  }
  // A requested run, beside nothing: its change published by `build`.
  await sql("UPDATE team_members SET title = 'Co-host' WHERE full_name = 'Mikko Virtanen'");
  expect((await json(['build', '--org', ORG, '--json'])).organizations[0]).toMatchObject({ result: 'published' });
  snapshots = ((await json(['history', '--org', ORG, '--json'])) as Array<{ snapshotId: string | null; publishedAt: string }>)
    .flatMap((entry) => (entry.snapshotId ? [{ snapshotId: entry.snapshotId, publishedAt: entry.publishedAt }] : []))
    .reverse();
  expect(snapshots.length).toBeGreaterThanOrEqual(5);
}, 240_000);

afterAll(async () => {
  await cdn?.stop();
  await s3?.stop();
  await rm(home, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

const store = () => join(home, 'snapshots');
let copies = 0;

/** A copy of the store, changed by `tamper`, also uploaded to S3 under its own prefix. */
async function tampered(tamper: (copy: string) => Promise<void>): Promise<{ directory: string; prefix: string }> {
  const directory = join(work, `copy-${++copies}`);
  await cp(store(), directory, { recursive: true });
  await tamper(directory);
  const prefix = `copy-${copies}`;
  const bucket = new S3Store({ bucket: s3.bucket, prefix, endpoint: s3.endpoint });
  for (const file of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (!file.isFile()) continue;
    const path = join(file.parentPath, file.name);
    await bucket.put(relative(directory, path), await readFile(path));
  }
  return { directory, prefix };
}

const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8'));
const writeCanonical = (path: string, value: unknown) => writeFile(path, canonicalJson(value));
const manifestPath = (copy: string, snapshotId: string) => join(copy, manifestKey(ORG, snapshotId));
const pointerPath = (copy: string) => join(copy, pointerKey(ORG));

/**
 * `marquee verify` and the example verifier, on the directory and on S3 (the CLI through the S3
 * API, the example through the HTTP cache): all four give the same verdict, and a break names
 * `brokenAt` with `kind`.
 */
async function verdicts(copy: { directory: string; prefix: string }, expected: { ok: true; says?: RegExp } | { ok: false; brokenAt: string; kind: string }) {
  // Four processes that only read: run at once. The store alone (--store-only), as the example
  // verifier reads it: the database records no build into a copy, and its embedded PGlite takes
  // one process at a time.
  const [directory, onS3, exampleDirectory, exampleCdn] = await Promise.all([
    run(['verify', '--org', ORG, '--store-only'], { SNAPSHOT_STORE: copy.directory }),
    run(['verify', '--org', ORG, '--store-only', '--json'], s3.env(copy.prefix)),
    example(copy.directory),
    example(`${cdn.url}/${s3.bucket}/${copy.prefix}`),
  ]);
  const all = { directory, onS3, exampleDirectory, exampleCdn };
  const codes = Object.values(all).map((outcome) => outcome.code);
  expect(codes, JSON.stringify(all, null, 1)).toEqual(Array(4).fill(expected.ok ? 0 : 1));
  if (expected.ok) {
    if (expected.says) for (const outcome of [directory, exampleDirectory, exampleCdn]) expect(outcome.stdout).toMatch(expected.says);
    return;
  }
  const marker = `BROKEN at ${expected.brokenAt} (${expected.kind}`;
  expect(directory.stdout).toContain(marker);
  expect(exampleDirectory.stdout).toContain(marker);
  expect(exampleCdn.stdout).toContain(marker);
  expect(JSON.parse(onS3.stdout).organizations[0].break).toMatchObject({ snapshotId: expected.brokenAt, kind: expected.kind });
}

const middle = () => snapshots[Math.floor(snapshots.length / 2)]!;
const head = () => snapshots.at(-1)!;

describe('a history that proves itself', () => {
  it('verifies: every manifest signed and chained to the one before, back to the first, with the state records', async () => {
    const verification = await json(['verify', '--org', 'nordic-dev', '--json']);
    expect(verification.ok).toBe(true);
    expect(verification.organizations[0]).toMatchObject({
      ok: true,
      beginning: 'first',
      snapshots: snapshots.length,
      stateRecords: 2,
      unsigned: 0,
      head: { snapshotId: head().snapshotId },
    });
    expect((await run(['verify', '--all'])).code).toBe(0);
    await verdicts(await tampered(async () => {}), { ok: true, says: /verified/ });
    const [first, second] = [await readJson(manifestPath(store(), snapshots[0]!.snapshotId)), await readJson(manifestPath(store(), snapshots[1]!.snapshotId))];
    expect(first).toMatchObject({ previous: null, signature: { keyId: expect.stringMatching(/^[0-9a-f]{16}$/) } });
    expect(second.previous).toBe(sha256Hex(await readFile(manifestPath(store(), snapshots[0]!.snapshotId))));
  });

  it('names the snapshot whose object was edited', async () => {
    const copy = await tampered(async (directory) => {
      const manifest = await readJson(manifestPath(directory, head().snapshotId));
      await writeFile(join(directory, `orgs/${ORG}/objects/${manifest.resources['/team']}.json`), '[]');
    });
    await verdicts(copy, { ok: false, brokenAt: head().snapshotId, kind: 'object-edited' });
  });

  it('names a past manifest whose trigger was edited, and show --at refuses to answer from it', async () => {
    const copy = await tampered(async (directory) => {
      const manifest = await readJson(manifestPath(directory, middle().snapshotId));
      await writeCanonical(manifestPath(directory, middle().snapshotId), { ...manifest, trigger: manifest.trigger === 'schedule' ? 'manual' : 'schedule' });
    });
    await verdicts(copy, { ok: false, brokenAt: middle().snapshotId, kind: 'manifest-edited' });
    // audit relies on the same checks.
    const audit = await run(['audit', '--json'], { SNAPSHOT_STORE: copy.directory });
    expect(audit.code).toBe(1);
    expect(JSON.parse(audit.stdout).findings).toContainEqual({
      organizationId: ORG,
      kind: 'broken-history',
      detail: expect.stringContaining(`${middle().snapshotId} (manifest-edited)`),
    });
    const shown = await run(['show', '--org', ORG, '--at', middle().publishedAt, '/team'], { SNAPSHOT_STORE: copy.directory });
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain(`snapshot ${middle().snapshotId}`);
    expect(shown.stderr).toContain(`breaks at ${middle().snapshotId} (manifest-edited)`);
    // The snapshots after the break still answer, with their evidence: the manifest's leaf in the
    // publication log, proved against the copy's newest checkpoint (show-inclusion.test.ts has the
    // example verifier check such proofs).
    const evidence = await json(['show', '--org', ORG, '--at', head().publishedAt, '--evidence', '/team'], { SNAPSHOT_STORE: copy.directory });
    expect(evidence).toMatchObject({
      snapshotId: head().snapshotId,
      manifestHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      signature: { keyId: expect.any(String) },
      etag: expect.stringMatching(/^"/),
      inclusion: { checkpoint: expect.stringMatching(/\/publication-log\n\d+\n/), proof: { kind: 'inclusion-proof', leafIndex: expect.any(Number) } },
    });
    expect(JSON.parse(Buffer.from(evidence.inclusion.proof.leaf, 'base64').toString('utf8'))).toMatchObject({
      kind: 'manifest',
      id: head().snapshotId,
      hash: evidence.manifestHash,
    });
  });

  it('names a past manifest re-pointed at a newer object', async () => {
    const copy = await tampered(async (directory) => {
      const newest = await readJson(manifestPath(directory, head().snapshotId));
      const manifest = await readJson(manifestPath(directory, snapshots[0]!.snapshotId));
      await writeCanonical(manifestPath(directory, snapshots[0]!.snapshotId), { ...manifest, resources: { ...manifest.resources, '/team': newest.resources['/team'] } });
    });
    await verdicts(copy, { ok: false, brokenAt: snapshots[0]!.snapshotId, kind: 'manifest-edited' });
  });

  it('names a manifest removed from the middle', async () => {
    const copy = await tampered((directory) => unlink(manifestPath(directory, middle().snapshotId)));
    await verdicts(copy, { ok: false, brokenAt: middle().snapshotId, kind: 'manifest-missing' });
  });

  it('names a manifest signed with a key that is not published', async () => {
    const copy = await tampered(async (directory) => {
      const manifest = await readJson(manifestPath(directory, head().snapshotId));
      const forged = signerFromPem(newSigningKeyPem(), 'a forger').sign({ ...manifest, trigger: 'schedule' });
      await writeCanonical(manifestPath(directory, head().snapshotId), forged);
      const pointer = await readJson(pointerPath(directory));
      await writeCanonical(pointerPath(directory), { ...pointer, manifestHash: sha256Hex(canonicalJson(forged)) });
    });
    await verdicts(copy, { ok: false, brokenAt: head().snapshotId, kind: 'unknown-key' });
  });

  it('names a pointer moved back to an older snapshot', async () => {
    const older = snapshots.at(-2)!;
    const copy = await tampered(async (directory) => {
      const pointer = await readJson(pointerPath(directory));
      const manifestHash = sha256Hex(await readFile(manifestPath(directory, older.snapshotId)));
      await writeCanonical(pointerPath(directory), { ...pointer, snapshotId: older.snapshotId, manifestHash });
    });
    await verdicts(copy, { ok: false, brokenAt: older.snapshotId, kind: 'pointer-moved-back' });
  });

  it('says where retention pruned the beginning, which is no break', async () => {
    const copy = await tampered(async () => {});
    expect((await run(['gc', '--keep', '2', '--days', '0', '--grace-minutes', '0'], { SNAPSHOT_STORE: copy.directory })).code).toBe(0);
    // The pruned copy replaces what was uploaded before gc.
    const pruned = await tampered(async (directory) => {
      await rm(directory, { recursive: true });
      await cp(copy.directory, directory, { recursive: true });
    });
    await verdicts(pruned, { ok: true, says: /pruned/ });
  });

  it('verifies across a signing-key rotation: old signatures by the old key, new ones by the new key', async () => {
    const newKey = join(work, 'rotated.pem');
    expect((await run(['signing-key', 'create', newKey])).code).toBe(0);
    expect((await run(['signing-key', 'create', newKey])).code).toBe(1); // never overwritten
    await sql("UPDATE team_members SET title = 'Speaker wrangler' WHERE full_name = 'Mikko Virtanen'");
    expect((await json(['build', '--org', ORG, '--json'], { SNAPSHOT_SIGNING_KEY: newKey })).organizations[0]).toMatchObject({ result: 'published' });
    expect(await readdir(join(store(), 'signing-keys'))).toHaveLength(2);
    await verdicts(await tampered(async () => {}), { ok: true, says: /verified/ });
  });
});
