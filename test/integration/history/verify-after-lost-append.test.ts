// A manifest whose publication log append never happened (docs/design.md "The publication log,
// exactly", "Order of writes"), on PostgreSQL 15 with a directory store and the builders' signing
// key: the next build of the organization names it in `supersedes` and logs it with its own
// manifest, so verify (databaseBasis and verifyStore, as `marquee verify --all` runs them) finds no
// break where nobody made one:
// - the append fails because the database restarts under it (the server halted as the append
//   begins, started again after), and the builder goes on: that build fails, the next one mends;
// - the builder is killed between its manifest and its append (a child process, stopped at the
//   append and SIGKILLed): the next build, in this process, mends.
// Until that next build, verify reports the manifest `unlogged`. A manifest someone else put into
// the store, forked from the current one like a stopped publish's but signed by another key, is
// never logged by the next build, and stays `unlogged`.
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuildContext, buildOrganizations } from '../../../builder/build.ts';
import { databaseBasis } from '../../../builder/history/verification-expectations.ts';
import { type StoreVerification, verifyStore } from '../../../builder/history/verify-history.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { SqlBuiltVersions } from '../../../builder/platform/versions.ts';
import { publishSnapshot, readCurrentPointer } from '../../../builder/publish.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { databasePublicationLog, type PublicationLog } from '../../../records/publication-log/log-store.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import { manifestKey } from '../../../snapshot/layout.ts';
import type { Manifest } from '../../../snapshot/manifest.ts';
import { listSnapshotIds } from '../../../snapshot/reader.ts';
import { newSigningKeyPem, signerFromPem } from '../../../snapshot/signing.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { createDatabase, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { sampleBuildContext, seeded } from '../../support/sample-build.ts';
import { until } from '../../support/until.ts';

const nordic = SAMPLE.organizations.nordic.id;
const pem = newSigningKeyPem();

let work: string;
let server: TestPostgres;
let url: string;
let db: SqlClient;
let log: PublicationLog;
let store: DirectoryStore;
/** Every build and publish here is a minute after the one before: snapshot ids sort by time. */
let at = new Date('2026-11-21T12:00:00Z');
const later = () => (at = new Date(at.getTime() + 60_000));
let context: BuildContext;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'marquee-lost-append-'));
  server = await startPostgres();
  url = await createDatabase(server.url, 'lost_append');
  db = await seeded(await openPostgres(url));
  await migrateMarquee(db);
  store = new DirectoryStore(join(work, 'store'));
  log = databasePublicationLog(db);
  context = {
    ...sampleBuildContext(db, store),
    publicationLog: log,
    builtVersions: new SqlBuiltVersions(db, store.description),
    signer: signerFromPem(pem, 'builders'),
    now: () => at,
    concurrency: 1,
  };
  const built = await buildOrganizations(context, { trigger: 'manual' });
  expect(built.map((result) => result.result)).toEqual(['published', 'published', 'suspended', 'suspended']);
}, 120_000);

afterAll(async () => {
  await db?.close();
  await server?.stop();
  await rm(work, { recursive: true, force: true });
});

/** verify --all as the CLI runs it: what the platform database and the publication log expect, then the store. */
async function verifyAll(): Promise<StoreVerification> {
  const { expected, against } = await databaseBasis(db, store);
  expect(against).toContain('every publication its publication log records');
  return verifyStore(store, expected);
}

const broken = ({ organizations }: StoreVerification) =>
  organizations.filter((organization) => !organization.ok).map(({ organizationId, break: found }) => ({ organizationId, snapshotId: found?.snapshotId, kind: found?.kind }));

const neverCurrentOf = ({ organizations }: StoreVerification, orgId: string) => organizations.find((organization) => organization.organizationId === orgId)?.neverCurrent;

const buildNordic = () => buildOrganizations({ ...context, now: later }, { trigger: 'change', organizationIds: [nordic] });

/** The manifests of nordic's in the store that no pointer names and the log does not know. */
async function unloggedOfNordic(): Promise<string[]> {
  const logged = new Set((await log.entriesOf(nordic)).map(({ entry }) => entry.id));
  const current = (await readCurrentPointer(store, nordic)).pointer?.snapshotId;
  return (await listSnapshotIds(store, nordic)).filter((id) => !logged.has(id) && id !== current);
}

