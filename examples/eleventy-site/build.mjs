// An organization's static site, built by Eleventy from the integration API — every page from ONE
// snapshot of the organization's data, and rebuilt incrementally (docs/api.md §10):
//
//   MARQUEE_URL=http://127.0.0.1:8080 MARQUEE_KEY=mqk_… node examples/eleventy-site/build.mjs [--out DIR] [--full] [--watch]
//
// A build reads through a PinnedClient (marquee.mjs): the first answer names its snapshot and every
// later request is pinned to it, so the index, the event pages and the lists all show the same
// data even while new snapshots are published. On 409 SNAPSHOT_NOT_CURRENT it starts over from the
// current snapshot (at most `maxRestarts` times).
//
// The first build reads everything; each later one reads `GET /changes?since=<the snapshot it was
// built from>`, refetches only what changed (pinned to the snapshot the feed names), deletes the
// pages of events that are gone, and has Eleventy render only the pages whose data changed: a page
// is rendered when the ETags of the answers it is made of differ from those it was last rendered
// from, recorded in a state file beside the output (`<out>.marquee.json`). Every other file keeps
// its bytes and its mtime. A 410 SNAPSHOT_EXPIRED (the snapshot is no longer kept) means: read
// everything again (still rendering only the pages whose data changed).
//
// `timing` and `isRegistrationOpen` change with the clock, without a publish: the state file keeps
// `nextClockChangeAt` (from GET /changes) and the build prints when the next rebuild is due.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Eleventy from '@11ty/eleventy';
import { API_BASE, inParallel, MarqueeError, PinnedClient, SnapshotNotCurrent } from './marquee.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Eleventy's input: the Nunjucks templates. */
const TEMPLATES = join(HERE, 'site');
const STATE_VERSION = 1;
const EVENT_PATH = new RegExp(`^${API_BASE}/events/([^/?]+)(?:/[a-z]+)?$`);
const ORGANIZATION = `${API_BASE}/organization`;
const EVENT_LIST = `${API_BASE}/events`;
/** Which template renders which page, and the one API path (besides the organization) it reads. */
const LIST_PAGES = [
  { file: 'team/index.html', template: 'team.njk', path: '/team', key: 'team' },
  { file: 'speakers/index.html', template: 'speakers.njk', path: '/speakers', key: 'speakers' },
  { file: 'sponsors/index.html', template: 'sponsors.njk', path: '/sponsors', key: 'sponsors' },
];

/**
 * @typedef {import('./marquee.mjs').Answer} Answer
 * @typedef {Record<string, string>} Sources API path → the ETag of the answer a page was rendered from.
 *
 * @typedef {object} State What the last build wrote (the `<out>.marquee.json` file).
 * @property {number} version
 * @property {string} snapshotId The snapshot every page of the output comes from.
 * @property {string} builtAt
 * @property {string | null} nextClockChangeAt When the clock alone next changes an answer (GET /changes).
 * @property {string} templates A digest of the templates and this file: when they change, every page is rendered.
 * @property {Record<string, Sources>} pages Output file (relative to the output directory) → its sources.
 *
 * @typedef {object} BuildOptions
 * @property {string} url The gateway's origin (MARQUEE_URL).
 * @property {string} key The organization's API key (MARQUEE_KEY).
 * @property {string} outDir Where the pages go.
 * @property {string} [stateFile] Default: `<outDir>.marquee.json`, beside the output (not published with it).
 * @property {boolean} [full] Read everything, whatever the state file says.
 * @property {number} [pageSize] Events per page of /events (default 100, the most the API allows).
 * @property {number} [concurrency] Requests in flight while reading event details (default 6).
 * @property {number} [maxRestarts] Restarts after 409 SNAPSHOT_NOT_CURRENT before giving up (default 3).
 * @property {(answer: Answer) => void | Promise<void>} [onAnswer] Told of every answer before it is used (tests hook here).
 * @property {(line: string) => void} [log] Default console.log.
 *
 * @typedef {object} BuildReport
 * @property {'full' | 'incremental'} mode How the build that succeeded read the API.
 * @property {string} snapshotId
 * @property {string | undefined} previousSnapshotId
 * @property {number} restarts
 * @property {number} requests
 * @property {string[]} written Files Eleventy wrote (relative to the output directory).
 * @property {string[]} removed Files deleted.
 * @property {number} unchanged Pages left as they were.
 * @property {string | null} nextClockChangeAt
 * @property {State} state
 */

