// Sites that rebuild from the API as docs/api.md §10 tells them to, while faults come and go: a full
// turn takes the snapshot id of a `GET /changes` (the initial sync) and reads everything else pinned
// to it; an incremental turn asks `/changes?since=` the snapshot of its last full turn, then reads
// the paths the listing names, and some it does not, pinned to the listing's snapshot. After
// either listing, an older snapshot the site read is read once more at the same gateway: a pin the
// clock may have expired. A 409 SNAPSHOT_NOT_CURRENT makes the site start over, as a site must.
// Now and then a suspended organization is read pinned, and a site changes an organization it
// holds (through the stream of changes), so that its pins expire within even a short campaign.
// Each site sends its share of the campaign's rate, each request to the next gateway as a load
// balancer would; everything is written down (history.ts SiteTurn, and every read in `requests`),
// nothing judged here (crawl-invariants.ts, invariants.ts checkPinWindow).
import { setTimeout as sleep } from 'node:timers/promises';
import { API } from '../../test/support/http-fuzz.ts';
import type { SoakKey } from '../soak/keys.ts';
import type { SoakPlatform } from '../soak/platform.ts';
import type { ChangesListing, RequestRecord, SiteRead, SiteTurn } from './history.ts';
import { sendRecorded } from './load.ts';
import type { Random } from './schedule.ts';

/** The share of the campaign's rate the sites send; the load sends the rest. */
export const SITE_SHARE = 0.25;
const SITES = 2;
/** Small pages, so that an organization's 8 events span several. */
const PAGE_SIZE = 3;
const MAX_PAGES = 10;
/** Paths of a listing read back per incremental turn: changed, removed, and unchanged ones the site holds. */
const MAX_FOLLOWED = 12;
const MAX_REMOVED = 4;
const UNCHANGED_SAMPLE = 3;
/** Starts over after a 409 at most this often per turn: a storm of publishes must not hold a site forever. */
const RESTARTS = 2;
/**
 * An incremental turn of an organization changed since its mirror waits until the change is this
 * much older than the pin window: the successor's publish follows the change by a build (and the
 * checker's margin), so that the old pin's read is judged as expired rather than left in the band.
 */
const EXPIRY_WAIT_MS = 5_000;
/** How often a site changes one of its organizations (a name): each change replaces a snapshot the site holds. */
const CHANGE_INTERVAL_MS = 12_000;
/** Well-formed, and no organization's: a suspended organization's pinned read is 403 whatever it names. */
const NEVER_PUBLISHED = '20000101T000000000Z-000000000000';

export interface SiteOptions {
  rate: number;
  gateways: Array<{ name: string; url: string }>;
  signal: AbortSignal;
  pinWindowMs: number;
}

export interface SiteWorld {
  platform: SoakPlatform;
  /** Keys to read with: a site takes one of the organization's not being revoked. */
  keys: readonly SoakKey[];
  /** The organizations the sites rebuild (indexes): the stream of changes favours them. */
  organizations: readonly number[];
  /** Organizations suspended now (indexes). */
  suspended(): readonly number[];
  /** When the last change of the organization's platform rows returned (performance.now()). */
  changedAt(organizationId: string): number | undefined;
  /** Changes a platform row of the organization (index) through the stream of changes, which records it. */
  change(organization: number): Promise<void>;
  random: Random;
}

/** Runs the sites until `signal` aborts; resolves once every turn under way is written down. */
export async function runSites(world: SiteWorld, options: SiteOptions, requests: RequestRecord[], turns: SiteTurn[]): Promise<void> {
  let serial = 0;
  const sites = Array.from(
    { length: SITES },
    (_, index) =>
      new Site(
        index,
        world,
        options,
        world.organizations.filter((_, place) => place % SITES === index),
        requests,
        turns,
        () => ++serial,
      ),
  );
  await Promise.all(sites.map((site) => site.run()));
}

type Answer = { read: SiteRead; body: unknown };

