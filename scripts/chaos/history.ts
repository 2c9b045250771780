// What a chaos campaign records (scripts/chaos.ts), and all that its invariant checkers
// (invariants.ts) read: the campaign only observes and writes facts down; every judgement is made
// afterwards, from this record alone, by pure functions. So a checker can be shown a history with
// one violation planted (test/unit/chaos/) and must catch it, and a failed campaign's history,
// written next to its report, can be judged again.
//
// Time: every instant is milliseconds on the campaign's one monotonic clock (performance.now()
// from the campaign's start), whichever process or link it concerns.

/** A backend a Marquee process depends on, or the processes themselves. */
export type Backend = 'postgres' | 'redis' | 'store' | 'cdn';

/** A Marquee process of the campaign: `gateway-1`, `gateway-2`, `builder-1`, `builder-2`. */
export type ProcessName = string;

/**
 * One fault as it was applied: from `startedAt` until `healedAt` (undefined: never healed, itself a
 * failure of the campaign). `affects` names the backends that a process on the far side could not
 * use normally meanwhile, for each process it concerns: a SIGSTOPped gateway affects only itself
 * (its requests get no answer); Redis restarted empty affects every process's 'redis'; a black
 * hole on gateway-1's link to the CDN affects gateway-1's 'cdn'.
 */
export interface AppliedFault {
  /** The schedule's id for it (schedule.ts), so the report and the replay name the same fault. */
  id: number;
  /** e.g. 'kill', 'kill-at-pointer', 'pause', 'redis-restart-empty', 'redis-flush', 'postgres-restart', 'halt', 'slow', 'latency', 'reset', 'blackhole'. */
  kind: string;
  /** What it was applied to: a process name, a backend, or a link `gateway-1→cdn`. */
  target: string;
  startedAt: number;
  healedAt: number | undefined;
  affects: Array<{ process: ProcessName; backend: Backend | 'itself' }>;
  /**
   * A 'kill-at-pointer' that found its moment: the builder was killed as it wrote the pointer to the
   * manifest it had just written, its publish having logged it in between (builder/publish.ts), and
   * the pointer write was kept from the store. `logged`: whether the publication log held that
   * manifest at the end (undefined: the log could not be read). Absent: no such write came in the
   * wait, and the builder was killed where it was.
   */
  interrupted?: { organizationId: string; snapshotId: string; logged?: boolean };
}

/** One API request the load sent, and what came back. */
export interface RequestRecord {
  gateway: ProcessName;
  /** The key's id (the record's id, never its secret) and the organization it belongs to. */
  keyId: string;
  organizationId: string;
  /** The API path asked for, e.g. /api/integration/v1/events?page=2. */
  path: string;
  sentAt: number;
  /** undefined: no answer (connection refused or reset, or timed out). */
  answeredAt: number | undefined;
  status: number | undefined;
  etag?: string;
  /** The Retry-After header, as sent. */
  retryAfter?: string;
  /** The problem body's errorCode, for an error. */
  errorCode?: string;
  /**
   * The problem body's detail, for an error: it alone tells a key the gateway could not check (a
   * 503 charged to no key) from a backend it could not read (a 503 charged to the key), and an
   * address throttled for invalid keys from a key over its limit (both 429).
   */
  detail?: string;
  /** Every organization that owns an id found in a 200 body (by the campaign's id → owner map). */
  bodyOrganizations?: string[];
  /** A 200 body's id for /organization: whose profile was answered. */
  profileOf?: string;
  /** The snapshot the request pinned (`Marquee-Snapshot-Id`, docs/api.md §10); undefined: unpinned. */
  pin?: string;
  /**
   * The answer's `Marquee-Snapshot-Id`: the snapshot that decided it (for a pinned answer, the pin),
   * or for an unpinned answer and a 409, the gateway's current snapshot then.
   */
  snapshotId?: string;
}

/** One read of a site's turn (sites.ts): a request as recorded, and what the site read from its body. */
export interface SiteRead extends RequestRecord {
  /** A page of `/events?timing=all`: its events in order, its totalCount and hasMore. */
  page?: { items: Array<{ id: string; slug: string; name: string }>; totalCount: number; hasMore: boolean };
  /** An event's detail: its id, slug, name, and its sessions array as canonical JSON. */
  event?: { id: string; slug: string; name: string; sessions: string };
  /** An event's `/sessions`, as canonical JSON. */
  sessions?: string;
}