/**
 * Builds (or updates) the site in `outDir` from one snapshot.
 * @param {BuildOptions} options
 * @returns {Promise<BuildReport>}
 */
export async function buildSite(options) {
  const log = options.log ?? console.log;
  const outDir = resolve(options.outDir);
  const stateFile = resolve(options.stateFile ?? `${outDir}.marquee.json`);
  const settings = { pageSize: options.pageSize ?? 100, concurrency: options.concurrency ?? 6 };
  const maxRestarts = options.maxRestarts ?? 3;
  const templates = await templatesDigest();
  const previous = await readState(stateFile);
  // Every page is rendered on the first build, with --full, when the templates changed, or when the
  // output lost a page; otherwise only those whose sources changed.
  const renderAll = previous === undefined || options.full === true || previous.templates !== templates || !(await pagesPresent(outDir, previous));
  let mode = renderAll ? 'full' : 'incremental';
  /** The snapshot to pin from the first request on (after a 409 or a 410, the current one they name). @type {string | undefined} */
  let pin;
  let restarts = 0;
  let requests = 0;
  for (;;) {
    const controller = new AbortController();
    const client = new PinnedClient({ url: options.url, key: options.key, pin, signal: controller.signal, onAnswer: options.onAnswer, log });
    try {
      /** @type {SiteData} */
      let data;
      if (mode === 'incremental') {
        const delta = await readChanges(client, /** @type {State} */ (previous), settings);
        if ('expired' in delta) {
          log(`snapshot ${previous?.snapshotId} is no longer kept (410 SNAPSHOT_EXPIRED): reading everything from ${delta.expired}`);
          requests += client.requests;
          mode = 'full';
          pin = typeof delta.expired === 'string' ? delta.expired : undefined;
          continue;
        }
        data = delta;
      } else {
        data = await readEverything(client, settings);
      }
      requests += client.requests;
      const report = await render(data, previous, { outDir, stateFile, templates, renderAll, log });
      const result = { mode: /** @type {'full' | 'incremental'} */ (mode), previousSnapshotId: previous?.snapshotId, restarts, requests, ...report };
      log(summary(result));
      log(describeNextRebuild(result.state));
      return result;
    } catch (error) {
      requests += client.requests;
      // Requests of the abandoned snapshot still in flight are of no use any more.
      controller.abort();
      if (!(error instanceof SnapshotNotCurrent) || restarts >= maxRestarts) throw error;
      restarts++;
      pin = error.currentSnapshotId;
      log(`snapshot ${client.snapshotId} is no longer readable (409 SNAPSHOT_NOT_CURRENT): starting over from ${pin}`);
    }
  }
}

/**
 * Milliseconds until the rebuild the clock calls for (`nextClockChangeAt`, plus a second so that the
 * gateway's clock is surely past it), or null when no answer will change with the clock alone.
 * Publishes come at any time: follow them with a webhook (examples/webhook-receiver) or by polling.
 * @param {Pick<State, 'nextClockChangeAt'>} state
 * @param {number} [now]
 * @returns {number | null}
 */
export function nextRebuildDelay(state, now = Date.now()) {
  if (state.nextClockChangeAt === null) return null;
  return Math.max(0, Date.parse(state.nextClockChangeAt) - now + 1000);
}

/** @param {Pick<State, 'nextClockChangeAt'>} state @param {number} [now] */
export function describeNextRebuild(state, now = Date.now()) {
  const delay = nextRebuildDelay(state, now);
  if (delay === null) return 'next rebuild due: on the next publish only (no answer changes with the clock)';
  return `next rebuild due at ${state.nextClockChangeAt} (in ${duration(delay)}), when the clock changes an event's timing or registration; or on the next publish`;
}

// ---- Reading -------------------------------------------------------------------------------

/**
 * What a build read. Whatever an incremental build did not need to read is undefined.
 * @typedef {object} SiteData
 * @property {string} snapshotId
 * @property {string | null} nextClockChangeAt
 * @property {Answer} [organization] Undefined when nothing changed.
 * @property {Answer} [team]
 * @property {Answer} [speakers]
 * @property {Answer} [sponsors]
 * @property {{ items: any[], pages: Answer[] }} [events] Every page of /events?timing=all.
 * @property {Map<string, Answer>} details Event id → its detail.
 */

/**
 * Everything, from one snapshot: the first answer pins it.
 * @param {PinnedClient} client
 * @param {{ pageSize: number, concurrency: number }} settings
 * @returns {Promise<SiteData>}
 */
