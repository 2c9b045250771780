// examples/eleventy-site as an organization's static site builds it with Eleventy, against the real
// `marquee serve` process (docs/api.md §10, "One build, one snapshot"):
//   - a publish lands while a build is between two pages of /events (the organization has 250
//     events, three pages of 100), renaming, unpublishing and adding events: the build, pinned to
//     its first answer's snapshot, writes one snapshot's site — every listed event has its page,
//     none twice, every name from that snapshot — and the state file names it; when the pinned
//     snapshot can no longer be read (409), it starts over and writes the new snapshot's site;
//   - the next builds follow GET /changes?since=: a renamed event rewrites its page and the index
//     and nothing else (every other file keeps its bytes and mtime), an unpublished event's page is
//     deleted (run as the README says, with each Node line at hand), and a since the platform no
//     longer keeps (410) reads everything again yet rewrites nothing that did not change;
//   - nextClockChangeAt is recorded as the API says it, and the next rebuild is due then; when the
//     clock alone moves an event to ongoing (nothing published), the next build rewrites its page and
//     the index.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, type BuildReport, buildSite, nextRebuildDelay, type State } from '../../../examples/eleventy-site/build.mjs';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { API, publishFixture } from '../../support/gateway-fixtures.ts';
import { nodeLines } from '../../support/node-lines.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';
import { startServedGateway, type ServedGateway } from '../../support/served-gateway.ts';

const EXAMPLE = fileURLToPath(new URL('../../../examples/eleventy-site/', import.meta.url));
const EVENTS = 250;
const DAY = 86_400_000;
/** The gateway's default pin window (SNAPSHOT_PIN_SECONDS). */
const PIN_WINDOW_MS = 600_000;

const site = new PlatformFixture({ name: 'Harbor Sites', slug: 'harbor-sites' });
// Two events in the past, then 250 to come, a day apart (the list is ordered by start).
for (let i = 1; i <= 2; i++) site.event({ name: `Retro ${i}`, slug: `retro-${i}`, startsAt: `2020-0${i}-01T17:00:00Z`, endsAt: `2020-0${i}-01T20:00:00Z` });
for (let i = 1; i <= EVENTS; i++) {
  const startsAt = new Date(Date.UTC(2030, 0, 1, 17) + i * DAY).toISOString();
  site.event({
    name: `Meetup ${String(i).padStart(3, '0')}`,
    slug: `meetup-${String(i).padStart(3, '0')}`,
    startsAt,
    endsAt: new Date(Date.parse(startsAt) + 3 * 3_600_000).toISOString(),
  });
}
const ada = site.speaker({ name: 'Ada Lovelace', company: 'Analytical Engines' });
const opening = site.session(site.events[2]!, { name: 'Opening talk', startsAt: '2030-01-02T17:00:00Z', endsAt: '2030-01-02T18:00:00Z' });
site.bill(opening, ada);
site.place(site.events[2]!, site.sponsor({ name: 'Harbor Bank' }), { tier: 'Gold' });
site.teamMember({ fullName: 'Mikko Virtanen', title: 'Organizer' });

