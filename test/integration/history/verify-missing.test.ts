// `marquee verify` and `marquee audit` notice what is missing (docs/operation.md "Verifying
// history"), through the real program on an embedded platform database and directory stores: a
// store that is not there, is empty or cannot be read is refused, naming it; an organization the
// database records as built into the store with nothing there is a break of its own kind
// (history-missing), told apart from the others in the text and in the JSON; one never built into
// the store is not; one the database does not know (deleted) is still verified from the store; and
// a manifest whose resources were edited and signed again with a key record the forger published,
// keeping its contentHash, is a break at that snapshot. The independent example verifier
// (examples/verify-history.mjs) is given each store too, as an auditor holding only the store (the
// database here records builds into more than one store, so its publication log is no one
// store's): it refuses the same stores, finds the same forgery, and, like --store-only, cannot see
// a prefix deleted without the log (verify-log and verify-s3-cdn give it the log, and it does).
// What the database records is per store (the store's location), so one store is built into by
// `build` once, and each tampering starts from a pristine copy put back in its place (a copy
// elsewhere would not be this store to the database); a store built into for one organization
// alone is the second.
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishSnapshot } from '../../../builder/publish.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { canonicalJson } from '../../../snapshot/canonical.ts';
import { sha256Hex } from '../../../snapshot/hash.ts';
import { manifestKey, pointerKey } from '../../../snapshot/layout.ts';
import { newSigningKeyPem, signerFromPem, signingKeyRecordKey } from '../../../snapshot/signing.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { marquee } from '../../support/cli.ts';
import { seedSampleIn } from '../../support/embedded-platform.ts';
import { migratedHome } from '../../support/migrated-home.ts';
import { expectHistoryBreak, expectHistoryVerified, verifyHistoryExample } from '../../support/example-verifiers.ts';

const nordic = SAMPLE.organizations.nordic.id;
const pacific = SAMPLE.organizations.pacific.id;

let home: string;
let work: string;
/** Built into by `build` for every organization in beforeAll: the database records it. */
let built: string;
let pristine: string;

const run = (args: string[], store: string, extra: Record<string, string> = {}) => marquee(args, { MARQUEE_HOME: home, SNAPSHOT_STORE: store, ...extra });

async function build(store: string, ...args: string[]): Promise<void> {
  const done = await run(['build', ...args], store);
  expect(done, done.stderr).toMatchObject({ code: 0 });
}

/** The store as built, before a tampering: whatever the last test left at its place is replaced. */
async function builtStore(): Promise<string> {
  await rm(built, { recursive: true, force: true });
  await cp(pristine, built, { recursive: true });
  return built;
}