const supersedesOf = async (snapshotId: string) =>
  (JSON.parse((await store.get(manifestKey(nordic, snapshotId)))!.toString('utf8')) as Manifest).supersedes?.map((left) => left.snapshotId);

describe('a manifest written whose log append never happened', () => {
  it('the database restarting under the append: the build fails, the next build logs the manifest as never current, and verify finds no break', async () => {
    await db.query(`UPDATE team_members SET title = 'Host' WHERE full_name = 'Mikko Virtanen'`);
    const restarting: PublicationLog = {
      ...log,
      async append(records) {
        await server.halt();
        try {
          return await log.append(records);
        } finally {
          await server.resume();
        }
      },
    };
    const [failed] = await buildOrganizations({ ...context, publicationLog: restarting, now: later }, { trigger: 'change', organizationIds: [nordic] });
    expect(failed).toMatchObject({ result: 'failed', failure: { stage: 'publish', backend: true } });
    const [orphan] = await unloggedOfNordic();
    expect(orphan).toBeDefined();
    expect(broken(await verifyAll())).toEqual([{ organizationId: nordic, snapshotId: orphan, kind: 'unlogged' }]);

    const [rebuilt] = await buildNordic();
    expect(rebuilt).toMatchObject({ result: 'published' });
    expect(await supersedesOf(rebuilt!.snapshotId!)).toEqual([orphan]);
    expect(await unloggedOfNordic()).toEqual([]);
    const verified = await verifyAll();
    expect(broken(verified)).toEqual([]);
    expect(neverCurrentOf(verified, nordic)).toEqual([orphan]);
  });

  it('the builder killed between its manifest and its append: the next build, in another process, logs it, and verify finds no break', async () => {
    const keyFile = join(work, 'signing-key.pem');
    const inputFile = join(work, 'killed-input.json');
    await writeFile(keyFile, pem);
    await writeFile(
      inputFile,
      JSON.stringify({
        organizationId: nordic,
        organizationSlug: 'nordic-dev',
        state: 'active',
        trigger: 'change',
        resources: [{ path: '/organization', value: { id: nordic, name: 'Never current' } }],
        slugs: {},
        now: later().toISOString(),
      }),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/publish-killed-at-append.ts', join(work, 'store'), url, keyFile, inputFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await until('the child publish at its append', () => output.includes('appending') || (child.exitCode !== null && Promise.reject(new Error(output))), {
      timeoutMs: 30_000,
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const [killed] = await unloggedOfNordic();
    expect(killed).toBeDefined();
    expect(broken(await verifyAll())).toEqual([{ organizationId: nordic, snapshotId: killed, kind: 'unlogged' }]);

    // The platform's rows are as the current snapshot has them: a build that would be unchanged publishes to name it.
    const [rebuilt] = await buildNordic();
    expect(rebuilt).toMatchObject({ result: 'published' });
    expect(await supersedesOf(rebuilt!.snapshotId!)).toEqual([killed]);
    expect(await unloggedOfNordic()).toEqual([]);
    const verified = await verifyAll();
    expect(broken(verified)).toEqual([]);
    expect(neverCurrentOf(verified, nordic)).toContain(killed);
  }, 60_000);

  it('a manifest someone else put into the store, forked from the current one but signed by another key, is never logged by the next build and stays unlogged', async () => {
    const elsewhere = join(work, 'elsewhere');
    await cp(join(work, 'store'), elsewhere, { recursive: true });
    const planted = await publishSnapshot(new DirectoryStore(elsewhere), {
      organizationId: nordic,
      organizationSlug: 'nordic-dev',
      state: 'active',
      trigger: 'change',
      resources: [{ path: '/organization', value: { id: nordic, name: 'Planted' } }],
      slugs: {},
      now: later(),
      signer: signerFromPem(newSigningKeyPem(), 'elsewhere'),
    });
    await cp(join(elsewhere, manifestKey(nordic, planted.snapshotId!)), join(work, 'store', manifestKey(nordic, planted.snapshotId!)));

    await db.query(`UPDATE team_members SET title = 'Speaker' WHERE full_name = 'Mikko Virtanen'`);
    const [rebuilt] = await buildNordic();
    expect(rebuilt).toMatchObject({ result: 'published' });
    expect(await unloggedOfNordic()).toEqual([planted.snapshotId]);
    expect(broken(await verifyAll())).toEqual([{ organizationId: nordic, snapshotId: planted.snapshotId, kind: 'unlogged' }]);
  });
});