/** A `GET /changes` answer (docs/api.md §10.1) as a site read it. */
export interface ChangesListing {
  snapshotId: string;
  since: string | null;
  changed: Array<{ path: string; etag: string }>;
  removed: string[];
  /** nextClockChangeAt on the campaign's clock; undefined: none ahead. */
  nextClockChangeAt: number | undefined;
  answeredAt: number;
}

/**
 * One turn of a site that rebuilds from the API (sites.ts). A full turn: `GET /changes` without
 * since, then every page of `/events?timing=all`, `/events`, each event's detail and sessions, the
 * speakers and the team, all pinned to the listing's snapshot. An incremental turn:
 * `/changes?since=` the snapshot of the site's last complete full turn of the organization
 * (`basedOn`), then the changed, removed and some unchanged paths pinned to the listing's
 * snapshot. In either, right after the listing, `/team` pinned to an older snapshot the site read,
 * at the listing's gateway (the pin may have expired).
 */
export interface SiteTurn {
  id: number;
  site: number;
  organizationId: string;
  kind: 'full' | 'incremental';
  /** For an incremental turn: the full turn whose listing is the site's mirror, and whose snapshot is `since`. */
  basedOn?: number;
  /** The `/changes` request itself, unpinned. */
  listingRead: SiteRead;
  /** Its answer, when it was a 200. */
  listing?: ChangesListing;
  /** Every later read, in order. */
  reads: SiteRead[];
  /**
   * complete: every read answered; not-current: a 409 SNAPSHOT_NOT_CURRENT, and the site started
   * over; expired: the since was 410; cut: anything else stopped it (a key revoked, a 503, no answer).
   */
  outcome: 'complete' | 'not-current' | 'expired' | 'cut';
}

/** A snapshot of an organization's chain as the store holds it at the end, read back from its pointer. */
export interface SnapshotRecord {
  organizationId: string;
  snapshotId: string;
  previousSnapshotId: string | null;
  /** Its manifest's publishedAt on the campaign's clock: the instant its predecessor's pin window starts. */
  publishedAt: number;
}

/** A change made to the platform or to Marquee's own records, and when its call returned. */
export type Change =
  | { kind: 'key.created'; keyId: string; organizationId: string; returnedAt: number }
  | { kind: 'key.revoked'; keyId: string; organizationId: string; returnedAt: number }
  | {
      kind: 'organization.suspended' | 'organization.reactivated';
      organizationId: string;
      returnedAt: number;
      /** When the campaign first read the new state in the organization's pointer in the store; undefined: never seen. */
      publishedAt: number | undefined;
    }
  | { kind: 'platform.row'; organizationId: string; statement: string; returnedAt: number }
  | { kind: 'webhook.added' | 'webhook.enabled' | 'webhook.disabled'; endpointId: string; organizationId: string; returnedAt: number }
  | { kind: 'admin.created' | 'admin.revoked'; adminId: string; returnedAt: number }
  | { kind: 'admin.action'; actor: string; action: string; returnedAt: number };

/** A message Marquee queued for an endpoint (read from its webhook store at the end), in queue order. */
export interface QueuedMessage {
  endpointId: string;
  /** The message id, which the receiver sees as `webhook-id`. */
  messageId: string;
  queuedAt: number;
}

/** A message a receiver accepted (answered 2xx to). */
export interface ReceivedMessage {
  endpointId: string;
  webhookId: string;
  receivedAt: number;
}

/** One resource of one organization as a gateway answered it after the last fault healed. */
export interface FinalAnswer {
  gateway: ProcessName;
  organizationId: string;
  path: string;
  status: number | undefined;
  etag: string | undefined;
  /** When this answer was received. */
  at: number;
}

/** What a fresh build of the final platform state, into a store of its own, answers for a path. */
export interface ExpectedAnswer {
  organizationId: string;
  path: string;
  /** 200 with this ETag, or the status a suspended or closed organization gets. */
  status: number;
  etag: string | undefined;
}

/** Everything created during the campaign that must still exist at the end, and what exists. */
export interface Durables {
  /** Ids of keys created (and not revoked) whose creation returned, and the ids the key store lists at the end. */
  keys: { created: string[]; present: string[] };
  /** Webhook endpoints whose creation returned: each endpoint's secret as shown, and as the store signs with at the end. */
  webhookSecrets: { created: Record<string, string>; present: Record<string, string> };
  /** Admin credentials created (ids), and those listed at the end. */
  adminCredentials: { created: string[]; present: string[] };
  /** Request ids (X-Request-Id) of the admin API actions that returned, and the request ids the audit trail holds at the end. */
  auditEntries: { returned: string[]; present: string[] };
}

