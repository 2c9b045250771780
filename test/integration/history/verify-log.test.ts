// `marquee verify` knows what the publication log knows (docs/operation.md "Verifying history"),
// through the real program on an embedded platform database and one directory store, built into
// by `build` and then changed and built again: the newest manifests removed with the pointer moved
// back are `publication-missing`; a suspended organization's newest state record removed is a
// break; a manifest copied into the store from elsewhere, which the log does not know, is
// `unlogged`; a publish that stopped at its pointer (superseded by the next) and retention's
// pruning by `gc` are no break; `gc` without the database refuses unless `--store-only`.
// `verify --since` a checkpoint kept earlier passes after more builds, and refuses one re-signed by
// a key the store does not publish, and a log whose rows were rewritten since. One store, built once: each tampering starts from a pristine copy
// put back in its place (the database records builds by the store's location, so a copy elsewhere
// would not be this store to it).
import { cp, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
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
import { logRecords } from '../../support/publication-log.ts';

const nordic = SAMPLE.organizations.nordic.id;

let home: string;
let store: string;
let pristine: string;
let suspended: string;

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
  home = await mkdtemp(join(tmpdir(), 'marquee-verify-log-'));
  store = join(home, 'store');
  pristine = join(home, 'pristine');
  for (const args of [
    ['db', 'migrate'],
    ['db', 'seed', '--sample'],
  ])
    expect((await marquee(args, { MARQUEE_HOME: home })).code).toBe(0);
  const built = JSON.parse((await ok(['build', '--json'])).stdout) as { organizations: Array<{ id: string; result: string }> };
  suspended = built.organizations.find((o) => o.result === 'suspended')!.id;
  for (const title of ['Host', 'Co-host']) {
    await ok(['db', 'sql', `UPDATE team_members SET title = '${title}' WHERE full_name = 'Mikko Virtanen'`]);
    await ok(['build', '--org', nordic]);
  }
  expect(await nordicIds()).toHaveLength(3);
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
  });

  it("a suspended organization's newest state record removed: publication-missing", async () => {
    await asBuilt();
    const states = join(store, 'orgs', suspended, 'states');
    const newest = (await readdir(states)).sort().at(-1)!;
    await unlink(join(states, newest));
    const { code, report } = await verifyJson();
    expect(code).toBe(1);
    expect(brokenOf(report)).toEqual([
      { organizationId: suspended, snapshotId: `states/${newest.slice(0, -'.json'.length)}`, kind: 'publication-missing', detail: expect.any(String) },
    ]);
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
    await ok(['db', 'sql', "UPDATE team_members SET title = 'Speaker' WHERE full_name = 'Mikko Virtanen'"]);
    await ok(['build', '--org', nordic]);
    const { code, report } = await verifyJson();
    expect({ code, broken: brokenOf(report) }).toEqual({ code: 0, broken: [] });
  });

  // From here on the store grows as the log does: no tampering, nothing put back.
  it("gc's pruning is logged: verify stays clean", async () => {
    await ok(['gc', '--keep', '1', '--days', '0', '--grace-minutes', '0']);
    expect(await nordicIds()).toHaveLength(1);
    const { code, report } = await verifyJson();
    expect({ code, broken: brokenOf(report) }).toEqual({ code: 0, broken: [] });
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
  beforeAll(async () => {
    keptNote = (await ok(['checkpoint'])).stdout;
    kept = join(home, 'kept.txt');
    await writeFile(kept, keptNote);
  });

  it('passes after more builds: the log extends it, and what was logged since is in the store', async () => {
    await ok(['db', 'sql', "UPDATE team_members SET title = 'Moderator' WHERE full_name = 'Mikko Virtanen'"]);
    await ok(['build', '--org', nordic]);
    const done = await ok(['verify', '--all', '--since', kept, '--json']);
    expect(JSON.parse(done.stdout)).toMatchObject({ ok: true, against: expect.stringMatching(/every publication its publication log records from leaf \d+ on$/) });
  });

  it('refuses a checkpoint whose root was edited and signed again by a key the store does not publish', async () => {
    const [origin, size] = keptNote.split('\n');
    const forged = join(home, 'forged.txt');
    const { privateKey } = generateKeyPairSync('ed25519');
    await writeFile(forged, signCheckpoint({ origin: origin!, size: Number(size), rootHash: randomBytes(32) }, privateKey));
    const done = await run(['verify', '--all', '--since', forged]);
    expect(done).toMatchObject({ code: 1, stdout: '' });
    expect(done.stderr).toContain(`marquee: ${forged}: its signature does not verify with the signing keys directory ${store} publishes`);
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
