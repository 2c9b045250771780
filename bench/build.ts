// npm run bench:build — issue targets: full build ≤ 60 s, unchanged rebuild ≤ 20 s with 0 writes,
// one organization ≤ 0.5 s, peak RSS ≤ 500 MB, on a synthetic platform of 1,000 organizations ×
// 20 events × 10 sessions in a real PostgreSQL started here; and a scheduled run with nothing
// changed ≤ 5 s and ≤ 0.05× the reference, one changed organization found and built by a
// scheduled run ≤ 6 s (targets set at BENCH_ORGANIZATIONS=10000); and a run over every
// organization divided between two builders on Redis beside the same run by one (each organization
// once; wall times reported, no target: this machine has 2 cores). Every build runs in a child
// process (bench/build-child.ts) wired like `marquee build`; a read-only pass over the same rows is
// the in-run reference, because this machine is shared and noisy. Signing (SNAPSHOT_SIGNING_KEY):
// full builds into fresh stores with and without it (SNAPSHOT_SIGNING_KEY=none), alternated, in
// the same run; BENCH_SIGNING=0 leaves them out.
import { reportChecks } from './checks.ts';
import { machine } from './machine.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgres } from '../records/database/postgres.ts';
import { migrate } from '../builder/platform/migrations.ts';
import { databasePublicationLog } from '../records/publication-log/log-store.ts';
import { startPostgres } from '../test/support/postgres.ts';
import { startRedis } from '../test/support/redis.ts';
import { type MeasuredBuild, measuredBuild } from './measured-build.ts';
import { generateSyntheticPlatform } from './synthetic-platform.ts';

const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 1000);

/** Every organization has one result in the divided run, none twice. */
const eachOnce = (run: MeasuredBuild) => run.run === ORGANIZATIONS && run.distinct === ORGANIZATIONS;
const shares = (run: MeasuredBuild) =>
  Object.entries(run.byBuilder ?? {})
    .map(([builder, count]) => `${builder} ${count}`)
    .join(', ');