/**
 * An API answer the campaign got outside `requests`, which its gateway counted in the key's usage
 * all the same: the warm-up before the load, the final answers after the heal, the fresh build's
 * gateway (`gateway` 'expected', which shares the campaign's Redis and closes normally).
 */
export type UsageAnswer = Pick<RequestRecord, 'gateway' | 'keyId' | 'sentAt' | 'answeredAt' | 'status' | 'errorCode' | 'detail'>;

/** One row of what the builders counted (marquee_key_usage), summed over hours and routes. */
export interface CountedUsage {
  keyId: string;
  organizationId: string;
  status: number;
  /** The 403's errorCode, '' for every other status (as the relation keeps it). */
  errorCode: string;
  requests: number;
}

/** Usage per key as the campaign saw it sent and as the builders counted it (docs/design.md "Usage per key"). */
export interface UsageRecord {
  /** The gateways' USAGE_MOVE_SECONDS, in ms: a killed gateway loses at most what it counted since its last move. */
  moveMs: number;
  /** What marquee_key_usage held once two reads agreed (or at the bound). */
  counted: CountedUsage[];
  /** How many reads it took; `settled`: the last two agreed. */
  reads: number;
  settled: boolean;
  /** Why the counts could not be read at all. */
  failure?: string;
  otherAnswers: UsageAnswer[];
  /** Keys whose revocation was asked for and failed: it may have been made all the same (revoked, their 401s are charged to them). */
  revocationsUnsure: string[];
}

/** A verification the campaign ran at the end: `marquee audit-log verify`. */
export interface Verification {
  what: string;
  ok: boolean;
  detail?: string;
}

/** A history verification the campaign ran at the end (`marquee verify --all --json`, with or without `--since`), as its report said. */
export interface HistoryVerification {
  what: string;
  /** Its report's `against`: what the store was checked against, the publication log among it or not (and why not). */
  against?: string;
  /** How many organizations the report covers. */
  organizations: number;
  /** Each organization's first break, as the report names it. */
  breaks: Array<{ organizationId: string; snapshotId: string; kind: string; detail: string }>;
  /** The manifests it found written by a publish that never became current, vouched for by a later manifest's `supersedes`. */
  neverCurrent: Array<{ organizationId: string; snapshotId: string }>;
  /** It gave no report: why (its exit status and output), e.g. a kept checkpoint the log no longer extends. */
  failure?: string;
}

/** The publication log as the campaign checked it (docs/design.md "History as evidence"). */
export interface PublicationLogRecord {
  /** The size of the checkpoint `marquee checkpoint` printed before the faults, which `verify --since` is given at the end; undefined when none was kept. */
  keptSize?: number;
  verifications: HistoryVerification[];
}

/** A Marquee process's life: its peak RSS and its target; `leftBehind` when it still ran after the campaign stopped it. */
export interface ProcessRecord {
  name: ProcessName;
  pid: number;
  peakRssMb: number;
  targetRssMb: number;
  leftBehind: boolean;
}

export interface History {
  seed: number;
  /** Every seed of the campaign, in order, when it ran several (schedule.ts drawSchedules: each its part of the window); `seed` is the first. */
  seeds?: number[];
  /** When the last fault healed. */
  healedAt: number;
  faults: AppliedFault[];
  requests: RequestRecord[];
  changes: Change[];
  /** The gateways' answers after healing, for the 30-second convergence check. */
  final: FinalAnswer[];
  expected: ExpectedAnswer[];
  queued: QueuedMessage[];
  received: ReceivedMessage[];
  /** Endpoints enabled at the end: every message queued for them must have arrived. */
  enabledEndpoints: string[];
  durables: Durables;
  verifications: Verification[];
  publicationLog: PublicationLogRecord;
  processes: ProcessRecord[];
  /** The gateways' SNAPSHOT_PIN_SECONDS, in ms. */
  pinWindowMs: number;
  /** The sites' turns; their reads are in `requests` too. */
  turns: SiteTurn[];
  /** The chains of the organizations the sites read, back to before the campaign. */
  snapshots: SnapshotRecord[];
  usage: UsageRecord;
}