class Site {
  /** Per organization id: the last complete full turn, whose listing is what the site holds. */
  private readonly mirrors = new Map<string, SiteTurn & { listing: ChangesListing }>();
  /** Organizations whose mirror an incremental turn already followed. */
  private readonly followed = new Set<string>();
  /** Per organization id, the snapshots its listings named, oldest first: the pins a site may still hold. */
  private readonly pins = new Map<string, string[]>();
  private changedLast = performance.now();
  private cursor = 0;
  private gateway: number;
  private nextAt = performance.now();
  private readonly intervalMs: number;

  constructor(
    private readonly index: number,
    private readonly world: SiteWorld,
    private readonly options: SiteOptions,
    private readonly organizations: readonly number[],
    private readonly requests: RequestRecord[],
    private readonly turns: SiteTurn[],
    private readonly serial: () => number,
  ) {
    this.gateway = index;
    this.intervalMs = (1000 * SITES) / (options.rate * SITE_SHARE);
  }

  async run(): Promise<void> {
    while (!this.options.signal.aborted) {
      await this.readSuspended();
      const organization = this.choose();
      if (organization === undefined) {
        await sleep(500);
        continue;
      }
      const organizationId = this.world.platform.organizations[organization]!.id;
      for (let attempt = 0; attempt <= RESTARTS && !this.options.signal.aborted; attempt++) {
        const mirror = this.mirrors.get(organizationId);
        const turn = mirror !== undefined && !this.followed.has(organizationId) ? await this.incremental(organization, mirror) : await this.full(organization);
        if (turn === undefined || turn.outcome !== 'not-current') break;
      }
    }
  }

  /**
   * The next organization in turn: a full turn where there is no mirror or it was followed; an
   * incremental one otherwise, but for an organization changed since its mirror only once the
   * change is older than the pin window, so that the old pin is read past it.
   */
  private choose(): number | undefined {
    const now = performance.now();
    for (let step = 0; step < this.organizations.length; step++) {
      const organization = this.organizations[(this.cursor + step) % this.organizations.length]!;
      const id = this.world.platform.organizations[organization]!.id;
      const mirror = this.mirrors.get(id);
      const changed = this.world.changedAt(id);
      if (mirror !== undefined && !this.followed.has(id) && changed !== undefined && changed > mirror.listingRead.sentAt) {
        if (now < changed + this.options.pinWindowMs + EXPIRY_WAIT_MS) continue;
      }
      this.cursor = (this.cursor + step + 1) % this.organizations.length;
      return organization;
    }
    return undefined;
  }

  private async full(organization: number): Promise<SiteTurn | undefined> {
    const key = this.keyOf(organization);
    if (key === undefined) return undefined;
    const gateway = this.nextGateway();
    const listed = await this.read(key, `${API}/changes`, undefined, gateway);
    const turn = this.begin(key, 'full', listed);
    const listing = turn.listing;
    if (listing === undefined) return this.end(turn, 'cut');
    const pin = listed.read.snapshotId ?? listing.snapshotId;
    await this.readOldPin(turn, key, gateway, pin);
    const events: string[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = await this.step(turn, key, `${API}/events?timing=all&page=${page}&pageSize=${PAGE_SIZE}`, pin);
      if (answer === undefined) return turn;
      const body = answer.body as { items: Array<{ id: string; slug: string; name: string }>; totalCount: number; hasMore: boolean };
      answer.read.page = { items: body.items.map(({ id, slug, name }) => ({ id, slug, name })), totalCount: body.totalCount, hasMore: body.hasMore };
      for (const item of body.items) if (!events.includes(item.id)) events.push(item.id);
      if (!body.hasMore) break;
    }
    if ((await this.step(turn, key, `${API}/events`, pin)) === undefined) return turn;
    for (const id of events) {
      const detail = await this.step(turn, key, `${API}/events/${id}`, pin, true);
      if (detail === undefined) return turn;
      if (detail.read.status === 200) {
        const body = detail.body as { id: string; slug: string; name: string; sessions: unknown };
        detail.read.event = { id: body.id, slug: body.slug, name: body.name, sessions: canonical(body.sessions) };
      }
      const sessions = await this.step(turn, key, `${API}/events/${id}/sessions`, pin, true);
      if (sessions === undefined) return turn;
      if (sessions.read.status === 200) sessions.read.sessions = canonical(sessions.body);
    }
    for (const path of [`${API}/speakers`, `${API}/team`]) if ((await this.step(turn, key, path, pin)) === undefined) return turn;
    this.mirrors.set(turn.organizationId, turn as SiteTurn & { listing: ChangesListing });
    this.followed.delete(turn.organizationId);
    if (performance.now() > this.changedLast + CHANGE_INTERVAL_MS) {
      this.changedLast = performance.now();
      // Not waited for: the stream records it when it returns, and a backend down only loses it.
      this.world.change(organization).catch(() => undefined);
    }
    return this.end(turn, 'complete');
  }

