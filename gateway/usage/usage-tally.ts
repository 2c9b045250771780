// What a gateway counts per key between two moves (docs/design.md "Usage per key"): requests per key,
// UTC hour, route label and outcome, and per key the browser origins it was refused for, the most
// frequent few. Counting is on the hot path, so it is a Map lookup and an increment: a key's outcomes
// are numbered slots (route × errorCode × status) in a small Map of its own, never a string built per
// request. Bounded in bytes: once the budget is spent, counts of keys and slots not yet held are
// dropped and counted as dropped (a metric), and `onPressure` asks for an early move at half of it.
import { hourOf, MAX_ORIGIN_LENGTH, type RefusedOriginCount, type RequestCount } from '../../records/usage/usage-batch.ts';

/** What a count is charged to: the key's id and its organization. */
export interface CountedKey {
  readonly id: string;
  readonly organizationId: string;
}

interface KeyTally {
  readonly organizationId: string;
  readonly hour: number;
  /** Slot (slotOf) → requests. */
  readonly slots: Map<number, number>;
  /** Refused origin → requests; at most ORIGINS_PER_KEY named, the others under ''. */
  origins: Map<string, number> | undefined;
}

/**
 * Estimated heap bytes: a key's entry in the keys Map, its tally object and slots Map, and its id
 * (measured with bench/cache-weights.ts' method: ~260 B a key with one slot); a slot; an origin.
 */
const KEY_BYTES = 240;
const SLOT_BYTES = 24;
const ORIGIN_BYTES = 64;

/** Refused origins kept per key between two moves; the store keeps more per hour (usage-store.ts). */
const ORIGINS_PER_KEY = 4;

/** status < 1024, errorCode index < 64: a slot is one small integer. */
const STATUSES = 1024;
const CODES = 64;

export interface UsageTallyOptions {
  /** Heap bytes of counts held at most (the gateway's usage budget, gateway/cache-budget.ts). */
  maxBytes: number;
  /** Called once the tally holds half of maxBytes: time to move it early. */
  onPressure?: () => void;
  /** Milliseconds since the epoch: decides a count's hour (the gateway's clock). */
  clock?: () => number;
}

export interface TakenUsage {
  readonly counts: RequestCount[];
  readonly origins: RefusedOriginCount[];
}

export class UsageTally {
  private keys = new Map<string, KeyTally>();
  /** Keys of earlier hours, moved aside when a request of a new hour came. */
  private earlier: Map<string, KeyTally>[] = [];
  private hour = Number.NEGATIVE_INFINITY;
  private heldBytes = 0;
  private droppedCounts = 0;
  private readonly routes = new Map<string, number>();
  private readonly routeNames: string[] = [];
  private readonly codes = new Map<string, number>([['', 0]]);
  private readonly codeNames: string[] = [''];
  private readonly maxBytes: number;
  private readonly onPressure: (() => void) | undefined;
  private readonly clock: () => number;

  constructor({ maxBytes, onPressure, clock = Date.now }: UsageTallyOptions) {
    this.maxBytes = maxBytes;
    this.onPressure = onPressure;
    this.clock = clock;
  }

  /** Heap bytes held (estimated). */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Requests not counted because the budget was spent, since the gateway started. */
  get dropped(): number {
    return this.droppedCounts;
  }

  /** One request of `key`; `origin` only for a refusal of it (403 API_KEY_ORIGIN_NOT_ALLOWED). Never throws. */
  count(key: CountedKey, route: string, status: number, errorCode: string, origin: string | undefined): void {
    const hour = hourOf(this.clock());
    if (hour > this.hour) this.beginHour(hour);
    let tally = this.keys.get(key.id);
    if (tally === undefined) {
      if (!this.reserve(KEY_BYTES + 2 * key.id.length + SLOT_BYTES)) return;
      tally = { organizationId: key.organizationId, hour: this.hour, slots: new Map(), origins: undefined };
      this.keys.set(key.id, tally);
    }
    const slot = this.slotOf(route, status, errorCode);
    const before = tally.slots.get(slot);
    if (before === undefined && tally.slots.size > 0 && !this.reserve(SLOT_BYTES)) return;
    tally.slots.set(slot, (before ?? 0) + 1);
    if (origin !== undefined) this.countOrigin(tally, origin.length > MAX_ORIGIN_LENGTH ? origin.slice(0, MAX_ORIGIN_LENGTH) : origin);
  }

  /** Everything counted so far, as a batch's members; the tally starts empty. */
  take(): TakenUsage {
    const counts: RequestCount[] = [];
    const origins: RefusedOriginCount[] = [];
    for (const keys of [...this.earlier, this.keys]) {
      for (const [keyId, tally] of keys) {
        for (const [slot, requests] of tally.slots) {
          const status = slot % STATUSES;
          const code = Math.floor(slot / STATUSES) % CODES;
          const route = Math.floor(slot / (STATUSES * CODES));
          counts.push({ keyId, organizationId: tally.organizationId, hour: tally.hour, route: this.routeNames[route]!, status, errorCode: this.codeNames[code]!, requests });
        }
        for (const [origin, requests] of tally.origins ?? []) origins.push({ keyId, organizationId: tally.organizationId, hour: tally.hour, origin, requests });
      }
    }
    this.keys = new Map();
    this.earlier = [];
    this.heldBytes = 0;
    return { counts, origins };
  }

  private beginHour(hour: number): void {
    if (this.keys.size > 0) this.earlier.push(this.keys);
    this.keys = new Map();
    this.hour = hour;
  }

  /** Routes and errorCodes are closed sets (route labels, the API's codes), so their numbering stays small. */
  private slotOf(route: string, status: number, errorCode: string): number {
    let routeIndex = this.routes.get(route);
    if (routeIndex === undefined) {
      routeIndex = this.routeNames.push(route) - 1;
      this.routes.set(route, routeIndex);
    }
    let codeIndex = this.codes.get(errorCode);
    if (codeIndex === undefined) {
      codeIndex = this.codeNames.push(errorCode) - 1;
      this.codes.set(errorCode, codeIndex);
    }
    return (routeIndex * CODES + codeIndex) * STATUSES + status;
  }

  /**
   * Names the origins first seen, up to ORIGINS_PER_KEY; later new ones are counted together under
   * '' (as the store folds past its own bound), so a key's refused origins still add up to its 403s.
   */
  private countOrigin(tally: KeyTally, origin: string): void {
    tally.origins ??= new Map();
    let named = origin;
    if (!tally.origins.has(named)) {
      if (tally.origins.size >= ORIGINS_PER_KEY || !this.reserve(ORIGIN_BYTES + 2 * named.length)) named = '';
      if (named === '' && !tally.origins.has('') && !this.reserve(ORIGIN_BYTES)) return;
    }
    tally.origins.set(named, (tally.origins.get(named) ?? 0) + 1);
  }

  private reserve(bytes: number): boolean {
    if (this.heldBytes + bytes > this.maxBytes) {
      this.droppedCounts++;
      return false;
    }
    const wasUnder = this.heldBytes < this.maxBytes / 2;
    this.heldBytes += bytes;
    if (wasUnder && this.heldBytes >= this.maxBytes / 2) this.onPressure?.();
    return true;
  }
}