beforeAll(async () => {
  home = await migratedHome({ prefix: 'marquee-verify-missing-' });
  work = await mkdtemp(join(tmpdir(), 'marquee-verify-missing-stores-'));
  built = join(work, 'built');
  pristine = join(work, 'pristine');
  await seedSampleIn(home);
  await build(built);
  await cp(built, pristine, { recursive: true });
}, 120_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

/**
 * verify --all, verify --org and audit each refuse the store, exit 1, with `says` on stderr; so does
 * the example verifier, with `exampleSays`. Those refused before they open the database run at
 * once; the embedded one takes one process at a time.
 */
async function refused(
  store: string,
  says: string | RegExp,
  { env = {}, beforeDatabase = true, exampleSays }: { env?: Record<string, string>; beforeDatabase?: boolean; exampleSays: string },
) {
  const commands = [['verify', '--all'], ['verify', '--org', pacific], ['verify', '--org', pacific, '--json'], ['audit'], ['audit', '--json']];
  const runOne = (args: string[]) => marquee(args, { MARQUEE_HOME: home, SNAPSHOT_STORE: store, ...env });
  const example = verifyHistoryExample(store);
  const outcomes = beforeDatabase ? await Promise.all(commands.map(runOne)) : [];
  if (!beforeDatabase) for (const args of commands) outcomes.push(await runOne(args));
  for (const [i, done] of outcomes.entries()) {
    expect({ args: commands[i], code: done.code, stdout: done.stdout }).toEqual({ args: commands[i], code: 1, stdout: '' });
    expect(done.stderr).toMatch(typeof says === 'string' ? `marquee: ${says}` : says);
  }
  expect(await example).toEqual({ code: 1, stdout: '', stderr: `verify-history: ${exampleSays}\n` });
}

describe('a store that is not what builders publish into is refused, naming it', () => {
  it('missing: named before the database, which a wrong MARQUEE_HOME does not have either', async () => {
    const nohome = join(work, 'nohome');
    await refused(join(nohome, 'snapshots'), `directory ${join(nohome, 'snapshots')} does not exist`, {
      env: { MARQUEE_HOME: nohome },
      exampleSays: `directory ${join(nohome, 'snapshots')} does not exist`,
    });
  });

  it('empty; and empty where the database records builds into it', async () => {
    const empty = join(work, 'empty');
    await mkdir(empty);
    const nothingIn = (store: string) => `${store} holds no organization's history (nothing under orgs/)`;
    await refused(empty, `directory ${nothingIn(empty)}`, { beforeDatabase: false, exampleSays: nothingIn(empty) });
    const emptied = await builtStore();
    await rm(join(emptied, 'orgs'), { recursive: true });
    await refused(emptied, /holds no organization's history \(nothing under orgs\/\), yet (4 organizations were|organization \S+ was) published into it/, {
      beforeDatabase: false,
      exampleSays: nothingIn(emptied),
    });
  });

  it('unreadable: a file where the directory was, and (not as root, whom permissions do not stop) a directory without permissions', async () => {
    const replaced = await builtStore();
    await rm(replaced, { recursive: true });
    await writeFile(replaced, 'not a store');
    await refused(replaced, `directory ${replaced} is not a directory`, { exampleSays: `${replaced} is not a directory` });
    // Root reads a directory whatever its mode: the file above is the case that holds for everyone.
    if (process.getuid?.() === 0) return;
    const locked = await builtStore();
    await chmod(locked, 0o000);
    try {
      await refused(locked, new RegExp(`directory ${locked} cannot be read: EACCES`), { exampleSays: `directory ${join(locked, 'orgs/')} cannot be read: EACCES` });
    } finally {
      await chmod(locked, 0o755);
    }
  });
});

describe('every organization the database knows is checked', () => {
  it('an intact store verifies; one never built into the store has nothing and is no break', async () => {
    const store = await builtStore();
    const all = await run(['verify', '--all'], store);
    expect(all, all.stderr).toMatchObject({ code: 0 });
    expect(all.stdout).toMatch(new RegExp(`^4 organizations: 4 verified, 0 broken in directory ${store}; checked against the platform database PGlite `));
    expect(await run(['audit', '--json'], store)).toMatchObject({ code: 0, stdout: expect.stringContaining('"findings": []') });
    expectHistoryVerified(await verifyHistoryExample(store));

    const partly = join(work, 'partly');
    await build(partly, '--org', 'nordic-dev');
    const some = await run(['verify', '--all'], partly);
    expect(some, some.stderr).toMatchObject({ code: 0, stdout: expect.stringMatching(/^4 organizations: 1 verified, 3 never published, 0 broken in /) });
    expect(await run(['verify', '--org', 'pacific-oss'], partly)).toMatchObject({
      code: 0,
      stdout: `${pacific}: nothing published (the platform database records no build of it into this store)\n`,
    });
  });

  it("an organization's prefix deleted is a break of its own, history-missing, in verify and in audit; --store-only does not see it", async () => {
    const store = await builtStore();
    await rm(join(store, 'orgs', pacific), { recursive: true });
    const all = await run(['verify', '--all'], store);
    expect(all.code).toBe(1);
    expect(all.stdout).toContain(
      `${pacific}: BROKEN at current (history-missing): the store holds no pointer and no manifest of it, yet the platform database records a build of it`,
    );
    expect(all.stdout).toMatch(/\n4 organizations: 3 verified, 1 broken \(history-missing: 1\) in /);
    for (const org of ['pacific-oss', pacific]) {
      const one = await run(['verify', '--org', org, '--json'], store);
      expect(one.code).toBe(1);
      expect(JSON.parse(one.stdout)).toMatchObject({
        ok: false,
        store: `directory ${store}`,
        organizations: [{ organizationId: pacific, break: { snapshotId: 'current', kind: 'history-missing' } }],
      });
    }
    const audit = await run(['audit', '--json'], store);
    expect(audit.code).toBe(1);
    expect(JSON.parse(audit.stdout)).toMatchObject({
      organizations: 4,
      findings: [{ organizationId: pacific, kind: 'missing-history', detail: expect.stringContaining('current (history-missing)') }],
    });
    const storeOnly = await run(['verify', '--all', '--store-only'], store);
    expect(storeOnly).toMatchObject({ code: 0, stdout: expect.stringMatching(/^3 organizations: 3 verified, 0 broken in .*; checked against the store alone \(--store-only\)/) });
    // The example verifier on the store alone sees what --store-only sees; given the log, it names
    // the removal (verify-log.test.ts, verify-s3-cdn.test.ts).
    const example = await verifyHistoryExample(store);
    expectHistoryVerified(example);
    expect(example.stdout).not.toContain(pacific);
  });

  it('an organization in the store that the database does not know (deleted) is verified from the store', async () => {
    const store = await builtStore();
    const deleted = '0d0d0d0d-0000-4000-8000-00000000dead';
    const signer = signerFromPem(newSigningKeyPem(), 'an earlier key');
    await publishSnapshot(new DirectoryStore(store), {
      organizationId: deleted,
      organizationSlug: 'gone',
      state: 'active',
      trigger: 'change',
      resources: [{ path: '/organization', value: { id: deleted, name: 'Gone' } }],
      slugs: {},
      now: new Date(Date.now() - 60_000),
      signer,
    });
    const all = await run(['verify', '--all'], store);
    expect(all, all.stdout).toMatchObject({ code: 0, stdout: expect.stringMatching(/^5 organizations: 5 verified, 0 broken in /) });
    expect(await run(['verify', '--org', deleted], store)).toMatchObject({ code: 0, stdout: expect.stringContaining(`${deleted}: verified, 1 snapshots`) });
    const example = await verifyHistoryExample(store);
    expectHistoryVerified(example);
    expect(example.stdout).toContain(`${deleted}: verified, 1 snapshots`);
  });
});

