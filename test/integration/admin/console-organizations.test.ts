// The organizations list at fleet scale (issue 49, "a console for a fleet"): the console's page and
// the admin API's listing over a real PostgreSQL, paged by keyset and searched on the server, and
// each organization's last build read from the runs' record, so that two builders' consoles show
// the same one whichever process ran it. Two admin apps in this process stand for two builders: each
// has its own BuildRuns (a process's live runs) over its own record of the same database, and the
// builds run through a third, as `marquee build` runs them, or through one of the two.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminApp } from '../../../admin/app.ts';
import { consoleRouter } from '../../../admin/console/router.ts';
import { createAdminServices } from '../../../admin/services.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { recordedBuild } from '../../../builder/runs/recorded-build.ts';
import { BuildRuns } from '../../../builder/runs/build-runs.ts';
import { DEFAULT_DISABLE_AFTER_MS, DEFAULT_RETRY_DELAYS_MS } from '../../../builder/webhooks/webhook-policy.ts';
import { WebhookStore } from '../../../builder/webhooks/webhook-store.ts';
import { answerAsOf } from '../../../gateway/as-of.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { PostgresKeyStore } from '../../../records/keys/postgres-key-store.ts';
import { DatabaseRunRecord } from '../../../records/runs/run-record.ts';
import { databaseAuditTrail } from '../../../records/trail/audit-trail.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { adminContractFetch } from '../../support/admin-contract.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { sampleBuildContext, seeded } from '../../support/sample-build.ts';

const TOKEN = 'console-organizations-token-0123456789';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
/** Beside the sample's four: three console pages of 50. */
const FLEET = 120;
const PERCENT = { slug: 'hundred-percent', name: '100% Conference' };

let postgres: TestPostgres;
let db: SqlClient;
const store = new MemoryStore();
/** Two builders' admin ports: each with its own live runs. */
const builders: Array<{ server: Server; url: string; runs: BuildRuns }> = [];
/** Every slug as the database orders them. */
let slugs: string[];
const fetchChecked = adminContractFetch(() => builders[0]!.url);

beforeAll(async () => {
  postgres = await startPostgres();
  db = await seeded(await openPostgres(postgres.url));
  await db.query(
    `INSERT INTO organizations (name, slug) SELECT 'Fleet Organization ' || lpad(n::text, 3, '0'), 'fleet-' || lpad(n::text, 3, '0') FROM generate_series(1, ${FLEET}) AS n`,
  );
  await db.query('INSERT INTO organizations (name, slug) VALUES ($1, $2)', [PERCENT.name, PERCENT.slug]);
  slugs = (await db.query<{ slug: string }>('SELECT slug FROM organizations ORDER BY slug')).map((row) => row.slug);
  for (let index = 0; index < 2; index++) {
    const runs = new BuildRuns({ record: new DatabaseRunRecord(db) });
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
    builders.push({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, runs });
  }
}, 120_000);

afterAll(async () => {
  for (const { server } of builders) await new Promise((resolve) => server.close(resolve));
  await db?.close();
  await postgres?.stop();
});

async function html(path: string, builder = 0): Promise<string> {
  const answer = await fetch(`${builders[builder]!.url}${path}`, { headers: AUTH });
  expect(answer.status, path).toBe(200);
  return answer.text();
}