  private async incremental(organization: number, mirror: SiteTurn & { listing: ChangesListing }): Promise<SiteTurn | undefined> {
    const key = this.keyOf(organization);
    if (key === undefined) return undefined;
    const since = mirror.listing.snapshotId;
    const gateway = this.nextGateway();
    const listed = await this.read(key, `${API}/changes?since=${since}`, undefined, gateway);
    const turn = this.begin(key, 'incremental', listed, mirror.id);
    const listing = turn.listing;
    if (listed.read.status === 410) {
      // Retention dropped the mirror's snapshot: read everything again.
      this.mirrors.delete(turn.organizationId);
      return this.end(turn, 'expired');
    }
    if (listing === undefined) return this.end(turn, 'cut');
    const pin = listed.read.snapshotId ?? listing.snapshotId;
    await this.readOldPin(turn, key, gateway, pin);
    const removed = new Set(listing.removed);
    const changed = new Set(listing.changed.map((entry) => entry.path));
    const unchanged = mirror.listing.changed.map((entry) => entry.path).filter((path) => !changed.has(path) && !removed.has(path));
    const paths = [
      ...[...changed].slice(0, MAX_FOLLOWED),
      ...listing.removed.slice(0, MAX_REMOVED),
      ...Array.from({ length: Math.min(UNCHANGED_SAMPLE, unchanged.length) }, () => unchanged.splice(Math.floor(this.world.random.next() * unchanged.length), 1)[0]!),
    ];
    for (const path of paths) if ((await this.step(turn, key, path, pin, removed.has(path))) === undefined) return turn;
    this.followed.add(turn.organizationId);
    return this.end(turn, 'complete');
  }

  /**
   * `/team` pinned to a snapshot the site read before `current` (the oldest or the latest, in
   * turn), at the gateway whose current snapshot the listing just named: the checker knows that
   * gateway's walk starts at `current` or later. Then `current` joins the pins the site holds.
   */
  private async readOldPin(turn: SiteTurn, key: SoakKey, gateway: number, current: string): Promise<void> {
    const held = this.pins.get(turn.organizationId) ?? [];
    const older = held.filter((pin) => pin !== current);
    if (older.length > 0) {
      const old = await this.read(key, `${API}/team`, this.world.random.next() < 0.5 ? older[0] : older.at(-1), gateway);
      turn.reads.push(old.read);
    }
    if (!held.includes(current)) this.pins.set(turn.organizationId, [...held, current]);
  }

  /** A suspended organization read pinned, every other turn one is: its last snapshot the load saw, or one it never had. */
  private async readSuspended(): Promise<void> {
    const suspended = this.world.suspended();
    if (suspended.length === 0 || this.world.random.next() < 0.5) return;
    const organization = this.world.random.pick(suspended);
    const key = this.keyOf(organization);
    if (key === undefined) return;
    const organizationId = this.world.platform.organizations[organization]!.id;
    const seen = this.world.random.next() < 0.5 ? lastSnapshotOf(this.requests, organizationId) : undefined;
    await this.read(key, `${API}/organization`, seen ?? NEVER_PUBLISHED, undefined, 'organization');
  }