describe('contentHash is recomputed', () => {
  it('resources edited and signed again by a key record the forger published, keeping the old contentHash, is a break at that snapshot', async () => {
    const store = await builtStore();
    const pointer = JSON.parse(await readFile(join(store, pointerKey(nordic)), 'utf8'));
    const snapshotId: string = pointer.snapshotId;
    const manifest = JSON.parse(await readFile(join(store, manifestKey(nordic, snapshotId)), 'utf8'));
    const forger = signerFromPem(newSigningKeyPem(), 'forger');
    await writeFile(join(store, signingKeyRecordKey(forger.keyId)), canonicalJson(forger.record(new Date(Date.parse(manifest.publishedAt) - 60_000))));
    // /team served from the /organization object: present and whole, so only the manifest lies.
    const { signature: _signature, ...unsigned } = manifest;
    const forged = forger.sign({ ...unsigned, resources: { ...manifest.resources, '/team': manifest.resources['/organization'] } });
    const bytes = canonicalJson(forged);
    await writeFile(join(store, manifestKey(nordic, snapshotId)), bytes);
    await writeFile(join(store, pointerKey(nordic)), canonicalJson({ ...pointer, manifestHash: sha256Hex(bytes) }));

    const one = await run(['verify', '--org', 'nordic-dev'], store);
    expect(one.code).toBe(1);
    expect(one.stdout).toContain(`${nordic}: BROKEN at ${snapshotId} (content-hash-mismatch): its contentHash ${manifest.contentHash} is not `);
    const all = await run(['verify', '--all', '--json'], store);
    expect(all.code).toBe(1);
    expect(JSON.parse(all.stdout).organizations.find((o: { organizationId: string }) => o.organizationId === nordic).break).toMatchObject({
      snapshotId,
      kind: 'content-hash-mismatch',
    });
    const audit = await run(['audit', '--json'], store);
    expect(audit.code).toBe(1);
    expect(JSON.parse(audit.stdout).findings).toContainEqual({
      organizationId: nordic,
      kind: 'broken-history',
      detail: expect.stringContaining(`${snapshotId} (content-hash-mismatch)`),
    });
    expectHistoryBreak(await verifyHistoryExample(store), { organizationId: nordic, at: snapshotId, kind: 'content-hash-mismatch' });
  });
});
