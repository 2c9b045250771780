// npm run bench:build — issue targets: full build ≤ 60 s, unchanged rebuild ≤ 20 s with 0 writes,
// one organization ≤ 0.5 s, peak RSS ≤ 500 MB, on a synthetic platform of 1,000 organizations ×
// 20 events × 10 sessions in a real PostgreSQL started here. Every build runs in a child process
// (bench/build-child.ts) wired like `marquee build`; a read-only pass over the same rows is the
// in-run reference, because this machine is shared and noisy.
import { machine } from './machine.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgres } from '../builder/platform/database/postgres.ts';
import { migrate } from '../builder/platform/migrations.ts';
import { startPostgres } from '../test/support/postgres.ts';
import { measuredBuild } from './measured-build.ts';
import { generateSyntheticPlatform } from './synthetic-platform.ts';

const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 1000);

const postgres = await startPostgres();
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
  const unchanged = await child('build');
  await db.query(`UPDATE events SET name = name || ' (updated)' WHERE id = (SELECT id FROM events WHERE organization_id = $1 AND status = 'published' ORDER BY id LIMIT 1)`, [
    oneOrg,
  ]);
  const oneChanged = await child('build', oneOrg);
  const oneUnchanged = await child('build', oneOrg);
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
    ['one organization, one event renamed', s(oneChanged.wallMs), String(oneChanged.objectsWritten), `${oneChanged.maxRssMb.toFixed(0)} MB`, ''],
    ['one organization, unchanged', s(oneUnchanged.wallMs), String(oneUnchanged.objectsWritten), `${oneUnchanged.maxRssMb.toFixed(0)} MB`, ''],
  ];
  console.log('\n| phase | wall time | objects written | peak RSS | ratio |\n|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  const checks = [
    ['full build ≤ 60 s', full.wallMs <= 60_000],
    ['unchanged rebuild ≤ 20 s', unchanged.wallMs <= 20_000],
    ['unchanged rebuild writes 0 objects', unchanged.objectsWritten === 0],
    ['one organization ≤ 0.5 s', oneChanged.wallMs <= 500],
    ['peak RSS ≤ 500 MB', Math.max(full.maxRssMb, unchanged.maxRssMb) <= 500],
  ] as const;
  console.log('');
  for (const [name, ok] of checks) console.log(`${ok ? 'met ' : 'MISSED'}  ${name}`);
  process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
} finally {
  await postgres.stop();
  await rm(work, { recursive: true, force: true });
}