async function readEverything(client, settings) {
  const organization = await client.get('/organization');
  const [feed, team, speakers, sponsors] = await Promise.all([client.get('/changes'), client.get('/team'), client.get('/speakers'), client.get('/sponsors')]);
  const events = await readEventList(client, settings.pageSize);
  const details = await readDetails(
    client,
    events.items.map((event) => event.id),
    settings.concurrency,
  );
  return { snapshotId: /** @type {string} */ (client.snapshotId), nextClockChangeAt: feed.body.nextClockChangeAt, organization, team, speakers, sponsors, events, details };
}

/**
 * What changed since the snapshot of `state`, and nothing else (a SiteData with only what must be
 * rendered again), or `{ expired }` when that snapshot is no longer kept.
 * @param {PinnedClient} client
 * @param {State} state
 * @param {{ pageSize: number, concurrency: number }} settings
 * @returns {Promise<SiteData | { expired: unknown }>}
 */
async function readChanges(client, state, settings) {
  let feed;
  try {
    // Unpinned unless a 409 named the snapshot to start over from: the feed's snapshot is the pin.
    feed = await client.get(`/changes?since=${encodeURIComponent(state.snapshotId)}`);
  } catch (error) {
    // 410 SNAPSHOT_EXPIRED names the current snapshot: read everything from it.
    if (error instanceof MarqueeError && error.status === 410) return { expired: error.problem?.currentSnapshotId };
    throw error;
  }
  /** @type {Map<string, string>} */
  const changed = new Map(feed.body.changed.map((/** @type {{ path: string, etag: string }} */ entry) => [entry.path, entry.etag]));
  /** @type {string[]} */
  const removed = feed.body.removed;
  const known = knownTags(state);
  // The feed lists what was published. The clock changes `timing` and `isRegistrationOpen` without
  // a publish: once the instant recorded has passed (the gateway's next change is then a later
  // one), compare every path's ETag as GET /changes lists it now with the one each page was built from.
  const clockMoved = state.nextClockChangeAt !== null && feed.body.nextClockChangeAt !== state.nextClockChangeAt;
  if (clockMoved) {
    const all = await client.get('/changes');
    for (const { path, etag } of all.body.changed) if (known.has(path) && known.get(path) !== etag) changed.set(path, etag);
  }
  for (const [path, etag] of changed) if (known.get(path) === etag) changed.delete(path);
  /** @type {SiteData} */
  const data = { snapshotId: /** @type {string} */ (client.snapshotId), nextClockChangeAt: feed.body.nextClockChangeAt, details: new Map() };
  if (changed.size === 0 && removed.length === 0 && !clockMoved) return data;
  // The organization is on every page: read everything (pages whose sources are the same are still not rendered).
  if (changed.has(ORGANIZATION)) return readEverything(client, settings);

  // Every page shows it: read (from the same snapshot) for the pages that are rendered.
  data.organization = await client.get('/organization');
  for (const page of LIST_PAGES) if (changed.has(`${API_BASE}${page.path}`)) data[/** @type {'team' | 'speakers' | 'sponsors'} */ (page.key)] = await client.get(page.path);

  /** Events whose detail (or sessions, speakers, sponsors) changed. */
  const touched = new Set();
  for (const path of changed.keys()) {
    const match = EVENT_PATH.exec(path);
    if (match) touched.add(decodeURIComponent(/** @type {string} */ (match[1])));
  }
  const eventsChanged = clockMoved || touched.size > 0 || changed.has(EVENT_LIST) || removed.some((path) => EVENT_PATH.test(path));
  if (!eventsChanged) return data;
  // The index shows every event: read the list again (from the same snapshot) and render it if any page of it changed.
  data.events = await readEventList(client, settings.pageSize);
  const built = eventPagesById(state);
  // An event the site has no page for yet is read too, listed by the feed or not.
  const ids = data.events.items.map((event) => event.id).filter((id) => touched.has(id) || !built.has(id));
  data.details = await readDetails(client, ids, settings.concurrency);
  return data;
}

/**
 * Every page of /events?timing=all, in order; refuses a list that names an event twice or whose
 * pages do not add up to totalCount (what a build without a pin meets when a publish lands between pages).
 * @param {PinnedClient} client
 * @param {number} pageSize
 */