let served: ServedGateway;
let store: DirectoryStore;
/** Keys have separate rate allowances (600 requests a minute): one per builder (the second also watches the gateway). */
let keys: { pinned: string; restarting: string };
let work: string;
/** The snapshot `startServedGateway` published. */
let first: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'marquee-eleventy-site-'));
  served = await startServedGateway([site]);
  // The directory store `serve` reads (it says which when it starts): publishing into it is a publish.
  store = new DirectoryStore(/serving snapshots from directory ([^\s"]+)/.exec(served.output())![1]!);
  const pinned = await served.createKey('harbor-sites', { label: 'eleventy pinned' });
  const restarting = await served.createKey('harbor-sites', { label: 'eleventy restarting' });
  keys = { pinned: pinned.key, restarting: restarting.key };
  first = await servedSnapshot();
}, 120_000);

afterAll(async () => {
  await served?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** The snapshot the gateway answers from now, unpinned. */
async function servedSnapshot(): Promise<string> {
  const response = await fetch(`${served.api}/organization`, { headers: { 'X-Api-Key': keys.restarting } });
  await response.arrayBuffer();
  expect(response.status).toBe(200);
  return response.headers.get('marquee-snapshot-id')!;
}

/**
 * Changes the fixture and publishes it, as the builder would, at `now` (a publish's instant is
 * when its predecessor stopped being current, which the pin window counts from); resolves once
 * `serve` answers from it (it re-reads the store's pointer within about a second).
 */
async function publish(change: () => void, now = new Date()): Promise<string> {
  change();
  const { snapshotId } = await publishFixture(store, site, { now });
  expect(snapshotId).toBeDefined();
  await expect.poll(servedSnapshot, { timeout: 10_000, interval: 50 }).toBe(snapshotId);
  return snapshotId!;
}

const build = (outDir: string, key: string, options: { onAnswer?: (answer: Answer) => void | Promise<void> } = {}): Promise<BuildReport> =>
  buildSite({ url: served.url, key, outDir, log: () => {}, ...options });

/** The published events' names, as a publish of the fixture now lists them. */
const publishedNames = () =>
  site.events
    .filter((event) => event.status === 'published')
    .map((event) => event.name)
    .sort();

interface Listed {
  href: string;
  name: string;
}

/** The events the index lists, and each event page's heading. */
async function readSite(outDir: string): Promise<{ listed: Listed[]; headings: Map<string, string>; eventDirs: string[] }> {
  const index = await readFile(join(outDir, 'index.html'), 'utf8');
  const listed = [...index.matchAll(/<li class="event">\s*<a href="([^"]+)">([^<]+)<\/a>/g)].map((match) => ({ href: match[1]!, name: match[2]! }));
  const eventDirs = (await readdir(join(outDir, 'events'))).sort();
  const headings = new Map<string, string>();
  for (const dir of eventDirs) {
    const page = await readFile(join(outDir, 'events', dir, 'index.html'), 'utf8');
    headings.set(`/events/${dir}/`, /<h1>([^<]+)<\/h1>/.exec(page)![1]!);
  }
  return { listed, headings, eventDirs };
}

/** Asserts that `outDir` is one snapshot's site: the one whose event names are `names`. */
async function expectOneSnapshot(outDir: string, names: string[]): Promise<void> {
  const { listed, headings } = await readSite(outDir);
  // No event twice, every listed event with its page and only those, each page's name the list's.
  expect(new Set(listed.map((event) => event.href)).size).toBe(listed.length);
  expect([...headings.keys()].sort()).toEqual(listed.map((event) => event.href).sort());
  for (const event of listed) expect(headings.get(event.href), event.href).toBe(event.name);
  expect(listed.map((event) => event.name).sort()).toEqual(names);
}

const readState = async (outDir: string): Promise<State> => JSON.parse(await readFile(`${outDir}.marquee.json`, 'utf8')) as State;

/** Every file of the output: its bytes and its mtime. */
async function files(outDir: string): Promise<Map<string, { bytes: string; mtimeMs: number }>> {
  const found = new Map<string, { bytes: string; mtimeMs: number }>();
  for (const entry of await readdir(outDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    found.set(path.slice(outDir.length + 1), { bytes: await readFile(path, 'utf8'), mtimeMs: (await stat(path)).mtimeMs });
  }
  return found;
}

/** Files whose bytes or mtime differ, and those added or gone. */
function compare(before: Map<string, { bytes: string; mtimeMs: number }>, after: Map<string, { bytes: string; mtimeMs: number }>) {
  const rewritten = [...after.keys()].filter(
    (file) => before.has(file) && (before.get(file)!.bytes !== after.get(file)!.bytes || before.get(file)!.mtimeMs !== after.get(file)!.mtimeMs),
  );
  return {
    rewritten: rewritten.sort(),
    added: [...after.keys()].filter((file) => !before.has(file)).sort(),
    gone: [...before.keys()].filter((file) => !after.has(file)).sort(),
  };
}

const isFirstListPage = (answer: Answer) => answer.path.startsWith(`${API}/events?`) && answer.path.endsWith('&page=1');

describe('a publish while the site is being built', () => {
  it('the build stays on the snapshot it pinned: the site is that snapshot, whole', async () => {
    const outDir = join(work, 'pinned');
    const names = publishedNames();
    const answeredFrom = new Set<string>();
    let second: string | undefined;
    const report = await build(outDir, keys.pinned, {
      onAnswer: async (answer) => {
        answeredFrom.add(answer.snapshotId);
        if (!isFirstListPage(answer) || second !== undefined) return;
        // Between the first and the second page of /events: every event renamed, two unpublished,
        // five added before all others (an unpinned build would see the pages shift by three).
        second = await publish(() => {
          for (const event of site.events) event.name = `${event.name} (2)`;
          site.events[10]!.status = 'draft';
          site.events[150]!.status = 'draft';
          for (let i = 1; i <= 5; i++) site.event({ name: `Early ${i}`, slug: `early-${i}`, startsAt: `2029-12-0${i}T17:00:00Z`, endsAt: `2029-12-0${i}T20:00:00Z` });
        });
      },
    });
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    // Every answer came from the first snapshot, though the gateway served the second by then.
    expect([...answeredFrom]).toEqual([first]);
    expect(report).toMatchObject({ mode: 'full', snapshotId: first, restarts: 0, removed: [] });
    // The organization, the feed, team, speakers, sponsors, three pages of /events, every detail.
    expect(report.requests).toBe(5 + 3 + EVENTS + 2);
    expect(report.written).toHaveLength(4 + EVENTS + 2);
    await expectOneSnapshot(outDir, names);
    expect((await readState(outDir)).snapshotId).toBe(first);
    expect(Object.keys((await readState(outDir)).pages)).toHaveLength(4 + EVENTS + 2);
  });

  it('when the pinned snapshot can no longer be read (409), the build starts over and writes the current snapshot, whole', async () => {
    const outDir = join(work, 'restarting');
    const pinned = await servedSnapshot();
    const answeredFrom: string[] = [];
    let third: string | undefined;
    const report = await build(outDir, keys.restarting, {
      onAnswer: async (answer) => {
        answeredFrom.push(answer.snapshotId);
        if (!isFirstListPage(answer) || third !== undefined) return;
        // Published with an instant older than the pin window: as if this build had been held up
        // longer than that between two pages, so the snapshot it pinned may no longer be read.
        third = await publish(
          () => {
            for (const event of site.events) event.name = `${event.name.replace(/ \(2\)$/, '')} (3)`;
            site.events[20]!.status = 'draft';
            site.event({ name: 'Late addition (3)', slug: 'late-addition', startsAt: '2031-06-01T17:00:00Z', endsAt: '2031-06-01T20:00:00Z' });
          },
          new Date(Date.now() - PIN_WINDOW_MS - 60_000),
        );
      },
    });
    expect(third).toBeDefined();
    expect(report).toMatchObject({ mode: 'full', snapshotId: third, restarts: 1 });
    // The first attempt's answers, up to the first page of /events, came from the pinned snapshot; every later one from the third.
    const restartAt = answeredFrom.indexOf(third!);
    expect(new Set(answeredFrom.slice(0, restartAt))).toEqual(new Set([pinned]));
    expect(new Set(answeredFrom.slice(restartAt))).toEqual(new Set([third]));
    await expectOneSnapshot(outDir, publishedNames());
    expect(publishedNames().every((name) => name.endsWith(' (3)'))).toBe(true);
    expect((await readState(outDir)).snapshotId).toBe(third);
  });
});

describe('the next builds follow GET /changes', () => {
  const outDir = () => join(work, 'restarting');

  it('a renamed event: its page and the index are rewritten, no other file', async () => {
    const event = site.events.find((row) => row.slug === 'meetup-100')!;
    const before = await files(outDir());
    const fourth = await publish(() => {
      event.name = 'Meetup 100, renamed';
    });
    const paths: string[] = [];
    const report = await build(outDir(), keys.restarting, { onAnswer: (answer) => void paths.push(answer.path) });
    expect(report).toMatchObject({ mode: 'incremental', snapshotId: fourth, restarts: 0, written: ['events/meetup-100/index.html', 'index.html'], removed: [] });
    // The feed, then from the snapshot it names: the organization, the list (for the index) and the one event.
    expect(paths).toEqual([
      expect.stringMatching(new RegExp(`^${API}/changes\\?since=`)),
      `${API}/organization`,
      ...[1, 2, 3].map((page) => `${API}/events?timing=all&pageSize=100&page=${page}`),
      `${API}/events/${event.id}`,
    ]);
    const after = await files(outDir());
    expect(compare(before, after)).toEqual({ rewritten: ['events/meetup-100/index.html', 'index.html'], added: [], gone: [] });
    expect(after.get('events/meetup-100/index.html')!.bytes).toContain('<h1>Meetup 100, renamed</h1>');
    expect(after.get('index.html')!.bytes).toContain('>Meetup 100, renamed</a>');
    const state = await readState(outDir());
    expect(state.snapshotId).toBe(fourth);
    expect(state.pages['events/meetup-100/index.html']![`${API}/events/${event.id}`]).toBe(
      (await fetch(`${served.api}/events/${event.id}`, { headers: { 'X-Api-Key': keys.restarting } })).headers.get('etag'),
    );
    await expectOneSnapshot(outDir(), publishedNames());
  });

  it('an unpublished event: its page is deleted and the index rewritten, run as the README says with each Node line', async () => {
    const event = site.events.find((row) => row.slug === 'meetup-200')!;
    const before = await files(outDir());
    const fifth = await publish(() => {
      event.status = 'draft';
    });
    const outputs: string[] = [];
    // Each Node line at hand (20, which has no type stripping, and the suite's); the same one twice when there is one.
    const lines = nodeLines();
    for (const [i, { command, version }] of (lines.length > 1 ? lines : [lines[0]!, lines[0]!]).entries()) {
      const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          command,
          [join(EXAMPLE, 'build.mjs'), '--out', outDir()],
          { env: { ...process.env, MARQUEE_URL: served.url, MARQUEE_KEY: keys.restarting } },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      });
      // Nothing but Eleventy's own timing notes, which it prints when a step took more than a tenth
      // of the build (a matter of the machine's load, not of the site).
      const warnings = run.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('[11ty] Benchmark'));
      expect(warnings, version).toEqual([]);
      expect(run.code, version).toBe(0);
      outputs.push(run.stdout);
      // The first run removes the page and rewrites the index; a run after it finds nothing changed.
      expect(run.stdout, version).toMatch(
        i === 0
          ? new RegExp(`^incremental build \\S+ → ${fifth}: \\d+ requests; 1 page written, 1 removed, \\d+ unchanged$`, 'm')
          : new RegExp(`^incremental build ${fifth} → ${fifth}: 1 request; 0 pages written, 0 removed, \\d+ unchanged$`, 'm'),
      );
    }
    expect(compare(before, await files(outDir()))).toEqual({ rewritten: ['index.html'], added: [], gone: ['events/meetup-200/index.html'] });
    expect(await readdir(join(outDir(), 'events'))).not.toContain('meetup-200');
    expect(await readFile(join(outDir(), 'index.html'), 'utf8')).not.toContain('meetup-200');
    expect((await readState(outDir())).snapshotId).toBe(fifth);
    expect(outputs[0]).toMatch(/^next rebuild due at \S+ \(in \d+ days\)/m);
    await expectOneSnapshot(outDir(), publishedNames());
  });

  it('a since that is no longer kept (410): everything is read again, and nothing that did not change is rewritten', async () => {
    const statePath = `${outDir()}.marquee.json`;
    const state = await readState(outDir());
    await writeFile(statePath, JSON.stringify({ ...state, snapshotId: '20250101T000000000Z-0123456789ab' }));
    const before = await files(outDir());
    const lines: string[] = [];
    const report = await buildSite({ url: served.url, key: keys.pinned, outDir: outDir(), log: (line) => lines.push(line) });
    expect(lines[0]).toBe(`snapshot 20250101T000000000Z-0123456789ab is no longer kept (410 SNAPSHOT_EXPIRED): reading everything from ${state.snapshotId}`);
    expect(report).toMatchObject({ mode: 'full', snapshotId: state.snapshotId, written: [], removed: [] });
    expect(compare(before, await files(outDir()))).toEqual({ rewritten: [], added: [], gone: [] });
    expect((await readState(outDir())).pages).toEqual(state.pages);
  });
});

describe('the clock', () => {
  it('records nextClockChangeAt as the API says it, and the next rebuild is due then', async () => {
    const response = await fetch(`${served.api}/changes`, { headers: { 'X-Api-Key': keys.restarting } });
    const { nextClockChangeAt } = (await response.json()) as { nextClockChangeAt: string | null };
    // The first event to come starts then (the 'Early' ones were published in the second snapshot).
    expect(nextClockChangeAt).toBe('2029-12-01T17:00:00Z');
    const state = await readState(join(work, 'restarting'));
    expect(state.nextClockChangeAt).toBe(nextClockChangeAt);
    expect((await readState(join(work, 'pinned'))).nextClockChangeAt).toBe('2030-01-02T17:00:00Z');
    const now = Date.now();
    expect(nextRebuildDelay(state, now)).toBe(Date.parse(nextClockChangeAt!) - now + 1000);
    expect(nextRebuildDelay({ nextClockChangeAt: null }, now)).toBeNull();
  });

  it('when the clock alone moves an event to ongoing, the next build rewrites its page and the index', async () => {
    const outDir = join(work, 'restarting');
    // Whole seconds (instants have no fractions), a few seconds ahead: time to publish and build before it starts.
    const startsAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3000);
    const endsAt = new Date(startsAt.getTime() + 3_600_000);
    const instant = (date: Date) => date.toISOString().replace('.000Z', 'Z');
    let event: ReturnType<typeof site.event> | undefined;
    await publish(() => {
      event = site.event({ name: 'Starting soon', slug: 'starting-soon', startsAt: startsAt.toISOString(), endsAt: endsAt.toISOString() });
    });
    const added = await build(outDir, keys.restarting);
    expect(added.written).toEqual(['events/starting-soon/index.html', 'index.html']);
    expect(added.nextClockChangeAt, 'the build ended after the event started').toBe(instant(startsAt));

    // Nothing is published from here on: the gateway's answer changes when the event starts.
    await expect
      .poll(async () => ((await (await fetch(`${served.api}/events/starting-soon`, { headers: { 'X-Api-Key': keys.restarting } })).json()) as { timing: string }).timing, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe('ongoing');
    const before = await files(outDir);
    const paths: string[] = [];
    const report = await build(outDir, keys.restarting, { onAnswer: (answer) => void paths.push(answer.path) });
    expect(report).toMatchObject({ mode: 'incremental', snapshotId: added.snapshotId, written: ['events/starting-soon/index.html', 'index.html'], removed: [] });
    expect(report.nextClockChangeAt).toBe(instant(endsAt));
    // The feed since the snapshot lists nothing, but its next clock change is later than the one recorded: every path's tag is compared.
    expect(paths.slice(0, 3)).toEqual([`${API}/changes?since=${added.snapshotId}`, `${API}/changes`, `${API}/organization`]);
    expect(paths.slice(-1)).toEqual([`${API}/events/${event!.id}`]);
    expect(compare(before, await files(outDir))).toEqual({ rewritten: ['events/starting-soon/index.html', 'index.html'], added: [], gone: [] });
    expect(await readFile(join(outDir, 'events/starting-soon/index.html'), 'utf8')).toContain('<span class="timing ongoing">ongoing</span>');
  });
});
