// npm run bench:verify — `marquee verify --all` over a directory store of 1,000 organizations with
// 10 signed snapshots each (BENCH_ORGANIZATIONS, BENCH_SNAPSHOTS), target ≤ 60 s. The history is
// published in this process with the product's own publish (20 events per organization, one of
// them changed per snapshot, as change builds do); the verification is the real CLI in its own
// process, timed from spawn to exit, over the store alone (--store-only: the bench has no platform
// database). Its reference in the same run: `marquee audit` over the same store, which reads every
// object once too.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { mapConcurrently } from '../builder/concurrently.ts';
import { publishSnapshot } from '../builder/publish.ts';
import { newSigningKeyPem, signerFromPem } from '../snapshot/signing.ts';
import { DirectoryStore } from '../snapshot/stores/directory.ts';
import { reportChecks } from './checks.ts';
import { machine } from './machine.ts';

const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 1000);
const SNAPSHOTS = Number(process.env.BENCH_SNAPSHOTS ?? 10);
const EVENTS = 20;
const MARQUEE = fileURLToPath(new URL('../bin/marquee', import.meta.url));
const run = promisify(execFile);

const uuid = (n: number, kind: number) => `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** An organization's resources at snapshot `version`: event `version % EVENTS` is renamed each time. */
function resources(org: string, orgIndex: number, version: number) {
  const events = Array.from({ length: EVENTS }, (_, index) => ({
    id: uuid(orgIndex * EVENTS + index, 2),
    name: `Event ${index}${index === version % EVENTS ? ` (v${version})` : ''}`,
  }));
  return [
    { path: '/organization', value: { id: org, name: `Organization ${orgIndex}` } },
    { path: '/team', value: [{ id: uuid(orgIndex, 3), fullName: 'A. Person' }] },
    { path: '/events', value: events },
    ...events.flatMap((event) => [
      { path: `/events/${event.id}`, value: event },
      { path: `/events/${event.id}/sessions`, value: [{ id: uuid(orgIndex, 4), name: `${event.name} keynote` }] },
    ]),
  ];
}

const work = await mkdtemp(join(tmpdir(), 'marquee-bench-verify-'));
try {
  const storePath = join(work, 'snapshots');
  const store = new DirectoryStore(storePath);
  const signer = signerFromPem(newSigningKeyPem(), 'bench key');
  console.log(machine());
  const started = performance.now();
  const start = Date.UTC(2026, 0, 1);
  await mapConcurrently(
    Array.from({ length: ORGANIZATIONS }, (_, index) => index),
    8,
    async (orgIndex) => {
      const org = uuid(orgIndex, 1);
      for (let version = 0; version < SNAPSHOTS; version++) {
        await publishSnapshot(store, {
          organizationId: org,
          organizationSlug: `org-${orgIndex}`,
          state: 'active',
          trigger: 'change',
          resources: resources(org, orgIndex, version),
          slugs: {},
          now: new Date(start + version * 60_000 + orgIndex),
          signer,
        });
      }
    },
  );
  console.log(
    `history: ${ORGANIZATIONS} organizations × ${SNAPSHOTS} signed snapshots × ${3 + 2 * EVENTS} resources published in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const timed = async (args: string[]) => {
    const began = performance.now();
    const done = await run(MARQUEE, args, { env: { ...process.env, SNAPSHOT_STORE: storePath, MARQUEE_HOME: work }, maxBuffer: 64 << 20 }).catch(
      (error: { code?: number; stdout?: string }) => error,
    );
    return { ms: performance.now() - began, code: 'code' in done && typeof done.code === 'number' ? done.code : 0, stdout: String(done.stdout ?? '') };
  };
  // The store alone: the bench has no platform database to say which organizations were built.
  const verify = await timed(['verify', '--all', '--store-only']);
  const audit = await timed(['audit', '--store-only']);
  console.log(verify.stdout.trim().split('\n').at(-1));
  console.log('\n| command | wall time | ratio |\n|---|---|---|');
  console.log(`| marquee verify --all --store-only | ${(verify.ms / 1000).toFixed(1)} s | ${(verify.ms / audit.ms).toFixed(2)}× audit |`);
  console.log(`| marquee audit --store-only (reference) | ${(audit.ms / 1000).toFixed(1)} s | |`);
  reportChecks([
    ['verify --all exits 0 on an intact history', verify.code === 0],
    ...(ORGANIZATIONS >= 1000 && SNAPSHOTS >= 10 ? ([['verify --all over 1,000 organizations × 10 snapshots ≤ 60 s', verify.ms <= 60_000]] as const) : []),
  ]);
} finally {
  await rm(work, { recursive: true, force: true });
}