async function readEventList(client, pageSize) {
  /** @type {Answer[]} */
  const pages = [];
  /** @type {any[]} */
  const items = [];
  for (let page = 1; ; page++) {
    const answer = await client.get(`/events?timing=all&pageSize=${pageSize}&page=${page}`);
    pages.push(answer);
    items.push(...answer.body.items);
    if (!answer.body.hasMore) {
      if (items.length !== answer.body.totalCount) throw new Error(`/events listed ${items.length} events over ${page} pages, totalCount ${answer.body.totalCount}`);
      break;
    }
  }
  const ids = new Set(items.map((event) => event.id));
  if (ids.size !== items.length) throw new Error('/events listed an event twice');
  return { items, pages };
}

/**
 * @param {PinnedClient} client
 * @param {string[]} ids
 * @param {number} concurrency
 * @returns {Promise<Map<string, Answer>>}
 */
async function readDetails(client, ids, concurrency) {
  const answers = await inParallel(ids, concurrency, (id) => client.get(`/events/${encodeURIComponent(id)}`));
  return new Map(answers.map((answer, i) => [/** @type {string} */ (ids[i]), answer]));
}

// ---- Rendering -----------------------------------------------------------------------------

/**
 * Plans the pages of `data`'s snapshot, has Eleventy render those whose sources changed since
 * `previous`, deletes the pages that are gone, and writes the state file last.
 * @param {SiteData} data
 * @param {State | undefined} previous The last build's state: its pages whose sources are the same are not rendered again, unless `renderAll`.
 * @param {{ outDir: string, stateFile: string, templates: string, renderAll: boolean, log: (line: string) => void }} where
 */
