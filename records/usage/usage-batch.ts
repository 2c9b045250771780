// A batch of usage counts as a gateway hands it over (docs/design.md "Usage per key"): what one
// gateway counted since its last move, per key, UTC hour, route label and outcome, and the browser
// origins each key's requests were refused for. Its id — the gateway's id and the batch's number —
// is what makes a batch count once however many times it is handed over (usage-store.ts). Pure.

/** Requests of one key in one hour, on one route, with one outcome. */
export interface RequestCount {
  readonly keyId: string;
  readonly organizationId: string;
  /** The hour's start, milliseconds since the epoch (a multiple of HOUR_MS). */
  readonly hour: number;
  /** The route's label (gateway/route-label.ts), never a raw path. */
  readonly route: string;
  readonly status: number;
  /** The problem's errorCode for a 403, whose causes an operator must tell apart; '' otherwise. */
  readonly errorCode: string;
  readonly requests: number;
}

/** Requests of one key in one hour refused for one browser origin (403 API_KEY_ORIGIN_NOT_ALLOWED). */
export interface RefusedOriginCount {
  readonly keyId: string;
  readonly organizationId: string;
  readonly hour: number;
  readonly origin: string;
  readonly requests: number;
}

export interface UsageBatch {
  /** `<gateway id>.<number>`: unique per gateway process, the same each time the batch is handed over. */
  readonly id: string;
  readonly counts: readonly RequestCount[];
  readonly origins: readonly RefusedOriginCount[];
}

export const HOUR_MS = 3_600_000;

/** The start of the UTC hour `ms` falls in. */
export const hourOf = (ms: number): number => ms - (ms % HOUR_MS);

/** The longest origin kept: an Origin header is the client's to choose, and a longer one is cut. */
export const MAX_ORIGIN_LENGTH = 200;

/** A batch as the shared place holds it: compact JSON, one array per count. */
export function encodeBatch(batch: UsageBatch): string {
  return JSON.stringify({
    id: batch.id,
    c: batch.counts.map((c) => [c.keyId, c.organizationId, c.hour, c.route, c.status, c.errorCode, c.requests]),
    o: batch.origins.map((o) => [o.keyId, o.organizationId, o.hour, o.origin, o.requests]),
  });
}

/** The batch a payload holds; throws on one that is not a batch (the intake sets it aside). */
export function decodeBatch(payload: string): UsageBatch {
  const raw = JSON.parse(payload) as { id?: unknown; c?: unknown; o?: unknown };
  if (typeof raw.id !== 'string' || !Array.isArray(raw.c) || !Array.isArray(raw.o)) throw new Error('not a usage batch');
  const counts = raw.c.map((entry: unknown): RequestCount => {
    const [keyId, organizationId, hour, route, status, errorCode, requests] = tuple(entry, 7);
    return {
      keyId: text(keyId),
      organizationId: text(organizationId),
      hour: instantHour(hour),
      route: text(route),
      status: whole(status),
      errorCode: text(errorCode),
      requests: whole(requests),
    };
  });
  const origins = raw.o.map((entry: unknown): RefusedOriginCount => {
    const [keyId, organizationId, hour, origin, requests] = tuple(entry, 5);
    return { keyId: text(keyId), organizationId: text(organizationId), hour: instantHour(hour), origin: text(origin), requests: whole(requests) };
  });
  return { id: raw.id, counts, origins };
}

function tuple(entry: unknown, length: number): unknown[] {
  if (!Array.isArray(entry) || entry.length !== length) throw new Error('not a usage batch: an entry of the wrong shape');
  return entry;
}

function text(value: unknown): string {
  if (typeof value !== 'string') throw new Error('not a usage batch: a text member is not text');
  return value;
}

function whole(value: unknown): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) throw new Error('not a usage batch: a count is not a whole number');
  return value as number;
}

function instantHour(value: unknown): number {
  const ms = whole(value);
  if (ms % HOUR_MS !== 0) throw new Error('not a usage batch: an hour does not start on the hour');
  return ms;
}
