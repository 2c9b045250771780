// The judgement of the sites' turns (sites.ts, issue 36): a pinned crawl reads one snapshot, and
// the change feed describes the answers the gateways give. Pure, like invariants.ts, which puts
// these lines in the report; the pin window itself is judged there (checkPinWindow), beside the
// suspensions whose excuses it shares.
//
// Time: a listing's nextClockChangeAt is the gateway's wall clock, converted to the campaign's by
// the campaign; a tag compared across it may change by the clock alone (docs/api.md §10.1), so a
// read answered later than CLOCK_MARGIN_MS before it is not compared.
import { describeRequest, type InvariantResult, instant } from './describe.ts';
import type { ChangesListing, History, SiteRead, SiteTurn } from './history.ts';

/** How far the campaign's clock and the gateways' (the builders') may disagree about an instant: the wall clock against the monotonic one, and the conversion between them. */
export const CLOCK_MARGIN_MS = 2_000;

export const CRAWL_INVARIANTS = {
  pinnedCrawls: 'every pinned crawl reads one snapshot, consistent',
  changeFeed: '/changes describes the answers the gateways give',
} as const;

const API = '/api/integration/v1';

const describeTurn = (turn: SiteTurn): string =>
  `site ${turn.site} turn #${turn.id} (${turn.kind}, ${turn.organizationId}, from ${turn.listingRead.gateway} at ${instant(turn.listingRead.sentAt)}${turn.listing ? `, snapshot ${turn.listing.snapshotId}` : ''})`;

const completeFull = (history: History) => history.turns.filter((turn) => turn.kind === 'full' && turn.outcome === 'complete' && turn.listing !== undefined);

/**
 * (a) Every pinned answer a snapshot decided (a 200, a 304, a 404 EVENT_NOT_FOUND) names the pin.
 * Every complete full turn is one snapshot's: the listing's header and body name the same, no
 * event is on two pages, every page counts the events listed, the last says there are no more, and
 * every event listed has its detail (same id, slug and name as its summary) and its sessions (the
 * detail's own). A turn a 409 ended was started over: counted, not judged.
 */
export function checkPinnedCrawls(history: History): InvariantResult {
  const violations: string[] = [];
  let checked = 0;
  for (const request of history.requests) {
    if (request.pin === undefined || request.snapshotId === undefined) continue;
    if (request.status !== 200 && request.status !== 304 && request.status !== 404) continue;
    checked++;
    if (request.snapshotId !== request.pin) violations.push(`${describeRequest(request)}: answered from ${request.snapshotId}`);
  }
  const full = completeFull(history);
  for (const turn of full) {
    checked++;
    const problems = crawlProblems(turn, turn.listing!);
    for (const problem of problems) violations.push(`${describeTurn(turn)}: ${problem}`);
  }
  const counted = (kind: SiteTurn['kind'], outcome: SiteTurn['outcome']) => history.turns.filter((turn) => turn.kind === kind && turn.outcome === outcome).length;
  return {
    invariant: CRAWL_INVARIANTS.pinnedCrawls,
    checked,
    violations,
    notes: [
      `${full.length} full turns complete, ${counted('full', 'not-current')} started over after a 409, ${counted('full', 'cut')} cut (a fault, a key revoked)`,
      `${history.requests.filter((request) => request.pin !== undefined).length} pinned requests`,
    ],
    ...(full.length === 0 ? { unexercised: ['no pinned crawl completed'] } : {}),
  };
}

function crawlProblems(turn: SiteTurn, listing: ChangesListing): string[] {
  const problems: string[] = [];
  if (turn.listingRead.snapshotId !== listing.snapshotId) problems.push(`the listing's header names ${turn.listingRead.snapshotId ?? 'nothing'}, its body ${listing.snapshotId}`);
  const pages = turn.reads.filter((read): read is SiteRead & Required<Pick<SiteRead, 'page'>> => read.page !== undefined);
  const onPage = new Map<string, number>();
  const summaries = new Map<string, { slug: string; name: string }>();
  for (const [place, read] of pages.entries()) {
    for (const item of read.page.items) {
      const earlier = onPage.get(item.id);
      if (earlier !== undefined) problems.push(`event ${item.id} listed on page ${earlier} and on page ${place + 1}`);
      onPage.set(item.id, place + 1);
      summaries.set(item.id, item);
    }
    if (read.page.totalCount !== pages[0]!.page.totalCount) problems.push(`page ${place + 1} counts ${read.page.totalCount} events, page 1 ${pages[0]!.page.totalCount}`);
  }
  if (pages.length === 0) problems.push('no page of events was read');
  else {
    if (pages.at(-1)!.page.hasMore) problems.push(`page ${pages.length}, the last read, says there are more`);
    if (pages[0]!.page.totalCount !== onPage.size) problems.push(`the pages count ${pages[0]!.page.totalCount} events and list ${onPage.size}`);
  }
  const byPath = new Map(turn.reads.map((read) => [read.path, read]));
  for (const [id, summary] of summaries) {
    const detail = byPath.get(`${API}/events/${id}`);
    const sessions = byPath.get(`${API}/events/${id}/sessions`);
    if (detail?.status !== 200 || detail.event === undefined) problems.push(`event ${id} is listed, and its detail answered ${detail?.status ?? 'nothing'}`);
    else {
      if (detail.event.id !== id) problems.push(`the detail of event ${id} is event ${detail.event.id}'s`);
      if (detail.event.slug !== summary.slug || detail.event.name !== summary.name)
        problems.push(`event ${id} is listed as ${JSON.stringify(summary.name)} (${summary.slug}), its detail says ${JSON.stringify(detail.event.name)} (${detail.event.slug})`);
      if (sessions?.status !== 200) problems.push(`event ${id} is listed, and its sessions answered ${sessions?.status ?? 'nothing'}`);
      else if (sessions.sessions !== detail.event.sessions) problems.push(`the sessions of event ${id} are not those of its detail`);
    }
  }
  return problems;
}

