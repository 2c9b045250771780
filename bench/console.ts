// npm run bench:console — the console's organizations page at fleet scale (issue 49): 100,000
// organizations (BENCH_ORGANIZATIONS) on PostgreSQL 15 (started here), half of them published in a
// snapshot directory, every one with a last build in the runs' record (one full run recorded the
// way every run is, through the trigger of migration 13, whose cost is printed too).
//
// Measured on one admin app in this process with the real console and the real credential check,
// as a person's browser asks: one request at a time, each kind in turn every round so a noisy
// neighbour hits them alike. Kinds: the first page, a page in the middle of the list (after the
// 50,000th slug), a search that finds a few hundred, a search that finds none (the whole relation
// read), and, as the reference, GET /healthz of the same app (the HTTP stack alone). Medians and
// p95; target p95 ≤ 200 ms for each page. Not a timed test: it prints figures and verdicts.
//
//   node --import tsx bench/console.ts [--rounds 20] [--requests 10]
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createAdminApp } from '../admin/app.ts';
import { consoleRouter } from '../admin/console/router.ts';
import { createAdminServices } from '../admin/services.ts';
import { migrate } from '../builder/platform/migrations.ts';
import { type BuildRun, BuildRuns } from '../builder/runs/build-runs.ts';
import { DEFAULT_DISABLE_AFTER_MS, DEFAULT_RETRY_DELAYS_MS } from '../builder/webhooks/webhook-policy.ts';
import { WebhookStore } from '../builder/webhooks/webhook-store.ts';
import { answerAsOf } from '../gateway/as-of.ts';
import { openPostgres } from '../records/database/postgres.ts';
import { PostgresKeyStore } from '../records/keys/postgres-key-store.ts';
import { DatabaseRunRecord } from '../records/runs/run-record.ts';
import { databaseAuditTrail } from '../records/trail/audit-trail.ts';
import { pointerKey } from '../snapshot/layout.ts';
import { SNAPSHOT_FORMAT, serializePointer } from '../snapshot/manifest.ts';
import { DirectoryStore } from '../snapshot/stores/directory.ts';
import { startPostgres } from '../test/support/postgres.ts';
import { RecordingLog } from '../test/support/recording-log.ts';
import { reportChecks } from './checks.ts';
import { machine } from './machine.ts';