const [postgres, redis] = await Promise.all([startPostgres(), startRedis({ appendfsync: 'everysec' })]);
const work = await mkdtemp(join(tmpdir(), 'marquee-bench-'));
try {
  const db = await openPostgres(postgres.url);
  await migrate(db);
  const started = performance.now();
  await generateSyntheticPlatform(db, { organizations: ORGANIZATIONS, eventsPerOrganization: 20, sessionsPerEvent: 10 });
  console.log(machine());
  console.log(`synthetic platform: ${ORGANIZATIONS} organizations × 20 events × 10 sessions generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const [{ id: oneOrg }] = (await db.query<{ id: string }>(`SELECT id FROM organizations WHERE status = 'active' ORDER BY id LIMIT 1`)) as [{ id: string }];

  const env = { ...process.env, DATABASE_URL: postgres.url, SNAPSHOT_STORE: join(work, 'snapshots'), MARQUEE_HOME: work };
  const child = (...args: string[]) => measuredBuild(env, ...args);
  const reference = await child('read');
  const full = await child('build');
  // Signed (the default: a key made under MARQUEE_HOME) and unsigned full builds, each into a fresh
  // store, in pairs, the pair's order alternating from round to round: this machine's disk drifts by
  // a fifth between two builds a minute apart (measured), so only a pair's own ratio compares like
  // with like, and the order's own effect (the second build of a pair follows the first's deletion)
  // falls on each kind as often.
  const signing: { signed: MeasuredBuild[]; unsigned: MeasuredBuild[] } = { signed: [], unsigned: [] };
  if (process.env.BENCH_SIGNING !== '0') {
    for (const round of [1, 2, 3, 4]) {
      const unsigned = () => measuredBuild({ ...env, SNAPSHOT_STORE: join(work, `unsigned-${round}`), SNAPSHOT_SIGNING_KEY: 'none' }, 'build');
      const signed = () => measuredBuild({ ...env, SNAPSHOT_STORE: join(work, `signed-${round}`) }, 'build');
      if (round % 2 === 1) {
        signing.unsigned.push(await unsigned());
        signing.signed.push(await signed());
      } else {
        signing.signed.push(await signed());
        signing.unsigned.push(await unsigned());
      }
      await rm(join(work, `unsigned-${round}`), { recursive: true, force: true });
      await rm(join(work, `signed-${round}`), { recursive: true, force: true });
    }
  }
  // What signing costs a build is CPU (a canonical form and a signature per manifest); its wall time
  // here is the disk's and the neighbours' (identical builds ranged from 29 s to 83 s in one run).
  // So the target is judged on the median of the pairs' CPU-time ratios; wall times are printed.
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2;
  };
  const cpuRatios = signing.signed.map((build, round) => build.cpuMs / signing.unsigned[round]!.cpuMs);
  const signingRatio = cpuRatios.length > 0 ? median(cpuRatios) : undefined;
  const roundRatios = cpuRatios.map((ratio) => `${ratio.toFixed(3)}×`).join(', ');
  const wallRatio = signing.signed.length > 0 ? median(signing.signed.map((build, round) => build.wallMs / signing.unsigned[round]!.wallMs)) : undefined;
  // Nothing published, nothing logged: the publication log does not grow over the unchanged runs.
  const logSize = () =>
    databasePublicationLog(db)
      .size()
      .catch(() => 0);
  const loggedBefore = await logSize();
  const unchanged = await child('build');
  const scheduledNothing = await child('scheduled');
  const loggedByUnchanged = (await logSize()) - loggedBefore;
  const renameOne = () =>
    db.query(`UPDATE events SET name = name || ' (updated)' WHERE id = (SELECT id FROM events WHERE organization_id = $1 AND status = 'published' ORDER BY id LIMIT 1)`, [oneOrg]);
  await renameOne();
  const scheduledOne = await child('scheduled');
  await renameOne();
  const oneChanged = await child('build', oneOrg);
  const oneUnchanged = await child('build', oneOrg);
  // A run over every organization, by one builder of a fleet, then divided between two: the
  // second is started first and waits for the run to join.
  const fleet = { ...env, REDIS_URL: redis.url };
  const oneBuilder = await measuredBuild(fleet, 'open', 'builder-a');
  const joining = measuredBuild(fleet, 'join', 'builder-b');
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const [twoBuilders, joined] = await Promise.all([measuredBuild(fleet, 'open', 'builder-a'), joining]);
  await db.close();

  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const rows = [
    ['reference: read every organization (no build)', s(reference.wallMs), '—', `${reference.maxRssMb.toFixed(0)} MB`, '—'],
    ['full build', s(full.wallMs), String(full.objectsWritten), `${full.maxRssMb.toFixed(0)} MB`, `${(full.wallMs / reference.wallMs).toFixed(2)}× reference`],
    [
      'rebuild, nothing changed',
      s(unchanged.wallMs),
      String(unchanged.objectsWritten),
      `${unchanged.maxRssMb.toFixed(0)} MB`,
      `${(unchanged.wallMs / reference.wallMs).toFixed(2)}× reference`,
    ],
    [
      'scheduled run, nothing changed',
      s(scheduledNothing.wallMs),
      String(scheduledNothing.objectsWritten),
      `${scheduledNothing.maxRssMb.toFixed(0)} MB`,
      `${(scheduledNothing.wallMs / reference.wallMs).toFixed(3)}× reference`,
    ],
    [
      'scheduled run, one organization changed',
      s(scheduledOne.wallMs),
      String(scheduledOne.objectsWritten),
      `${scheduledOne.maxRssMb.toFixed(0)} MB`,
      `${scheduledOne.organizations} built`,
    ],
    ...(signingRatio === undefined
      ? []
      : [
          [
            'full build, signed (four, paired with the next row, order alternating)',
            signing.signed.map((build) => `${s(build.wallMs)} (CPU ${s(build.cpuMs)})`).join(', '),
            '',
            '',
            `CPU: median pair ${signingRatio.toFixed(3)}× unsigned (pairs: ${roundRatios}); wall: median pair ${wallRatio!.toFixed(3)}×`,
          ],
          ['full build, unsigned (SNAPSHOT_SIGNING_KEY=none)', signing.unsigned.map((build) => `${s(build.wallMs)} (CPU ${s(build.cpuMs)})`).join(', '), '', '', ''],
        ]),
    ['one organization, one event renamed', s(oneChanged.wallMs), String(oneChanged.objectsWritten), `${oneChanged.maxRssMb.toFixed(0)} MB`, ''],
    ['one organization, unchanged', s(oneUnchanged.wallMs), String(oneUnchanged.objectsWritten), `${oneUnchanged.maxRssMb.toFixed(0)} MB`, ''],
    ['a run over every organization, one builder (Redis work list)', s(oneBuilder.wallMs), '—', `${oneBuilder.maxRssMb.toFixed(0)} MB`, shares(oneBuilder)],
    [
      'the same run, two builders',
      s(twoBuilders.wallMs),
      '—',
      `${Math.max(twoBuilders.maxRssMb, joined.maxRssMb).toFixed(0)} MB each at most`,
      `${(twoBuilders.wallMs / oneBuilder.wallMs).toFixed(2)}× one builder; ${shares(twoBuilders)}`,
    ],
  ];
  console.log('\n| phase | wall time | objects written | peak RSS | ratio |\n|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  // The full-build targets were set for 1,000 organizations, the scheduled-run ratio for 10,000.
  const atThousand = ORGANIZATIONS <= 1_000;
  reportChecks([
    ...(atThousand
      ? ([
          ['full build ≤ 60 s', full.wallMs <= 60_000],
          ['unchanged rebuild ≤ 20 s', unchanged.wallMs <= 20_000],
          ['one organization ≤ 0.5 s', oneChanged.wallMs <= 500],
        ] as const)
      : []),
    ['unchanged rebuild writes 0 objects', unchanged.objectsWritten === 0],
    [`unchanged rebuild and scheduled run log nothing (${loggedByUnchanged} entries)`, loggedByUnchanged === 0],
    ...(signingRatio === undefined ? [] : ([['signed full build within 5 % of unsigned in CPU time (median of four pairs)', signingRatio <= 1.05]] as const)),
    ['scheduled run, nothing changed: ≤ 5 s', scheduledNothing.wallMs <= 5_000],
    // A ratio of fixed costs (a connection, one statement) to a read that grows with the platform:
    // judged at the size the target was set for.
    ...(ORGANIZATIONS >= 10_000 ? ([['scheduled run, nothing changed: ≤ 0.05× reference', scheduledNothing.wallMs <= 0.05 * reference.wallMs]] as const) : []),
    ['scheduled run, nothing changed: reads and builds 0 organizations', scheduledNothing.organizations === 0],
    ['scheduled run, one changed: builds that one alone, ≤ 6 s', scheduledOne.organizations === 1 && scheduledOne.wallMs <= 6_000],
    ['peak RSS ≤ 500 MB', Math.max(full.maxRssMb, unchanged.maxRssMb) <= 500],
    ['a run divided between two builders builds each organization once', eachOnce(twoBuilders) && eachOnce(oneBuilder)],
    ['both builders take a share of it', Object.keys(twoBuilders.byBuilder ?? {}).length === 2 && joined.organizations > 0],
  ]);
} finally {
  await Promise.all([postgres.stop(), redis.stop()]);
  await rm(work, { recursive: true, force: true });
}