/**
 * (b) Without since, `/changes` lists every path of its snapshot with the ETag a GET of it, pinned
 * to that snapshot, answers: every path a complete full turn read is listed with that read's tag,
 * and every event path listed is an event its pages listed. With since (an incremental turn): the
 * answer compares the snapshot asked for (`since` is the mirror's), lists nothing when it is the
 * current one; then, pinned to its snapshot, each changed path answers the tag listed, each removed
 * path 404, and each path it does not name the tag the mirror holds: the mirror with the changes
 * applied is what the gateways answer. A tag is not compared across the clock's next change.
 */
export function checkChangeFeed(history: History): InvariantResult {
  const violations: string[] = [];
  let checked = 0;
  let acrossTheClock = 0;
  const compare = (turn: SiteTurn, read: SiteRead, etag: string | undefined, what: string, clockChangeAt: number | undefined) => {
    if (read.status !== 200) return;
    if (clockChangeAt !== undefined && (read.answeredAt ?? Number.POSITIVE_INFINITY) >= clockChangeAt - CLOCK_MARGIN_MS) {
      acrossTheClock++;
      return;
    }
    checked++;
    if (etag === undefined) violations.push(`${describeTurn(turn)}: ${describeRequest(read)} with ETag ${read.etag ?? 'none'}, and ${what} does not list it`);
    else if (read.etag !== etag) violations.push(`${describeTurn(turn)}: ${describeRequest(read)} with ETag ${read.etag ?? 'none'}, ${what} lists ${etag}`);
  };
  for (const turn of completeFull(history)) {
    const listing = turn.listing!;
    const tags = new Map(listing.changed.map((entry) => [entry.path, entry.etag]));
    for (const read of turn.reads)
      if (read.pin === listing.snapshotId && !read.path.includes('?')) compare(turn, read, tags.get(read.path), 'the listing without since', listing.nextClockChangeAt);
    const listed = new Set(turn.reads.flatMap((read) => read.page?.items.map((item) => item.id) ?? []));
    for (const { path } of listing.changed) {
      const event = new RegExp(`^${API}/events/([^/]+)`).exec(path)?.[1];
      if (event === undefined) continue;
      checked++;
      if (!listed.has(event)) violations.push(`${describeTurn(turn)}: the listing without since names ${path}, and no page of the snapshot lists event ${event}`);
    }
  }
  let followed = 0;
  for (const turn of history.turns) {
    if (turn.kind !== 'incremental' || turn.listing === undefined) continue;
    const listing = turn.listing;
    const mirror = history.turns.find((other) => other.id === turn.basedOn)?.listing;
    if (mirror === undefined) continue;
    followed++;
    checked++;
    if (listing.since !== mirror.snapshotId) violations.push(`${describeTurn(turn)}: asked since ${mirror.snapshotId}, answered since ${listing.since ?? 'null'}`);
    if (listing.snapshotId === mirror.snapshotId && (listing.changed.length > 0 || listing.removed.length > 0))
      violations.push(`${describeTurn(turn)}: since its own snapshot, lists ${listing.changed.length} changed and ${listing.removed.length} removed paths`);
    const changed = new Map(listing.changed.map((entry) => [entry.path, entry.etag]));
    const removed = new Set(listing.removed);
    const held = new Map(mirror.changed.map((entry) => [entry.path, entry.etag]));
    for (const read of turn.reads) {
      if (read.pin !== listing.snapshotId) continue;
      if (removed.has(read.path)) {
        if (read.status === undefined || read.status === 409) continue;
        checked++;
        if (read.status !== 404) violations.push(`${describeTurn(turn)}: ${describeRequest(read)}, and the listing says it was removed`);
      } else if (changed.has(read.path)) compare(turn, read, changed.get(read.path), 'the listing', listing.nextClockChangeAt);
      else compare(turn, read, held.get(read.path), `the mirror (turn #${turn.basedOn}), unchanged by the listing,`, earliest(mirror.nextClockChangeAt, listing.nextClockChangeAt));
    }
  }
  return {
    invariant: CRAWL_INVARIANTS.changeFeed,
    checked,
    violations,
    notes: [`${followed} incremental turns followed /changes?since=`, `${acrossTheClock} tags not compared: read across the clock's next change`],
    ...(followed === 0 ? { unexercised: ['no incremental turn followed /changes?since='] } : {}),
  };
}

const earliest = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
