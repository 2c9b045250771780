// `marquee verify` knows what the publication log knows (docs/operation.md "Verifying history"),
// through the real program on an embedded platform database and one directory store, built into
// by `build` and then changed and built again: the newest manifests removed with the pointer moved
// back are `publication-missing`; a suspended organization's newest state record, or newest
// manifest, removed is a break; an organization's prefix removed is `history-missing`; a manifest
// copied into the store from elsewhere, which the log does not know, is `unlogged`; a publish that
// stopped at its pointer (superseded by the next) and retention's pruning by `gc` are no break;
// `gc` without the database refuses unless `--store-only`. `verify --since` a checkpoint kept
// earlier passes after more builds, and refuses one re-signed by a key the store does not publish,
// a kept checkpoint of a forked log (another tree of its size, signed by the key), a current
// checkpoint over a tree that does not extend the kept one, and a log whose rows were rewritten
// since. The independent example verifiers are given each of these as an auditor has it — the
// store, the log's leaves, the checkpoints kept, a consistency proof — and find each (or pass,
// where verify does). One store, built once: each tampering starts from a pristine copy put back in
// its place (the database records builds by the store's location, so a copy elsewhere would not be
// this store to it).
import { cp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publish, publishSnapshot } from '../../../builder/publish.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { serializeResources } from '../../../builder/serialize.ts';
import { openPlatformDatabase } from '../../../records/database/database-backends.ts';
import { signCheckpoint } from '../../../records/publication-log/checkpoint.ts';
import { databasePublicationLog } from '../../../records/publication-log/log-store.ts';
import { canonicalJson } from '../../../snapshot/canonical.ts';
import { sha256Hex } from '../../../snapshot/hash.ts';
import { manifestKey, pointerKey } from '../../../snapshot/layout.ts';
import { listSnapshotIds } from '../../../snapshot/reader.ts';
import { newSigningKeyPem, signerFromPem } from '../../../snapshot/signing.ts';
import type { SnapshotStore } from '../../../snapshot/store.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { marquee } from '../../support/cli.ts';
import { seedSampleIn, sqlIn } from '../../support/embedded-platform.ts';
import { migratedHome } from '../../support/migrated-home.ts';
import {
  type ExampleRun,
  expectHistoryBreak,
  expectHistoryVerified,
  exportLeaves,
  newestCheckpoint,
  verifyHistoryExample,
  verifyPublicationLogExample,
  writeConsistencyProof,
} from '../../support/example-verifiers.ts';
import { logRecords } from '../../support/publication-log.ts';

const nordic = SAMPLE.organizations.nordic.id;
const pacific = SAMPLE.organizations.pacific.id;

let home: string;
let store: string;
let pristine: string;
let suspended: string;
/** The log's leaves as an auditor takes them, after the builds of beforeAll. */
let leaves: string;

const run = (args: string[]) => marquee(args, { MARQUEE_HOME: home, SNAPSHOT_STORE: store });
const ok = async (args: string[]) => {
  const done = await run(args);
  expect(done, `${args.join(' ')}: ${done.stderr}${done.stdout}`).toMatchObject({ code: 0 });
  return done;
};
const verifyJson = async () => {
  const done = await run(['verify', '--all', '--json']);
  return {
    code: done.code,
    report: JSON.parse(done.stdout) as { ok: boolean; against: string; organizations: Array<{ organizationId: string; break?: { snapshotId: string; kind: string } }> },
  };
};
const brokenOf = (report: Awaited<ReturnType<typeof verifyJson>>['report']) =>
  report.organizations.filter((o) => o.break !== undefined).map((o) => ({ organizationId: o.organizationId, ...o.break }));
const nordicIds = () => listSnapshotIds(new DirectoryStore(store), nordic);