const option = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  const value = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} takes a whole number ≥ 1`);
  return value;
};
const ROUNDS = option('--rounds', 20);
const REQUESTS = option('--requests', 10);
const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 100_000);
const TARGET_MS = 200;
const TOKEN = 'bench-console-token-0123456789abcdef';
// Names an operator would search: a place and a kind, then a number, as platforms' organizations are named.
const PLACES = [
  'Nordic',
  'Pacific',
  'Harbor',
  'Alpine',
  'Baltic',
  'Coastal',
  'Desert',
  'Eastern',
  'Forest',
  'Garden',
  'Highland',
  'Island',
  'Lakeside',
  'Metro',
  'Northern',
  'Oak',
  'Prairie',
  'River',
  'Summit',
  'Valley',
];
const KINDS = ['Developers', 'Meetups', 'Makers', 'Guild', 'Society', 'Collective', 'Conference', 'Festival', 'Forum', 'Network'];

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;
async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await work();
  return [value, performance.now() - start];
}

console.log(`bench:console — ${machine()}`);
const postgres = await startPostgres();
const home = await mkdtemp(join(tmpdir(), 'marquee-bench-console-'));
const db = await openPostgres(postgres.url);
try {
  await migrate(db);
  const [, filled] = await timed(async () => {
    const array = (words: readonly string[]) => `ARRAY[${words.map((word) => `'${word}'`).join(', ')}]`;
    // As bench/synthetic-platform.ts fills it: without the change triggers, which would queue a
    // notification and a source version per row.
    await db.transaction(async (tx) => {
      await tx.exec('SET LOCAL session_replication_role = replica');
      await tx.query(`
      INSERT INTO organizations (name, slug)
      SELECT place || ' ' || kind || ' ' || n, lower(place) || '-' || lower(kind) || '-' || n
      FROM generate_series(1, ${ORGANIZATIONS}) AS n,
      LATERAL (SELECT (${array(PLACES)})[1 + n % ${PLACES.length}] AS place, (${array(KINDS)})[1 + (n / ${PLACES.length}) % ${KINDS.length}] AS kind) AS words`);
    });
    await db.query('ANALYZE organizations');
  });
  const organizations = await db.query<{ id: string; slug: string }>('SELECT id, slug FROM organizations ORDER BY slug');
  console.log(`platform filled: ${organizations.length.toLocaleString('en')} organizations in ${ms(filled)}`);

  // One organization in ten published: a page reads each row's pointer, found or not, at the same cost.
  const store = new DirectoryStore(join(home, 'snapshots'));
  const publishedAt = new Date().toISOString();
  const published = organizations.filter((_, index) => index % 10 === 0);
  const [, writing] = await timed(async () => {
    for (let first = 0; first < published.length; first += 500) {
      await Promise.all(
        published.slice(first, first + 500).map(({ id }) =>
          store.put(
            pointerKey(id),
            serializePointer({
              format: SNAPSHOT_FORMAT,
              organizationId: id,
              state: 'active',
              snapshotId: '20261201T000000000Z-0123456789ab',
              manifestHash: 'a'.repeat(64),
              publishedAt,
            }).bytes,
          ),
        ),
      );
    }
  });
  console.log(`pointers written: ${published.length.toLocaleString('en')} in ${ms(writing)}`);

  // One run over every organization, recorded as a builder records it: its end keeps each one's last build.
  const record = new DatabaseRunRecord<BuildRun>(db);
  const run: BuildRun = {
    id: '00000000-0000-4000-8000-00000000bench',
    trigger: 'schedule',
    requestedBy: 'schedule',
    scope: 'every',
    state: 'finished',
    done: organizations.length,
    total: organizations.length,
    skipped: 0,
    queuedAt: publishedAt,
    startedAt: publishedAt,
    finishedAt: new Date().toISOString(),
    organizations: organizations.map(({ id, slug }, index) => ({ id, slug, result: index % 2 === 0 ? 'published' : 'unchanged', builder: 'bench' })),
  };
  // The same value written as a run under way (the trigger does not fire), then removed: what the trigger adds.
  const [, written] = await timed(() => record.save({ ...run, id: `${run.id}-under-way`, state: 'running' }));
  await db.query('DELETE FROM marquee_run_records WHERE id = $1', [`${run.id}-under-way`]);
  const [, recorded] = await timed(() => record.save(run));
  const [{ kept } = { kept: 0 }] = await db.query<{ kept: number }>('SELECT count(*)::int4 AS kept FROM marquee_last_builds');
  console.log(
    `a run over ${organizations.length.toLocaleString('en')} organizations recorded at its end in ${ms(recorded)} (${kept.toLocaleString('en')} last builds kept), the same value written as under way, without the trigger: ${ms(written)}`,
  );

  const runs = new BuildRuns({ record });
  const services = createAdminServices({
    db,
    store,
    keys: new PostgresKeyStore(db),
    webhooks: {
      store: new WebhookStore(db),
      policy: { allowPrivate: false, allowInsecure: false, retryDelaysMs: DEFAULT_RETRY_DELAYS_MS, disableAfterMs: DEFAULT_DISABLE_AFTER_MS },
    },
    runs,
    builds: { queue: () => ({ run: undefined as never, results: Promise.resolve() }) },
    trail: databaseAuditTrail(db),
    onBuildError: () => {},
    answerAsOf,
  });
  const log = new RecordingLog();
  const app = createAdminApp({
    token: TOKEN,
    registry: new Registry(),
    readiness: () => ({ status: 'ready', backends: {} }),
    log,
    services,
    console: consoleRouter(services, { log }),
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const middle = organizations[Math.floor(organizations.length / 2)]!.slug;
  const kinds = {
    reference: '/healthz',
    first: '/organizations',
    middle: `/organizations?after=${encodeURIComponent(middle)}`,
    'search, some found': '/organizations?search=summit-festival',
    'search, none found': '/organizations?search=no-such-organization',
  } as const;
  type Kind = keyof typeof kinds;
  const rowsOf = (html: string) => (html.match(/<th scope="row">/g) ?? []).length;
  const shown = new Map<Kind, string>();
  const timings = new Map<Kind, number[]>(Object.keys(kinds).map((kind) => [kind as Kind, []]));
  const send = async (kind: Kind, keep: boolean) => {
    for (let index = 0; index < REQUESTS; index++) {
      const [html, took] = await timed(async () => {
        const answer = await fetch(`${origin}${kinds[kind]}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
        if (answer.status !== 200) throw new Error(`${kinds[kind]} answered ${answer.status}`);
        return answer.text();
      });
      if (keep) timings.get(kind)!.push(took);
      if (kind !== 'reference') shown.set(kind, `${rowsOf(html)} rows, ${(html.length / 1024).toFixed(0)} KB; ${/<p id="organization-count">([^<]*)/.exec(html)?.[1] ?? ''}`);
    }
  };
  const order = Object.keys(kinds) as Kind[];
  for (const kind of order) await send(kind, false); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of round % 2 === 0 ? order : [...order].reverse()) await send(kind, true);
  }

  // What the page did before it was paged: every organization with its pointer and last build.
  const [all, listed] = await timed(() => services.organizations.list());
  server.close();

  console.log(`\n${ROUNDS} rounds × ${REQUESTS} sequential requests of each kind, ${organizations.length.toLocaleString('en')} organizations`);
  const reference = timings.get('reference')!;
  for (const kind of order) {
    const values = timings.get(kind)!;
    const ratio = kind === 'reference' ? '' : `  (${(percentile(values, 50) / percentile(reference, 50)).toFixed(1)}× the reference's median)`;
    console.log(
      `${kind.padEnd(20)} p50 ${ms(percentile(values, 50)).padStart(9)}  p95 ${ms(percentile(values, 95)).padStart(9)}${ratio}${shown.has(kind) ? `\n${''.padEnd(20)} ${shown.get(kind)}` : ''}`,
    );
  }
  console.log(`every organization at once (the unpaged list the page used to render): ${all.length.toLocaleString('en')} in ${ms(listed)}, once`);

  const pageKinds = order.filter((kind) => kind !== 'reference');
  reportChecks([
    ...pageKinds.map((kind) => [`${kind}: p95 ${ms(percentile(timings.get(kind)!, 95))} ≤ ${TARGET_MS} ms`, percentile(timings.get(kind)!, 95) <= TARGET_MS] as const),
    [`every page shows at most 50 organizations`, [...shown.values()].every((line) => Number(line.split(' ')[0]) <= 50)],
    [`the searches found what they should: some, then none`, shown.get('search, some found')!.startsWith('50 rows') && shown.get('search, none found')!.startsWith('0 rows')],
  ]);
} finally {
  await db.close();
  await postgres.stop();
  await rm(home, { recursive: true, force: true });
}