  private begin(key: SoakKey, kind: SiteTurn['kind'], listed: Answer, basedOn?: number): SiteTurn {
    const turn: SiteTurn = {
      id: this.serial(),
      site: this.index,
      organizationId: this.world.platform.organizations[key.organization]!.id,
      kind,
      ...(basedOn === undefined ? {} : { basedOn }),
      listingRead: listed.read,
      reads: [],
      outcome: 'cut',
    };
    if (listed.read.status === 200) turn.listing = listingOf(listed.body, listed.read.answeredAt!);
    this.turns.push(turn);
    return turn;
  }

  private end(turn: SiteTurn, outcome: SiteTurn['outcome']): SiteTurn {
    turn.outcome = outcome;
    return turn;
  }

  /**
   * A read of the turn pinned to `pin`; undefined when it ended the turn (a 409: started over; any
   * other answer than 200, or a 404 where `mayBeMissing`, cuts it). A 404 of an event listed in the
   * same snapshot goes on: the checker names it.
   */
  private async step(turn: SiteTurn, key: SoakKey, path: string, pin: string, mayBeMissing = false): Promise<Answer | undefined> {
    const answer = await this.read(key, path, pin);
    turn.reads.push(answer.read);
    const status = answer.read.status;
    if (status === 200 || (status === 404 && mayBeMissing && answer.read.errorCode === 'EVENT_NOT_FOUND')) return answer;
    this.end(turn, status === 409 ? 'not-current' : 'cut');
    return undefined;
  }

  private async read(key: SoakKey, path: string, pin: string | undefined, gateway = this.nextGateway(), route = 'site'): Promise<Answer> {
    const wait = this.nextAt - performance.now();
    if (wait > 1) await sleep(wait);
    // After a stall (a black hole, a paused gateway), the site goes on at its pace rather than in a burst.
    this.nextAt = Math.max(this.nextAt, performance.now()) + this.intervalMs;
    const { record, body } = await sendRecorded(this.world.platform, this.options.gateways[gateway]!, key, path, route, pin);
    this.requests.push(record);
    let parsed: unknown;
    try {
      parsed = record.status === 200 && body !== undefined ? JSON.parse(body) : undefined;
    } catch {
      parsed = undefined;
    }
    return { read: record, body: parsed };
  }

  private nextGateway(): number {
    this.gateway = (this.gateway + 1) % this.options.gateways.length;
    return this.gateway;
  }

  /** A key of the organization that no revocation has touched. */
  private keyOf(organization: number): SoakKey | undefined {
    return this.world.keys.find((key) => key.organization === organization && key.revokingSince === undefined && key.revokedAt === undefined);
  }
}

function listingOf(body: unknown, answeredAt: number): ChangesListing {
  const listing = body as { snapshotId: string; since: string | null; changed: Array<{ path: string; etag: string }>; removed: string[]; nextClockChangeAt: string | null };
  return {
    snapshotId: listing.snapshotId,
    since: listing.since,
    changed: listing.changed,
    removed: listing.removed,
    // The gateway's clock is the wall clock of this machine: its instant on the campaign's clock.
    nextClockChangeAt: listing.nextClockChangeAt === null ? undefined : Date.parse(listing.nextClockChangeAt) - (Date.now() - performance.now()),
    answeredAt,
  };
}

/** The snapshot the latest answer about the organization named, newest first among the requests recorded. */
function lastSnapshotOf(requests: readonly RequestRecord[], organizationId: string): string | undefined {
  for (let index = requests.length - 1; index >= 0 && index >= requests.length - 5_000; index--) {
    const request = requests[index]!;
    if (request.organizationId === organizationId && request.snapshotId !== undefined) return request.snapshotId;
  }
  return undefined;
}

/** JSON with every object's keys sorted: the same value written by two serializers compares equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : item,
  );
}