beforeAll(async () => {
  home = await migratedHome({ prefix: 'marquee-verify-log-' });
  store = join(home, 'store');
  pristine = join(home, 'pristine');
  await seedSampleIn(home);
  const built = JSON.parse((await ok(['build', '--json'])).stdout) as { organizations: Array<{ id: string; result: string }> };
  suspended = built.organizations.find((o) => o.result === 'suspended')!.id;
  await sqlIn(home, "UPDATE team_members SET title = 'Host' WHERE full_name = 'Mikko Virtanen'");
  await ok(['build', '--org', nordic]);
  // pacific suspended beside nordic's third snapshot: a suspended organization with a manifest.
  await sqlIn(home, "UPDATE team_members SET title = 'Co-host' WHERE full_name = 'Mikko Virtanen'", `UPDATE organizations SET status = 'suspended' WHERE id = '${pacific}'`);
  await ok(['build']);
  expect(await nordicIds()).toHaveLength(3);
  expect(await listSnapshotIds(new DirectoryStore(store), pacific)).toHaveLength(1);
  leaves = await exportLeaves({ MARQUEE_HOME: home }, join(home, 'leaves.txt'));
  await cp(store, pristine, { recursive: true });
}, 180_000);

/** The store as built, before a tampering (the log is only ever appended to, so it still knows all of it). */
async function asBuilt(): Promise<void> {
  await rm(store, { recursive: true, force: true });
  await cp(pristine, store, { recursive: true });
}

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('verify checks the store against the publication log', () => {
  it('the built store verifies, against the log', async () => {
    const { code, report } = await verifyJson();
    expect({ code, broken: brokenOf(report) }).toEqual({ code: 0, broken: [] });
    expect(report.against).toContain('every publication its publication log records');
    const example = await verifyHistoryExample(store, { leaves });
    expectHistoryVerified(example);
    expect(example.stdout).toMatch(/^publication log: \d+ leaves of 4 organizations, the first \d+ signed by publication-log\/checkpoints\//);
  });

  it('the newest two manifests removed and the pointer moved back: publication-missing', async () => {
    await asBuilt();
    const ids = await nordicIds();
    for (const id of ids.slice(1)) await unlink(join(store, manifestKey(nordic, id)));
    const pointer = JSON.parse(await readFile(join(store, pointerKey(nordic)), 'utf8'));
    const bytes = await readFile(join(store, manifestKey(nordic, ids[0]!)));
    await writeFile(join(store, pointerKey(nordic)), canonicalJson({ ...pointer, snapshotId: ids[0], manifestHash: sha256Hex(bytes) }));
    const { code, report } = await verifyJson();
    expect(code).toBe(1);
    expect(brokenOf(report)).toEqual([
      { organizationId: nordic, snapshotId: ids[1], kind: 'publication-missing', detail: expect.stringContaining('publication log records snapshot') },
    ]);
    expectHistoryBreak(await verifyHistoryExample(store, { leaves }), { organizationId: nordic, at: ids[1]!, kind: 'publication-missing' });
    // The store alone cannot show it: the chain is whole, only shorter.
    expectHistoryVerified(await verifyHistoryExample(store));
  });

  it("a suspended organization's newest state record removed: publication-missing", async () => {
    await asBuilt();
    const states = join(store, 'orgs', suspended, 'states');
    const newest = (await readdir(states)).sort().at(-1)!;
    await unlink(join(states, newest));
    const { code, report } = await verifyJson();
    expect(code).toBe(1);
    const at = `states/${newest.slice(0, -'.json'.length)}`;
    expect(brokenOf(report)).toEqual([{ organizationId: suspended, snapshotId: at, kind: 'publication-missing', detail: expect.any(String) }]);
    expectHistoryBreak(await verifyHistoryExample(store, { leaves }), { organizationId: suspended, at, kind: 'publication-missing' });
  });

  it("a suspended organization's newest manifest removed: publication-missing", async () => {
    await asBuilt();
    const newest = (await listSnapshotIds(new DirectoryStore(store), pacific)).at(-1)!;
    await unlink(join(store, manifestKey(pacific, newest)));
    const { code, report } = await verifyJson();
    expect(code).toBe(1);
    expect(brokenOf(report)).toEqual([{ organizationId: pacific, snapshotId: newest, kind: 'publication-missing', detail: expect.any(String) }]);
    expectHistoryBreak(await verifyHistoryExample(store, { leaves }), { organizationId: pacific, at: newest, kind: 'publication-missing' });
  });

  it("an organization's prefix removed: history-missing", async () => {
    await asBuilt();
    await rm(join(store, 'orgs', pacific), { recursive: true });
    const { code, report } = await verifyJson();
    expect(code).toBe(1);
    expect(brokenOf(report)).toEqual([{ organizationId: pacific, snapshotId: 'current', kind: 'history-missing', detail: expect.any(String) }]);
    expectHistoryBreak(await verifyHistoryExample(store, { leaves }), { organizationId: pacific, at: 'current', kind: 'history-missing' });
  });

  it('a manifest copied into the store from elsewhere, which the log does not know: unlogged', async () => {
    await asBuilt();
    const elsewhere = join(home, 'elsewhere');
    const outcome = await publishSnapshot(new DirectoryStore(elsewhere), {
      organizationId: nordic,
      organizationSlug: 'nordic-dev',
      state: 'active',
      trigger: 'change',
      resources: [{ path: '/organization', value: { id: nordic, name: 'Copied' } }],
      slugs: {},
      now: new Date(),
      signer: signerFromPem(newSigningKeyPem(), 'elsewhere'),
    });
    await cp(join(elsewhere, manifestKey(nordic, outcome.snapshotId!)), join(store, manifestKey(nordic, outcome.snapshotId!)));
    const { code, report } = await verifyJson();
    expect(code).toBe(1);
    expect(brokenOf(report)).toEqual([{ organizationId: nordic, snapshotId: outcome.snapshotId, kind: 'unlogged', detail: expect.stringContaining('publication log') }]);
    expectHistoryBreak(await verifyHistoryExample(store, { leaves }), { organizationId: nordic, at: outcome.snapshotId!, kind: 'unlogged' });
  });

  it('a publish that stopped at its pointer, superseded by the next build, is no break', async () => {
    await asBuilt();
    const db = await openPlatformDatabase({ home });
    try {
      const resources = [{ path: '/organization', value: { id: nordic, name: 'Stopped' } }];
      await expect(
        publish(pointerFails(new DirectoryStore(store)), {
          organizationId: nordic,
          organizationSlug: 'nordic-dev',
          state: 'active',
          trigger: 'change',
          slugs: {},
          objects: serializeResources(resources),
          now: new Date(),
          builderVersion: 'test',
          durationMs: 0,
          publicationLog: databasePublicationLog(db),
        }),
      ).rejects.toThrow(/killed before the pointer/);
    } finally {
      await db.close();
    }
    await sqlIn(home, "UPDATE team_members SET title = 'Speaker' WHERE full_name = 'Mikko Virtanen'");
    await ok(['build', '--org', nordic]);
    const { code, report } = await verifyJson();
    expect({ code, broken: brokenOf(report) }).toEqual({ code: 0, broken: [] });
    leaves = await exportLeaves({ MARQUEE_HOME: home }, leaves);
    expectHistoryVerified(await verifyHistoryExample(store, { leaves }));
  });

  // From here on the store grows as the log does: no tampering, nothing put back.
  it("gc's pruning is logged: verify stays clean", async () => {
    await ok(['gc', '--keep', '1', '--days', '0', '--grace-minutes', '0']);
    expect(await nordicIds()).toHaveLength(1);
    const { code, report } = await verifyJson();
    expect({ code, broken: brokenOf(report) }).toEqual({ code: 0, broken: [] });
    leaves = await exportLeaves({ MARQUEE_HOME: home }, leaves);
    expectHistoryVerified(await verifyHistoryExample(store, { leaves }));
  });

  it('gc without the database refuses, naming --store-only, which prunes the store alone', async () => {
    const nohome = { MARQUEE_HOME: join(home, 'nohome'), SNAPSHOT_STORE: store };
    const refused = await marquee(['gc'], nohome);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain('give --store-only to prune without it');
    expect(await marquee(['gc', '--store-only', '--json'], nohome)).toMatchObject({ code: 0 });
  });
});

describe('verify --since a checkpoint an auditor kept', () => {
  let kept: string;
  let keptNote: string;
  let origin: string;
  let keptSize: number;
  /** The store's signing key record, which signs manifests and checkpoints: what an auditor gives the example. */
  let keyRecord: string;
  beforeAll(async () => {
    keptNote = (await ok(['checkpoint'])).stdout;
    kept = join(home, 'kept.txt');
    await writeFile(kept, keptNote);
    [origin, keptSize] = [keptNote.split('\n')[0]!, Number(keptNote.split('\n')[1])];
    const [record] = await readdir(join(store, 'signing-keys'));
    keyRecord = join(store, 'signing-keys', record!);
  });

  /** The store's newest checkpoint: the one verify --since compares with. */
  const current = () => newestCheckpoint(store);
  /** The log's consistency proof from `oldSize` to `newSize` leaves, read while no command holds the embedded database. */
  const proof = async (oldSize: number, newSize: number, name: string) => {
    const db = await openPlatformDatabase({ home });
    try {
      return await writeConsistencyProof(db, origin, oldSize, newSize, join(home, name));
    } finally {
      await db.close();
    }
  };
  /** A checkpoint of `size` leaves over a root no log of this store has, signed by the store's own key: a fork. */
  const forkedNote = async (size: number) => signCheckpoint({ origin, size, rootHash: randomBytes(32) }, createPrivateKey(await readFile(join(home, 'signing-key.pem'))));
  const rewritten = (run: ExampleRun) => expect({ code: run.code, out: run.stdout }).toEqual({ code: 1, out: expect.stringMatching(/rewritten|forked/) });

  it('passes after more builds: the log extends it, and what was logged since is in the store', async () => {
    await sqlIn(home, "UPDATE team_members SET title = 'Moderator' WHERE full_name = 'Mikko Virtanen'");
    await ok(['build', '--org', nordic]);
    const done = await ok(['verify', '--all', '--since', kept, '--json']);
    expect(JSON.parse(done.stdout)).toMatchObject({ ok: true, against: expect.stringMatching(/every publication its publication log records from leaf \d+ on$/) });
    // The auditor's own check: the kept checkpoint extended by the store's newest, by the leaves
    // and by the log's consistency proof; and the store against the leaves.
    const now = await current();
    expect(now.size).toBeGreaterThan(keptSize);
    leaves = await exportLeaves({ MARQUEE_HOME: home }, leaves);
    const consistency = await proof(keptSize, now.size, 'consistency.json');
    const [log, proven, history] = await Promise.all([
      verifyPublicationLogExample('log', leaves, kept, now.file, '--key', keyRecord, '--origin', origin),
      verifyPublicationLogExample('consistency', kept, now.file, consistency, '--key', keyRecord),
      verifyHistoryExample(store, { leaves, kept: [kept] }),
    ]);
    expect(log, log.stdout).toMatchObject({ code: 0, stdout: expect.stringContaining('the log every checkpoint given signed') });
    expect(proven, proven.stdout).toMatchObject({ code: 0, stdout: expect.stringContaining(`extends the log of ${keptSize}`) });
    expectHistoryVerified(history);
  });

  it('refuses a checkpoint whose root was edited and signed again by a key the store does not publish', async () => {
    const forged = join(home, 'forged.txt');
    const { privateKey } = generateKeyPairSync('ed25519');
    await writeFile(forged, signCheckpoint({ origin, size: keptSize, rootHash: randomBytes(32) }, privateKey));
    const done = await run(['verify', '--all', '--since', forged]);
    expect(done).toMatchObject({ code: 1, stdout: '' });
    expect(done.stderr).toContain(`marquee: ${forged}: its signature does not verify with the signing keys directory ${store} publishes`);
    const [checked, history] = await Promise.all([verifyPublicationLogExample('checkpoint', forged, '--key', keyRecord), verifyHistoryExample(store, { leaves, kept: [forged] })]);
    expect(checked).toMatchObject({ code: 1, stdout: expect.stringContaining('no signature by a given key') });
    expect(history).toMatchObject({ code: 1, stdout: expect.stringContaining('publication log: BROKEN (') });
  });

  it("refuses a kept checkpoint of a forked log: another tree of its size, signed by the store's key", async () => {
    const forked = join(home, 'forked.txt');
    await writeFile(forked, await forkedNote(keptSize));
    const done = await run(['verify', '--all', '--since', forked]);
    expect(done).toMatchObject({ code: 1, stdout: '' });
    expect(done.stderr).toContain(`marquee: ${forked}: the publication log was rewritten or forked since that checkpoint`);
    const now = await current();
    const consistency = await proof(keptSize, now.size, 'consistency.json');
    const [signed, proven, history] = await Promise.all([
      verifyPublicationLogExample('checkpoint', forked, '--key', keyRecord),
      verifyPublicationLogExample('consistency', forked, now.file, consistency, '--key', keyRecord),
      verifyHistoryExample(store, { leaves, kept: [forked] }),
    ]);
    // Its signature holds: only consistency with the log shows the fork.
    expect(signed.code).toBe(0);
    rewritten(proven);
    rewritten(history);
  });

  it('refuses when the current checkpoint is over a tree that does not extend the kept one', async () => {
    const now = await current();
    const genuine = await readFile(now.file);
    await writeFile(now.file, await forkedNote(now.size));
    try {
      const done = await run(['verify', '--all', '--since', kept]);
      expect(done).toMatchObject({ code: 1, stdout: '' });
      expect(done.stderr).toMatch(/the publication log was rewritten or forked since that checkpoint/);
      const consistency = await proof(keptSize, now.size, 'consistency.json');
      const [proven, log, history] = await Promise.all([
        verifyPublicationLogExample('consistency', kept, now.file, consistency, '--key', keyRecord),
        verifyPublicationLogExample('log', leaves, kept, now.file, '--key', keyRecord),
        verifyHistoryExample(store, { leaves, kept: [kept] }),
      ]);
      rewritten(proven);
      rewritten(log);
      rewritten(history);
    } finally {
      await writeFile(now.file, genuine);
    }
  });

  // Last: the log is rewritten for good.
  it('refuses when the log was rewritten since (its rows replaced, the append-only triggers off)', async () => {
    const db = await openPlatformDatabase({ home });
    try {
      const log = databasePublicationLog(db);
      const size = await log.size();
      await db.query('ALTER TABLE marquee_publication_log DISABLE TRIGGER USER');
      await db.query('ALTER TABLE marquee_publication_log_subtrees DISABLE TRIGGER USER');
      await db.query('DELETE FROM marquee_publication_log_subtrees');
      await db.query('DELETE FROM marquee_publication_log');
      await log.append(logRecords(0, size, 'rewritten'));
    } finally {
      await db.close();
    }
    const done = await run(['verify', '--all', '--since', kept]);
    expect(done).toMatchObject({ code: 1, stdout: '' });
    expect(done.stderr).toMatch(/the publication log was rewritten or forked since that checkpoint/);
    // What the rewritten log hands out fails against the checkpoints the store and the auditor kept.
    const now = await current();
    const consistency = await proof(keptSize, now.size, 'rewritten-consistency.json');
    leaves = await exportLeaves({ MARQUEE_HOME: home }, leaves);
    const [proven, history] = await Promise.all([
      verifyPublicationLogExample('consistency', kept, now.file, consistency, '--key', keyRecord),
      verifyHistoryExample(store, { leaves, kept: [kept] }),
    ]);
    rewritten(proven);
    rewritten(history);
  });
});

/** A store whose pointer writes fail: a builder killed after its log append, before its pointer. */
function pointerFails(target: SnapshotStore): SnapshotStore {
  return new Proxy(target, {
    get(inner, property) {
      if (property === 'putIfVersion')
        return async (key: string, bytes: Uint8Array, expected: Parameters<SnapshotStore['putIfVersion']>[2]) => {
          if (key.endsWith('/current.json')) throw new Error('killed before the pointer');
          return inner.putIfVersion(key, bytes, expected);
        };
      const value = Reflect.get(inner, property, inner) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(inner) : value;
    },
  });
}