/** The organizations table's rows as the text of their cells; none when the page has no table. */
function rows(page: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, row]) =>
    [...row!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map(([, cell]) =>
      cell!
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}

/** The slug of each row (the first cell is the name, then the slug). */
const slugsOf = (page: string) => [...page.matchAll(/<th scope="row">[\s\S]*?<span class="slug">([^<]+)<\/span><\/th>/g)].map(([, slug]) => slug!);

/** The pager's link with `rel`, as a path to fetch; undefined when the page has none. */
function pagerLink(page: string, rel: 'prev' | 'next'): string | undefined {
  const href = new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(page)?.[1];
  return href?.replaceAll('&amp;', '&');
}

const summaryOf = (page: string) =>
  /<p id="organization-count">([\s\S]*?)<\/p>/
    .exec(page)![1]!
    .replace(/<[^>]+>/g, '')
    .trim();

describe('the organizations page', () => {
  it('pages every organization by slug, 50 a page, with next and previous links that walk the whole list once', async () => {
    const first = await html('/organizations');
    expect(summaryOf(first)).toBe(`${slugs.length} organizations, 50 a page, by slug.`);
    expect(slugsOf(first)).toEqual(slugs.slice(0, 50));
    expect(pagerLink(first, 'prev')).toBeUndefined();
    const walked = [...slugsOf(first)];
    const visited = [first];
    let next = pagerLink(first, 'next');
    while (next !== undefined) {
      const page = await html(next);
      visited.push(page);
      walked.push(...slugsOf(page));
      next = pagerLink(page, 'next');
    }
    expect(walked).toEqual(slugs);
    expect(visited.map((page) => slugsOf(page).length)).toEqual([50, 50, slugs.length - 100]);
    // Back from the last page: the middle one again, exactly.
    const back = await html(pagerLink(visited[2]!, 'prev')!);
    expect(slugsOf(back)).toEqual(slugsOf(visited[1]!));
    expect(pagerLink(back, 'next')).toBe(pagerLink(visited[1]!, 'next'));
    expect(await html(pagerLink(back, 'prev')!).then(slugsOf)).toEqual(slugs.slice(0, 50));
  });

  it('finds organizations by part of the slug or the name, whatever its case, and pages what it finds', async () => {
    const tens = await html(`/organizations?search=${encodeURIComponent('FLEET-01')}`);
    expect(slugsOf(tens)).toEqual(Array.from({ length: 10 }, (_, n) => `fleet-01${n}`));
    expect(summaryOf(tens)).toBe('10 organizations match “FLEET-01”.');
    expect(pagerLink(tens, 'next')).toBeUndefined();
    expect(slugsOf(await html('/organizations?search=developer'))).toEqual(['nordic-dev']);
    expect(slugsOf(await html('/organizations?search=town-meet'))).toEqual(['old-town-meetups']);
    // The text is matched as typed: % and _ are characters, not patterns.
    const percent = await html('/organizations?search=%25');
    expect(slugsOf(percent)).toEqual([PERCENT.slug]);
    expect(summaryOf(percent)).toBe('1 organization matches “%”.');
    expect(slugsOf(await html('/organizations?search=_'))).toEqual([]);
    const none = await html('/organizations?search=nothing-like-it');
    expect(summaryOf(none)).toBe('0 organizations match “nothing-like-it”. Every organization');
    expect(none).not.toContain('<table>');

    const fleet = await html('/organizations?search=Organization');
    // Not counted past a page: that would read the whole relation again.
    expect(summaryOf(fleet)).toBe('More than 50 organizations match “Organization”, 50 a page, by slug.');
    const next = pagerLink(fleet, 'next')!;
    expect(new URL(next, 'http://x').searchParams.get('search')).toBe('Organization');
    const second = await html(next);
    expect(slugsOf(second)).toEqual(Array.from({ length: 50 }, (_, n) => `fleet-${String(n + 51).padStart(3, '0')}`));
  });

  it('has a search form a keyboard and a screen reader can use, and a pager named as such', async () => {
    const page = await html('/organizations?search=fleet');
    expect(page).toMatch(/<form method="get" action="\/organizations" role="search"/);
    expect(page).toContain('<label for="organization-search">Find organizations</label>');
    expect(page).toMatch(/<input id="organization-search" name="search" type="search" value="fleet" maxlength="200" aria-describedby="organization-search-help">/);
    expect(page).toContain('id="organization-search-help"');
    expect(page).toMatch(/<nav class="pager" aria-label="Pages of organizations">\s*<ul>/);
    // A search that is markup is shown as text.
    const hostile = await html(`/organizations?search=${encodeURIComponent('<script>x</script>')}`);
    expect(hostile).toContain('value="&lt;script&gt;x&lt;/script&gt;"');
    expect(hostile).not.toContain('<script>x');
  });
});

describe('the last build', () => {
  it('is the same on every builder, whichever process ran it, from the runs’ record', async () => {
    const nordic = SAMPLE.organizations.nordic;
    const harbor = SAMPLE.organizations.harbor;
    const context = sampleBuildContext(db, store);
    const log = new RecordingLog();
    const lastBuildCell = async (slug: string, builder: number) => rows(await html(`/organizations?search=${slug}`, builder)).find((cells) => cells[0]!.endsWith(slug))![4]!;
    expect(await lastBuildCell(nordic.slug, 1)).toBe('none yet');
    // Another process (`marquee build`): a record of its own, runs of its own.
    const cli = new BuildRuns({ record: new DatabaseRunRecord(db) });
    await recordedBuild({ context, runs: cli, log, builder: 'cli' }, 'manual', [nordic.id, harbor.id], cli.queued('manual', [nordic.id, harbor.id]).id);
    await cli.flush();
    // The first builder, for the second.
    const own = builders[0]!.runs;
    const run = own.queued('change', [nordic.id]);
    await recordedBuild({ context, runs: own, log, builder: 'builder-1' }, 'change', [nordic.id], run.id);
    await own.flush();
    for (const builder of [0, 1]) {
      const cell = await lastBuildCell(nordic.slug, builder);
      expect(cell, `builder ${builder}`).toMatch(/^unchanged (just now|.+ ago)$/);
      expect(await html(`/organizations?search=${nordic.slug}`, builder)).toContain(`href="/builds/${run.id}"`);
      expect(await lastBuildCell(harbor.slug, builder)).toMatch(/^suspended /);
    }
    const listed = async (builder: number) =>
      (await (await fetchChecked(`${builders[builder]!.url}/admin/v1/organizations?search=${nordic.slug}`, { headers: AUTH })).json()) as Array<{ lastBuild: unknown }>;
    expect((await listed(0))[0]!.lastBuild).toEqual((await listed(1))[0]!.lastBuild);
    expect((await listed(1))[0]!.lastBuild).toMatchObject({ runId: run.id, result: 'unchanged' });
  });

  it('keeps the latest end: an older run recorded later changes nothing, and a result given twice in one run is its later one', async () => {
    const id = 'last-build-test-org';
    const record = (runId: string, finishedAt: string, results: Array<{ result: string; error?: string }>) =>
      db.query(`INSERT INTO marquee_run_records (id, queued_at, state, run) VALUES ($1, $2, 'finished', $3::jsonb)`, [
        runId,
        finishedAt,
        JSON.stringify({ id: runId, state: 'finished', queuedAt: finishedAt, finishedAt, organizations: results.map((result) => ({ id, slug: id, builder: 'b', ...result })) }),
      ]);
    const kept = async () =>
      (await db.query<{ run_id: string; result: string; error: string | null }>('SELECT run_id, result, error FROM marquee_last_builds WHERE organization_id = $1', [id]))[0];
    await record('run-newer', '2026-11-30T10:00:00.000Z', [{ result: 'failed', error: 'read failed' }, { result: 'published' }]);
    expect(await kept()).toEqual({ run_id: 'run-newer', result: 'published', error: null });
    await record('run-older', '2026-11-30T09:00:00.000Z', [{ result: 'failed', error: 'read failed' }]);
    expect(await kept()).toEqual({ run_id: 'run-newer', result: 'published', error: null });
    await record('run-newest', '2026-11-30T11:00:00.000Z', [{ result: 'failed', error: 'read failed' }]);
    expect(await kept()).toEqual({ run_id: 'run-newest', result: 'failed', error: 'read failed' });
  });
});

describe('the admin API’s organizations', () => {
  const list = async (query = '') => {
    const answer = await fetchChecked(`${builders[0]!.url}/admin/v1/organizations${query}`, { headers: AUTH });
    return { status: answer.status, body: (await answer.json()) as Array<{ slug: string }> };
  };

  it('lists every organization without a query, as before paging, and pages by limit and after', async () => {
    const every = await list();
    expect(every.status).toBe(200);
    expect(every.body.map((org) => org.slug)).toEqual(slugs);
    const pages: string[][] = [];
    let after: string | undefined;
    for (;;) {
      const page = await list(`?limit=40${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`);
      if (page.body.length === 0) break;
      pages.push(page.body.map((org) => org.slug));
      after = page.body.at(-1)!.slug;
    }
    expect(pages.flat()).toEqual(slugs);
    expect(pages.map((page) => page.length)).toEqual([40, 40, 40, slugs.length - 120]);
    expect((await list(`?limit=3&before=${encodeURIComponent(slugs[10]!)}`)).body.map((org) => org.slug)).toEqual(slugs.slice(7, 10));
    expect((await list('?search=FLEET-11&limit=5')).body.map((org) => org.slug)).toEqual(['fleet-110', 'fleet-111', 'fleet-112', 'fleet-113', 'fleet-114']);
  });

  it('refuses a page asked for by both ends, or by a limit that is not a number', async () => {
    expect((await list('?after=a&before=b')).status).toBe(400);
    expect((await list('?limit=ten')).status).toBe(400);
  });
});

describe('a search’s candidates, found in memory', () => {
  it('never shows what no longer matches, and finds an organization created since once the names are read again', async () => {
    expect(slugsOf(await html('/organizations?search=%25'))).toEqual([PERCENT.slug]);
    // Renamed: the names in memory still say 100%, the database decides.
    await db.query('UPDATE organizations SET name = $1 WHERE slug = $2', ['Whole Conference', PERCENT.slug]);
    expect(slugsOf(await html('/organizations?search=%25'))).toEqual([]);
    await db.query('INSERT INTO organizations (name, slug) VALUES ($1, $2)', ['Newcomer Society', 'zeta-newcomer']);
    // Read again in the background once the names are a few seconds old; each search asks.
    await expect.poll(async () => slugsOf(await html('/organizations?search=newcomer')), { timeout: 20_000, interval: 500 }).toEqual(['zeta-newcomer']);
    expect(slugsOf(await html('/organizations?search=whole'))).toEqual([PERCENT.slug]);
  });
});