async function render(data, previous, { outDir, stateFile, templates, renderAll, log }) {
  const old = previous?.pages ?? {};
  // Every page shows the organization (read whenever anything is rendered).
  /** @type {Sources} */
  const organization = data.organization ? { [ORGANIZATION]: data.organization.etag } : {};
  /** Output file → its sources, for every page of the new output. @type {Map<string, Sources>} */
  const pages = new Map();
  /** Output file → the template that renders it, for the pages to render. @type {Map<string, string>} */
  const toRender = new Map();
  /** @param {string} file @param {Sources} sources @param {string} template */
  const plan = (file, sources, template) => {
    pages.set(file, sources);
    if (renderAll || !sameSources(old[file], sources)) toRender.set(file, template);
  };
  /** @param {string} file */
  const keep = (file) => {
    const sources = old[file];
    if (sources === undefined) throw new Error(`${file}: nothing read and no earlier build`);
    pages.set(file, sources);
  };

  // The index: every event, from the pages of the list.
  if (data.events) plan('index.html', { ...organization, ...Object.fromEntries(data.events.pages.map((page) => [page.path, page.etag])) }, 'index.njk');
  else keep('index.html');
  for (const { file, template, key } of LIST_PAGES) {
    const answer = data[/** @type {'team' | 'speakers' | 'sponsors'} */ (key)];
    if (answer) plan(file, { ...organization, [answer.path]: answer.etag }, template);
    else keep(file);
  }
  // One page per event, by slug.
  const built = eventPagesById(previous);
  /** @type {Array<{ file: string, href: string, event: any }>} */
  const eventPages = [];
  const eventIds = data.events ? data.events.items.map((event) => event.id) : [...built.keys()];
  for (const id of eventIds) {
    const detail = data.details.get(id);
    if (detail === undefined) {
      keep(/** @type {string} */ (built.get(id)));
      continue;
    }
    const file = eventFile(detail.body);
    plan(file, { ...organization, [detail.path]: detail.etag }, 'event.njk');
    if (toRender.has(file)) eventPages.push({ file, href: hrefOf(file), event: detail.body });
  }

  const templatesUsed = new Set(toRender.values());
  /** What the templates see (global data `marquee`). */
  const site = {
    organization: data.organization?.body,
    upcoming: /** @type {any[]} */ ([]),
    past: /** @type {any[]} */ ([]),
    eventPages,
    team: data.team?.body ?? [],
    speakers: data.speakers?.body ?? [],
    sponsors: data.sponsors?.body ?? [],
  };
  if (data.events) {
    const items = data.events.items.map((event) => ({ ...event, href: hrefOf(eventFile(event)) }));
    site.upcoming = items.filter((event) => event.timing !== 'past');
    // Most recent first.
    site.past = items.filter((event) => event.timing === 'past').reverse();
  }
  const written = toRender.size === 0 ? [] : await runEleventy(outDir, site, templatesUsed, log);
  const expected = [...toRender.keys()].sort();
  if (written.join('\n') !== expected.join('\n')) throw new Error(`Eleventy wrote ${written.join(', ')}; the plan was ${expected.join(', ')}`);

  const removed = Object.keys(old)
    .filter((file) => !pages.has(file))
    .sort();
  for (const file of removed) await removePage(outDir, file);

  /** @type {State} */
  const state = {
    version: STATE_VERSION,
    snapshotId: data.snapshotId,
    builtAt: new Date().toISOString(),
    nextClockChangeAt: data.nextClockChangeAt,
    templates,
    pages: Object.fromEntries([...pages].sort(([a], [b]) => (a < b ? -1 : 1))),
  };
  // Last, and atomically: a build that fails before this point is done again from the old state.
  await mkdir(dirname(stateFile), { recursive: true });
  await writeFile(`${stateFile}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  await rename(`${stateFile}.tmp`, stateFile);
  return { snapshotId: data.snapshotId, written, removed, unchanged: pages.size - written.length, nextClockChangeAt: data.nextClockChangeAt, state };
}

/**
 * Eleventy, programmatically: the templates in `site/`, the data as global data, only the
 * templates in `templates` (the others ignored). Returns the files written, relative to `outDir`, sorted.
 * @param {string} outDir
 * @param {object} site
 * @param {Set<string>} templates
 * @param {(line: string) => void} log
 * @returns {Promise<string[]>}
 */
async function runEleventy(outDir, site, templates, log) {
  const all = (await readdir(TEMPLATES)).filter((file) => file.endsWith('.njk'));
  const eleventy = new Eleventy(TEMPLATES, outDir, {
    quietMode: true,
    // No eleventy.config.js from wherever the build is started: the site's configuration is here.
    configPath: false,
    config(/** @type {any} */ config) {
      config.setUseGitIgnore(false);
      config.setNunjucksEnvironmentOptions({ autoescape: true, throwOnUndefined: true, trimBlocks: true, lstripBlocks: true });
      config.addGlobalData('marquee', site);
      config.addFilter('when', whenLocal);
      config.addFilter('clock', clockLocal);
      // Ignores are relative to the working directory, except those that begin with **/ (the input holds only this site's templates).
      for (const file of all) if (!templates.has(file)) config.ignores.add(`**/${file}`);
    },
  });
  // Eleventy's own lines ("Wrote 2 files in 0.05 seconds") go where the build's go.
  eleventy.logger.overrideLogger({ log, info: log, warn: log, error: log });
  const results = /** @type {Array<{ outputPath: string | false }>} */ ((await eleventy.write()).flat());
  return results
    .map((result) => result.outputPath)
    .filter((path) => typeof path === 'string')
    .map((path) => relative(outDir, resolve(path)).split(sep).join('/'))
    .sort();
}

/** An event's page: `events/<slug>/index.html` (its id when the slug is not a plain path segment). @param {{ id: string, slug: string }} event */
function eventFile(event) {
  const segment = /^[A-Za-z0-9][A-Za-z0-9._~-]*$/.test(event.slug) ? event.slug : event.id;
  return `events/${segment}/index.html`;
}

/** `events/x/index.html` → `/events/x/` @param {string} file */
const hrefOf = (file) => `/${file.replace(/index\.html$/, '')}`;

/** Deletes an output page and the directories it leaves empty. @param {string} outDir @param {string} file */
async function removePage(outDir, file) {
  await rm(join(outDir, file), { force: true });
  for (let dir = dirname(join(outDir, file)); dir !== outDir && dir.startsWith(outDir + sep); dir = dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      return; // not empty
    }
  }
}

// ---- State ---------------------------------------------------------------------------------

/** @param {string} file @returns {Promise<State | undefined>} */
async function readState(file) {
  try {
    const state = JSON.parse(await readFile(file, 'utf8'));
    return state?.version === STATE_VERSION ? state : undefined;
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Whether every page the state lists is in the output (else it cannot be trusted: read everything). @param {string} outDir @param {State} state */
async function pagesPresent(outDir, state) {
  try {
    await Promise.all(Object.keys(state.pages).map((file) => stat(join(outDir, file))));
    return true;
  } catch {
    return false;
  }
}

/** Every API path a page was built from → the ETag it had. @param {State} state */
function knownTags(state) {
  /** @type {Map<string, string>} */
  const tags = new Map();
  for (const sources of Object.values(state.pages)) for (const [path, etag] of Object.entries(sources)) tags.set(path, etag);
  return tags;
}

/** Event id → its page in `state`. @param {State | undefined} state */
function eventPagesById(state) {
  /** @type {Map<string, string>} */
  const byId = new Map();
  for (const [file, sources] of Object.entries(state?.pages ?? {})) {
    for (const path of Object.keys(sources)) {
      const match = EVENT_PATH.exec(path);
      if (match) byId.set(decodeURIComponent(/** @type {string} */ (match[1])), file);
    }
  }
  return byId;
}

/** @param {Sources | undefined} a @param {Sources} b */
function sameSources(a, b) {
  if (a === undefined) return false;
  const keys = Object.keys(b);
  return keys.length === Object.keys(a).length && keys.every((key) => a[key] === b[key]);
}

/** The templates and this file: a change to either renders every page again. */
async function templatesDigest() {
  const hash = createHash('sha256');
  /** @param {string} dir */
  const walk = async (dir) => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else hash.update(`${relative(TEMPLATES, path)}\0`).update(await readFile(path));
    }
  };
  await walk(TEMPLATES);
  hash.update(await readFile(fileURLToPath(import.meta.url)));
  return hash.digest('hex').slice(0, 16);
}

// ---- Formatting ----------------------------------------------------------------------------

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An Instant's `local` (`2026-05-01T11:00:00+02:00`) as the venue's clock shows it: `Fri 1 May 2026, 11:00`. @param {string} local */
function whenLocal(local) {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(local);
  if (!match) return local;
  const [, year, month, day, hour, minute] = match.map(Number);
  const weekday = new Date(Date.UTC(/** @type {number} */ (year), /** @type {number} */ (month) - 1, day)).getUTCDay();
  return `${WEEKDAYS[weekday]} ${day} ${MONTHS[/** @type {number} */ (month) - 1]} ${year}, ${match[4]}:${match[5]}`;
}

/** `2026-05-01T11:00:00+02:00` → `11:00` @param {string} local */
const clockLocal = (local) => local.slice(11, 16);

/** @param {number} ms */
function duration(ms) {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `${Math.ceil(ms / 1000)} s`;
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
}

/** @param {Omit<BuildReport, 'state'> & { state: State }} report */
function summary(report) {
  const from = report.mode === 'incremental' ? `incremental build ${report.previousSnapshotId} → ${report.snapshotId}` : `full build from snapshot ${report.snapshotId}`;
  const restarts = report.restarts === 0 ? '' : `, ${count(report.restarts, 'restart')}`;
  return `${from}: ${count(report.requests, 'request')}${restarts}; ${count(report.written.length, 'page')} written, ${report.removed.length} removed, ${report.unchanged} unchanged`;
}

/** @param {number} n @param {string} noun */
const count = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

// ---- As a program --------------------------------------------------------------------------

/** @param {string[]} argv */
function parseArguments(argv) {
  const options = { outDir: join(HERE, '_site'), full: false, watch: false, pollSeconds: 60 };
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i];
    if (argument === '--out') options.outDir = resolve(/** @type {string} */ (argv[++i]));
    else if (argument === '--full') options.full = true;
    else if (argument === '--watch') options.watch = true;
    else if (argument === '--poll') options.pollSeconds = Number(argv[++i]);
    else throw new Error(`unknown argument ${argument}; usage: build.mjs [--out DIR] [--full] [--watch [--poll SECONDS]]`);
  }
  return options;
}

async function main() {
  const url = process.env.MARQUEE_URL ?? 'http://127.0.0.1:8080';
  const key = process.env.MARQUEE_KEY;
  if (!key) throw new Error('MARQUEE_KEY is not set (npm start prints a demo key)');
  const { outDir, full, watch, pollSeconds } = parseArguments(process.argv.slice(2));
  let report = await buildSite({ url, key, outDir, full });
  console.log(`wrote ${outDir} (state: ${basename(outDir)}.marquee.json beside it)`);
  if (!watch) return;
  // --watch: poll the change feed every `--poll` seconds, and rebuild at the next clock change.
  // Ctrl-C (or SIGTERM) lets a build in progress finish, then stops.
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => stop.abort());
  while (!stop.signal.aborted) {
    const clock = nextRebuildDelay(report.state);
    try {
      await sleep(Math.min(clock ?? Number.POSITIVE_INFINITY, pollSeconds * 1000), undefined, { signal: stop.signal });
    } catch {
      break; // SIGINT
    }
    try {
      report = await buildSite({ url, key, outDir });
    } catch (error) {
      console.error(`rebuild failed: ${/** @type {Error} */ (error).message}; trying again at the next poll`);
    }
  }
  // Without waiting for fetch's idle keep-alive connections to close.
  process.exit();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
