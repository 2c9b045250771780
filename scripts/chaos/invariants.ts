// The chaos campaign's judgement (issue 28): one pure function per invariant the campaign promises,
// each reading only the recorded History (history.ts) and answering how many facts it judged and
// which of them broke the invariant. `checked` counts real facts so that a campaign that did
// nothing is seen to have judged nothing: the last line, `campaign exercised`, fails when a checker
// judged nothing, when no fault was applied or one never healed, or when the stream of changes left
// a kind out.
//
// What a fault excuses is the documented behaviour of a backend being down (docs/design.md
// "Gateway", "Keys outlive any cache", "A run never lies"; docs/production.md "When a backend is
// down"), and nothing more. A fault excuses a request through its `affects`: the backends the
// request's gateway could not use normally, from the fault's start to its heal plus the grace
// named below. A gateway needs Redis (keys, rate-limit counts, the publish channel), the store
// (pointers) and the CDN (manifests and objects); it never uses PostgreSQL, so a PostgreSQL fault
// excuses nothing a gateway answers. In short (each checker's comment says why):
//
//   invariant                 excused by a fault span (start → heal + grace)
//   revoked key served        the gateway's 'redis' (+3 s); a 'redis' of a builder (the writer, the
//                             key keepers) at the revocation's return (+3 s)
//   valid key refused (401)   a 'redis' of a builder (the writer) at the key's creation (+3 s); the
//                             gateway started while Redis's copy was lost (to its refill)
//   suspended org served      bound 2 s after the publish was seen, 32 s when any 'redis' or a
//                             builder's 'itself' spans the publish; the gateway's 'store' or 'cdn'
//                             (+12 s), or its 'itself' (+2 s)
//   a 503                     the gateway's 'redis', 'store', 'cdn' or 'itself' (+10 s); a key that
//                             cannot be checked while Redis's copy was lost (to its refill, which
//                             a PostgreSQL restart holds back); else never 'postgres'
//   usage counts              a gateway killed outright: its answers within its loss window may
//                             be missing (usage-invariants.ts); nothing may be counted twice
//   the other lines           nothing: no fault excuses another organization's data, a lost
//                             record, a failed verification, a break in a history (a builder killed
//                             between its log append and its pointer included), a stray process
//                             or late convergence.
import { CLOCK_MARGIN_MS, CRAWL_INVARIANTS, checkChangeFeed, checkPinnedCrawls } from './crawl-invariants.ts';
import { append, describeFault, describeRequest, type InvariantResult, instant } from './describe.ts';
import type { AppliedFault, Backend, Change, History, ProcessName, RequestRecord, SnapshotRecord } from './history.ts';
import { checkUsage, copyLostSpans, meets, UNCHECKABLE, USAGE_INVARIANTS } from './usage-invariants.ts';

/**
 * A revoked key is refused by every gateway from the next request on (docs/design.md "Keys"),
 * except while the gateway cannot reach Redis: it then answers keys it confirmed in the last five
 * minutes from memory ("Keys outlive any cache", a known limit in docs/reliability.md), and once
 * Redis is back it reads it again "within about two seconds" (the keeper reconnects within one and
 * copies at once; the test measured 1.7 s). 3 s after the heal, the revocation holds.
 */
export const REDIS_REJOIN_GRACE_MS = 3_000;

/** A gateway serves another process's publish within 2 s (gateway/snapshot-cache/current-snapshots.ts: a pointer older than 1 s is re-read). */
export const PUBLISH_TO_SERVE_MS = 2_000;

/**
 * A publish whose announcement may have been lost — Redis unreachable by its builder or by the
 * gateway, or the builder killed or paused between its pointer write and the announcement — is
 * seen by a gateway whose subscription held when its pointer is 30 s old (docs/design.md "A run
 * never lies", the publish channel's row), so within 32 s.
 */
export const UNANNOUNCED_PUBLISH_TO_SERVE_MS = 32_000;

/**
 * How long before the campaign saw a publish in the store its announcement may have been made: the
 * campaign reads pointers after the builder wrote them, and the announcement follows the write.
 */
export const PUBLISH_SEEN_SLACK_MS = 1_000;

/**
 * A gateway whose store or CDN reads fail keeps serving what it holds, and re-reads it at most once
 * per pause, 1 s doubling to 10 s, for the whole gateway (gateway/snapshot-cache/store-backoff.ts;
 * docs/production.md: "the next pointer check after its return (≤ 10 s)"), then serves the publish
 * within 2 s of that read: 12 s after the heal.
 */
export const STORE_REJOIN_GRACE_MS = 12_000;

/**
 * A paused or restarted gateway may answer its first requests after resuming from what it held
 * before: announcements queued on its subscription are read beside the requests that waited.
 */
export const GATEWAY_RESUME_GRACE_MS = 2_000;

/**
 * A 503 is excused this long after the backend it needed healed: the store's backoff pause reaches
 * 10 s (store-backoff.ts), and the fault matrix measured a key never seen accepted up to 7.5 s after
 * a Redis fault lifted (docs/reliability.md "Faults in the backends"). A paused gateway's own
 * connections are judged by timers that run out the moment it resumes, so a pause (affects
 * 'itself') excuses its 503s for as long.
 */
export const BACKEND_RECOVERY_GRACE_MS = 10_000;

/** Every gateway answers every organization as a fresh build does within 30 s of the last fault healing (issue 28). */
export const CONVERGENCE_BOUND_MS = 30_000;

/** The only 5xx the gateway may answer with during a fault (gateway/errors.ts serviceUnavailable; docs/api.md §7). */
const SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE';

export const INVARIANTS = {
  crossOrganization: "no response carries another organization's data",
  revokedKeys: 'no revoked key served after its revocation returned',
  validKeys: 'no valid key answered 401',
  suspendedOrganizations: 'no suspended organization served after its suspension was published',
  serverErrors: 'every 5xx a documented 503 while a backend it needs is down',
  convergence: 'every gateway converged within 30 s of the last heal',
  webhooks: 'every webhook message delivered, in order per endpoint',
  durables: 'no key, webhook secret, admin credential or audit entry lost',
  verifications: 'the audit trail verifies',
  publicationLog: 'every history verifies with the publication log, and since the kept checkpoint',
  processes: 'no process left behind, each within its RSS target',
  ...CRAWL_INVARIANTS,
  pinWindow: 'no pin outlives its window or a suspension',
  ...USAGE_INVARIANTS,
  exercised: 'campaign exercised',
} as const;

const served = (request: RequestRecord): boolean => request.status === 200 || request.status === 304;

/** A span of the campaign's clock during which a fault excuses something. */
interface Excuse {
  fault: AppliedFault;
  from: number;
  until: number;
}

/** The faults that affected `process`'s use of one of `backends`, each from its start to its heal plus `graceMs` (never healed: to the end). */
function excuses(history: History, process: ProcessName | ((name: ProcessName) => boolean), backends: Array<Backend | 'itself'>, graceMs: number): Excuse[] {
  const concerns = typeof process === 'string' ? (name: ProcessName) => name === process : process;
  return history.faults
    .filter((fault) => fault.affects.some((affected) => concerns(affected.process) && backends.includes(affected.backend)))
    .map((fault) => ({ fault, from: fault.startedAt, until: (fault.healedAt ?? Number.POSITIVE_INFINITY) + graceMs }));
}

/** The first excuse whose span meets [from, until]. */
const excusing = (spans: Excuse[], from: number, until: number): Excuse | undefined => spans.find((span) => span.from <= until && from <= span.until);

/** A request's time on the wire: from its sending to its answer (no answer: its sending only). */
const requestSpan = (request: RequestRecord): [number, number] => [request.sentAt, request.answeredAt ?? request.sentAt];

const isGateway = (name: ProcessName): boolean => name.startsWith('gateway');

/** The gateways of the campaign: its gateway processes, and any gateway a request or a final answer names. */
function gatewaysOf(history: History): ProcessName[] {
  const names = new Set<ProcessName>();
  for (const process of history.processes) if (isGateway(process.name)) names.add(process.name);
  for (const request of history.requests) names.add(request.gateway);
  for (const answer of history.final) names.add(answer.gateway);
  return [...names].sort();
}

/** Each key's organization as its creation recorded it, for the keys created during the campaign. */
function keyOwners(changes: Change[]): Map<string, string> {
  const owners = new Map<string, string>();
  for (const change of changes) if (change.kind === 'key.created' || change.kind === 'key.revoked') owners.set(change.keyId, change.organizationId);
  return owners;
}

/**
 * Every 200 body judged by the ids it holds: each must belong to the key's organization, and an
 * /organization profile must be that organization's. The key's organization is its creation's
 * (changes) when the campaign created it, else the one the request was recorded with.
 */
export function checkCrossOrganization(history: History): InvariantResult {
  const owners = keyOwners(history.changes);
  const violations: string[] = [];
  let checked = 0;
  for (const request of history.requests) {
    if (request.status !== 200 || (request.bodyOrganizations === undefined && request.profileOf === undefined)) continue;
    checked++;
    const owner = owners.get(request.keyId) ?? request.organizationId;
    if (owner !== request.organizationId) violations.push(`${describeRequest(request)}: the key belongs to ${owner}, not ${request.organizationId}`);
    const foreign = (request.bodyOrganizations ?? []).filter((organization) => organization !== owner);
    if (foreign.length > 0) violations.push(`${describeRequest(request)}: the body holds ids of ${[...new Set(foreign)].join(', ')}`);
    if (request.profileOf !== undefined && request.profileOf !== owner) violations.push(`${describeRequest(request)}: the profile answered is ${request.profileOf}'s`);
  }
  return { invariant: INVARIANTS.crossOrganization, checked, violations };
}

/**
 * Every request sent with a key after its revocation returned (the earliest, for a key revoked
 * twice) must not be served (200 or 304). Excused, as documented:
 * - the request's gateway could not reach Redis while the request was on the wire, or had
 *   reached it again less than REDIS_REJOIN_GRACE_MS before (it answers from memory meanwhile);
 * - the revocation returned while Redis was unreachable by a process that is no gateway (the
 *   writer or the builders' key keepers copy it once Redis is back): it holds from that fault's
 *   heal plus REDIS_REJOIN_GRACE_MS.
 */
export function checkRevokedKeys(history: History): InvariantResult {
  const revokedAt = new Map<string, number>();
  for (const change of history.changes) {
    if (change.kind !== 'key.revoked') continue;
    const earlier = revokedAt.get(change.keyId);
    if (earlier === undefined || change.returnedAt < earlier) revokedAt.set(change.keyId, change.returnedAt);
  }
  const writersRedis = excuses(history, (name) => !isGateway(name), ['redis'], REDIS_REJOIN_GRACE_MS);
  const gatewayRedis = new Map(gatewaysOf(history).map((gateway) => [gateway, excuses(history, gateway, ['redis'], REDIS_REJOIN_GRACE_MS)]));
  const violations: string[] = [];
  const notes: string[] = [];
  let checked = 0;
  for (const request of history.requests) {
    const revoked = revokedAt.get(request.keyId);
    if (revoked === undefined || request.sentAt <= revoked) continue;
    checked++;
    if (!served(request)) continue;
    const copied = excusing(writersRedis, revoked, revoked);
    if (copied !== undefined && request.sentAt <= copied.until) {
      notes.push(`${describeRequest(request)}: excused, revoked at ${instant(revoked)} during ${describeFault(copied.fault)}`);
      continue;
    }
    const unreachable = excusing(gatewayRedis.get(request.gateway) ?? [], ...requestSpan(request));
    if (unreachable !== undefined) {
      notes.push(`${describeRequest(request)}: excused by ${describeFault(unreachable.fault)}`);
      continue;
    }
    violations.push(`${describeRequest(request)}: ${request.keyId} was revoked at ${instant(revoked)}`);
  }
  return { invariant: INVARIANTS.revokedKeys, checked, violations, notes };
}

/**
 * Every answer to a key never revoked (no revocation of it returned or was even tried) sent after
 * its creation returned must not be 401: a valid key is never refused as unknown because a cache
 * lost data (docs/design.md "Keys outlive any cache": without the copy's mark of completeness, a
 * key not found is 503). Excused, as documented:
 * - the key's creation returned while its writer (a process that is no gateway: the admin API's
 *   builder) could not reach Redis, until REDIS_REJOIN_GRACE_MS after that fault's heal: its copy
 *   failed, and a key keeper copies it once it reaches Redis;
 * - the request's gateway started (the heal of its kill) while Redis's copy was lost, until the
 *   refill: a gateway that has not yet seen the mark since it started answers as one beside a Redis
 *   that no keeper fills.
 */
export function checkValidKeys(history: History): InvariantResult {
  const revocations = new Set([...history.changes.flatMap((change) => (change.kind === 'key.revoked' ? [change.keyId] : [])), ...history.usage.revocationsUnsure]);
  const createdAt = new Map(history.changes.flatMap((change) => (change.kind === 'key.created' ? [[change.keyId, change.returnedAt] as const] : [])));
  const writersRedis = excuses(history, (name) => !isGateway(name), ['redis'], REDIS_REJOIN_GRACE_MS);
  const copyLost = copyLostSpans(history.faults);
  const restarts = history.faults.filter((fault) => fault.kind === 'kill' && isGateway(fault.target) && fault.healedAt !== undefined);
  const startedBlind = (request: RequestRecord): boolean =>
    restarts.some(
      (restart) => restart.target === request.gateway && copyLost.some((span) => meets(span, restart.healedAt!, restart.healedAt!) && meets(span, ...requestSpan(request))),
    );
  const violations: string[] = [];
  const notes: string[] = [];
  let checked = 0;
  for (const request of history.requests) {
    if (revocations.has(request.keyId) || request.status === undefined) continue;
    const created = createdAt.get(request.keyId);
    if (created !== undefined && request.sentAt <= created) continue;
    checked++;
    if (request.status !== 401) continue;
    const uncopied = created === undefined ? undefined : excusing(writersRedis, created, created);
    if (uncopied !== undefined && request.sentAt <= uncopied.until) {
      notes.push(`${describeRequest(request)}: excused, created at ${instant(created)} during ${describeFault(uncopied.fault)}`);
      continue;
    }
    if (startedBlind(request)) {
      notes.push(`${describeRequest(request)}: excused, its gateway started while Redis's copy of the keys was lost`);
      continue;
    }
    violations.push(`${describeRequest(request)}: ${request.keyId} was never revoked`);
  }
  return { invariant: INVARIANTS.validKeys, checked, violations, notes };
}

/** Each organization's suspensions that were published, and until when each stood (the next reactivation's return). */
function suspensions(changes: Change[]): Array<{ organizationId: string; returnedAt: number; publishedAt: number; until: number }> {
  const states = changes.filter((change) => change.kind === 'organization.suspended' || change.kind === 'organization.reactivated').sort((a, b) => a.returnedAt - b.returnedAt);
  const result: Array<{ organizationId: string; returnedAt: number; publishedAt: number; until: number }> = [];
  for (const [index, change] of states.entries()) {
    if (change.kind !== 'organization.suspended' || change.publishedAt === undefined) continue;
    const reactivation = states.slice(index + 1).find((later) => later.kind === 'organization.reactivated' && later.organizationId === change.organizationId);
    result.push({
      organizationId: change.organizationId,
      returnedAt: change.returnedAt,
      publishedAt: change.publishedAt,
      until: reactivation?.returnedAt ?? Number.POSITIVE_INFINITY,
    });
  }
  return result;
}

/**
 * Every unpinned request for an organization sent more than PUBLISH_TO_SERVE_MS after its
 * suspension was seen published, and before its reactivation returned, must not be served (200 or
 * 304); pinned ones are checkPinWindow's, by the same rule. As documented:
 * - the bound is UNANNOUNCED_PUBLISH_TO_SERVE_MS when the announcement may have been lost: a fault
 *   affecting any process's Redis, or a builder itself (killed or paused), within
 *   PUBLISH_SEEN_SLACK_MS before the publish was seen (its span running to its heal plus
 *   REDIS_REJOIN_GRACE_MS);
 * - excused while the request's gateway could not read its store or CDN (it serves what it holds,
 *   and pointer re-reads back off for the whole gateway), until STORE_REJOIN_GRACE_MS after the heal;
 * - excused while the gateway itself was paused or restarting, until GATEWAY_RESUME_GRACE_MS after.
 */
export function checkSuspendedOrganizations(history: History): InvariantResult {
  const judged = judgeSuspensions(
    history,
    history.requests.filter((request) => request.pin === undefined),
    served,
  );
  return { invariant: INVARIANTS.suspendedOrganizations, ...judged };
}

/**
 * The suspension rule of checkSuspendedOrganizations over `requests`, with `answered` deciding what
 * counts as answering for the organization: shared with the pinned reads (checkPinWindow).
 */
function judgeSuspensions(history: History, requests: RequestRecord[], answered: (request: RequestRecord) => boolean): Omit<InvariantResult, 'invariant'> {
  const announcementLost = [...excuses(history, () => true, ['redis'], REDIS_REJOIN_GRACE_MS), ...excuses(history, (name) => !isGateway(name), ['itself'], REDIS_REJOIN_GRACE_MS)];
  const gatewayExcuses = new Map(
    gatewaysOf(history).map((gateway) => [
      gateway,
      [...excuses(history, gateway, ['store', 'cdn'], STORE_REJOIN_GRACE_MS), ...excuses(history, gateway, ['itself'], GATEWAY_RESUME_GRACE_MS)],
    ]),
  );
  const requestsFor = new Map<string, RequestRecord[]>();
  for (const request of requests) append(requestsFor, request.organizationId, request);
  const violations: string[] = [];
  const notes: string[] = [];
  let checked = 0;
  for (const suspension of suspensions(history.changes)) {
    const lost = excusing(announcementLost, suspension.publishedAt - PUBLISH_SEEN_SLACK_MS, suspension.publishedAt);
    const bound = suspension.publishedAt + (lost === undefined ? PUBLISH_TO_SERVE_MS : UNANNOUNCED_PUBLISH_TO_SERVE_MS);
    for (const request of requestsFor.get(suspension.organizationId) ?? []) {
      if (request.sentAt <= bound || request.sentAt >= suspension.until) continue;
      checked++;
      if (!answered(request)) continue;
      const excuse = excusing(gatewayExcuses.get(request.gateway) ?? [], ...requestSpan(request));
      if (excuse !== undefined) {
        notes.push(`${describeRequest(request)}: excused by ${describeFault(excuse.fault)}`);
        continue;
      }
      violations.push(
        `${describeRequest(request)}: ${suspension.organizationId} was suspended at ${instant(suspension.returnedAt)}, published at ${instant(suspension.publishedAt)}` +
          (lost === undefined ? '' : ` (announcement possibly lost to ${describeFault(lost.fault)})`),
      );
    }
  }
  return { checked, violations, notes };
}

/** Each organization's snapshots in chain order (history.snapshots), and every snapshot's place in it. */
function chainsOf(history: History): Map<string, { chain: SnapshotRecord[]; place: Map<string, number> }> {
  const chains = new Map<string, SnapshotRecord[]>();
  for (const snapshot of history.snapshots) append(chains, snapshot.organizationId, snapshot);
  return new Map([...chains].map(([organizationId, chain]) => [organizationId, { chain, place: new Map(chain.map((snapshot, index) => [snapshot.snapshotId, index])) }]));
}

/**
 * (c) A pin never outlives its window (docs/api.md §10) nor a suspension. A gateway reads a pinned
 * snapshot until its successor's publishedAt (the builder's clock, in the successor's manifest)
 * is the window old, walking back to it from its own current snapshot; judged from the chains as
 * the store holds them at the end (history.snapshots), with CLOCK_MARGIN_MS either side:
 * - a pinned read sent more than the window and the margin after its snapshot's successor was
 *   published, at a gateway that had already answered an unpinned request of the organization
 *   from that successor or a later snapshot (so its walk starts there: a gateway still holding
 *   the pinned snapshot as its current one serves it, as it serves every unpinned request), is
 *   not served (200, 304);
 * - a 409 SNAPSHOT_NOT_CURRENT whose current snapshot follows the pin in the chain is answered no
 *   earlier than the window less the margin after the earliest publishedAt among the successor
 *   and the snapshots after it up to that current one (the walk refuses at the first too old);
 *   one whose current snapshot precedes the pin (a gateway behind the publish) is counted;
 * - a suspended organization's pinned read is refused as its unpinned reads are
 *   (checkSuspendedOrganizations, with the same bounds and excuses): neither served nor a 409,
 *   which would mean the gateway resolved the pin as if the organization were active.
 */
export function checkPinWindow(history: History): InvariantResult {
  const pinned = history.requests.filter((request) => request.pin !== undefined);
  const suspended = judgeSuspensions(history, pinned, (request) => served(request) || request.status === 409);
  const windowMs = history.pinWindowMs;
  const chains = chainsOf(history);
  // Per gateway and organization, the instants it answered unpinned from each snapshot: where its current one had reached.
  const currents = new Map<string, Array<{ at: number; snapshotId: string }>>();
  for (const request of history.requests)
    if (request.pin === undefined && request.snapshotId !== undefined && request.answeredAt !== undefined)
      append(currents, `${request.gateway} ${request.organizationId}`, { at: request.answeredAt, snapshotId: request.snapshotId });
  const violations = [...suspended.violations];
  let expired = 0;
  let expiredRefused = 0;
  let refused = 0;
  let behind = 0;
  let unknown = 0;
  for (const request of pinned) {
    const organization = chains.get(request.organizationId);
    const place = organization?.place.get(request.pin!);
    if (organization === undefined || place === undefined) {
      if (request.status === 200 || request.status === 409) unknown++;
      continue;
    }
    const successor = organization.chain[place + 1];
    if (request.status === 409) {
      const current = request.snapshotId === undefined ? undefined : organization.place.get(request.snapshotId);
      if (current === undefined) unknown++;
      else if (current < place) behind++;
      else {
        refused++;
        const readableUntil = Math.min(...organization.chain.slice(place + 1, current + 1).map((snapshot) => snapshot.publishedAt)) + windowMs;
        if (current === place) violations.push(`${describeRequest(request)}: 409 naming the pinned snapshot itself as current`);
        else if (request.answeredAt! < readableUntil - CLOCK_MARGIN_MS)
          violations.push(`${describeRequest(request)}: refused within the ${windowMs / 1000} s window: readable until ${instant(readableUntil)} (${request.snapshotId} current)`);
      }
    }
    if (successor === undefined || request.sentAt <= successor.publishedAt + windowMs + CLOCK_MARGIN_MS) continue;
    const knew = (currents.get(`${request.gateway} ${request.organizationId}`) ?? []).find(
      (answer) => answer.at < request.sentAt && (organization.place.get(answer.snapshotId) ?? -1) > place,
    );
    if (knew === undefined) continue;
    expired++;
    if (!served(request)) {
      if (request.status === 409) expiredRefused++;
      continue;
    }
    violations.push(
      `${describeRequest(request)}: served ${instant(request.sentAt - successor.publishedAt)} after its successor ${successor.snapshotId} was published (at ${instant(successor.publishedAt)}), past the ${windowMs / 1000} s window; ${request.gateway} had answered from ${knew.snapshotId} at ${instant(knew.at)}`,
    );
  }
  const checked = expired + refused + suspended.checked;
  return {
    invariant: INVARIANTS.pinWindow,
    checked,
    violations,
    notes: [
      `${expired} pinned reads past the window (${expiredRefused} × 409), ${refused} × 409 judged against the window, ${suspended.checked} of suspended organizations`,
      `${behind} × 409 from a gateway behind the pinned snapshot's publish; ${unknown} answers of pins outside the chains read`,
      ...(suspended.notes ?? []),
    ],
    unexercised: [
      ...(expired === 0 ? ['no pinned read was sent past its window at a gateway that knew a successor'] : []),
      ...(suspended.checked === 0 ? ["no suspended organization's pinned read was judged"] : []),
    ],
  };
}

/**
 * Every answered request judged: a 5xx must be 503 `SERVICE_UNAVAILABLE` with a Retry-After of
 * whole seconds (docs/api.md §7: the 500 `INTERNAL_ERROR` is a fault in the gateway, never an
 * outage), and its gateway must have been unable to use Redis, its store or its CDN, or itself
 * paused or restarting, at some moment while the request was on the wire or up to
 * BACKEND_RECOVERY_GRACE_MS before it was sent — or, for a key that could not be checked, Redis's
 * copy of the keys must have been lost then and not yet refilled (a PostgreSQL restart holds the
 * refill back). None may be sent later than that after the last heal.
 */
export function checkServerErrors(history: History): InvariantResult {
  const needed = new Map(gatewaysOf(history).map((gateway) => [gateway, excuses(history, gateway, ['redis', 'store', 'cdn', 'itself'], BACKEND_RECOVERY_GRACE_MS)]));
  // A key not found in a copy without its mark cannot be checked until a keeper has refilled it.
  const copyLost = copyLostSpans(history.faults);
  const uncheckableWhileLost = (request: RequestRecord): boolean => UNCHECKABLE.test(request.detail ?? '') && copyLost.some((span) => meets(span, ...requestSpan(request)));
  const violations: string[] = [];
  let checked = 0;
  let excused = 0;
  let unanswered = 0;
  let unansweredOutsideFaults = 0;
  for (const request of history.requests) {
    if (request.status === undefined) {
      // Not a 5xx, so no violation here; but shown, since a request unanswered while nothing was wrong is a crash or a hang to look into.
      unanswered++;
      if (excusing(needed.get(request.gateway) ?? [], ...requestSpan(request)) === undefined) unansweredOutsideFaults++;
      continue;
    }
    checked++;
    if (request.status < 500) continue;
    const problems: string[] = [];
    if (request.status !== 503) problems.push(`a ${request.status}, not a 503`);
    if (request.retryAfter === undefined) problems.push('no Retry-After');
    else if (!/^[1-9][0-9]*$/.test(request.retryAfter)) problems.push(`Retry-After ${JSON.stringify(request.retryAfter)} is not a whole number of seconds`);
    if (request.errorCode !== SERVICE_UNAVAILABLE) problems.push(`errorCode ${request.errorCode ?? 'missing'}, not ${SERVICE_UNAVAILABLE}`);
    if (request.sentAt > history.healedAt + BACKEND_RECOVERY_GRACE_MS) {
      problems.push(`sent ${instant(request.sentAt - history.healedAt)} after every fault had healed (${instant(history.healedAt)})`);
    } else if (excusing(needed.get(request.gateway) ?? [], ...requestSpan(request)) === undefined && !uncheckableWhileLost(request)) {
      problems.push(`no backend ${request.gateway} needs was down`);
    }
    if (problems.length > 0) violations.push(`${describeRequest(request)}: ${problems.join('; ')}`);
    else excused++;
  }
  const notes = [`${excused} × 503 during a fault`, `${unanswered} requests unanswered, ${unansweredOutsideFaults} of them outside any fault of their gateway`];
  return { invariant: INVARIANTS.serverErrors, checked, violations, notes };
}

/**
 * For every gateway and every path a fresh build of the final state answers: among the gateway's
 * answers received after the last heal, one with the expected status (and ETag, when the fresh
 * build has one) by CONVERGENCE_BOUND_MS after it, and none different after that one. Every
 * organization the campaign asked for or changed must have such expected paths: "every gateway
 * answers every organization".
 */
export function checkConvergence(history: History): InvariantResult {
  const deadline = history.healedAt + CONVERGENCE_BOUND_MS;
  const answers = new Map<string, typeof history.final>();
  for (const answer of history.final) {
    if (answer.at < history.healedAt) continue;
    append(answers, `${answer.gateway} ${answer.organizationId} ${answer.path}`, answer);
  }
  const violations: string[] = [];
  const compared = new Set(history.expected.map((expected) => expected.organizationId));
  const touched = new Set([
    ...history.requests.map((request) => request.organizationId),
    ...history.changes.flatMap((change) => ('organizationId' in change ? [change.organizationId] : [])),
  ]);
  for (const organizationId of [...touched].sort())
    if (!compared.has(organizationId)) violations.push(`${organizationId}: no answer of a fresh build to compare the gateways' with`);
  let checked = 0;
  for (const gateway of gatewaysOf(history)) {
    for (const expected of history.expected) {
      checked++;
      const name = `${gateway} ${expected.organizationId} ${expected.path}`;
      const wanted = `${expected.status}${expected.etag === undefined ? '' : ` ${expected.etag}`}`;
      const got = (answers.get(name) ?? []).sort((a, b) => a.at - b.at);
      const matches = (answer: (typeof got)[number]) => answer.status === expected.status && (expected.etag === undefined || answer.etag === expected.etag);
      const first = got.findIndex(matches);
      const shown = (answer: (typeof got)[number] | undefined) => (answer === undefined ? 'nothing' : `${answer.status ?? 'no answer'} ${answer.etag ?? ''}`.trim());
      if (got.length === 0) violations.push(`${name}: no answer after the heal at ${instant(history.healedAt)}; expected ${wanted}`);
      else if (first === -1) violations.push(`${name}: answered ${shown(got.at(-1))} at ${instant(got.at(-1)?.at)}; expected ${wanted}`);
      else if (got[first]!.at > deadline) violations.push(`${name}: ${wanted} only at ${instant(got[first]!.at)}, ${instant(got[first]!.at - history.healedAt)} after the heal`);
      else {
        const relapse = got.slice(first + 1).find((answer) => !matches(answer));
        if (relapse !== undefined) violations.push(`${name}: answered ${shown(relapse)} at ${instant(relapse.at)} after ${wanted} at ${instant(got[first]!.at)}`);
      }
    }
  }
  return { invariant: INVARIANTS.convergence, checked, violations };
}

/**
 * For every endpoint enabled at the end, every message queued for it was received (answered 2xx)
 * at least once under its `webhook-id`, and the first receipts follow the queue order: no message
 * first received before one queued ahead of it was. Duplicates are at-least-once delivery, counted
 * in the notes.
 */
export function checkWebhooks(history: History): InvariantResult {
  const enabled = new Set(history.enabledEndpoints);
  const receipts = new Map<string, number[]>();
  for (const receipt of history.received) {
    append(receipts, `${receipt.endpointId} ${receipt.webhookId}`, receipt.receivedAt);
  }
  const violations: string[] = [];
  let checked = 0;
  let duplicates = 0;
  const latestFirst = new Map<string, { messageId: string; queuedAt: number; receivedAt: number }>();
  for (const message of history.queued) {
    if (!enabled.has(message.endpointId)) continue;
    checked++;
    const times = receipts.get(`${message.endpointId} ${message.messageId}`);
    if (times === undefined) {
      violations.push(`${message.messageId} queued for ${message.endpointId} at ${instant(message.queuedAt)}: never received`);
      continue;
    }
    duplicates += times.length - 1;
    const first = Math.min(...times);
    const ahead = latestFirst.get(message.endpointId);
    if (ahead !== undefined && first < ahead.receivedAt) {
      violations.push(
        `${message.endpointId}: ${message.messageId} (queued at ${instant(message.queuedAt)}) first received at ${instant(first)}, before ${ahead.messageId} (queued at ${instant(ahead.queuedAt)}) at ${instant(ahead.receivedAt)}`,
      );
    } else {
      latestFirst.set(message.endpointId, { messageId: message.messageId, queuedAt: message.queuedAt, receivedAt: first });
    }
  }
  return { invariant: INVARIANTS.webhooks, checked, violations, notes: [`${duplicates} duplicate deliveries (at least once: allowed)`] };
}

/** Everything created whose creation returned is there at the end: keys, webhook secrets (as last shown), admin credentials, audit entries (by request id). */
export function checkDurables(history: History): InvariantResult {
  const { keys, webhookSecrets, adminCredentials, auditEntries } = history.durables;
  const violations: string[] = [];
  const missing = (what: string, created: string[], present: string[]) => {
    const there = new Set(present);
    for (const id of created) if (!there.has(id)) violations.push(`${what} ${id} lost`);
  };
  missing('key', keys.created, keys.present);
  missing('admin credential', adminCredentials.created, adminCredentials.present);
  missing('audit entry of request', auditEntries.returned, auditEntries.present);
  for (const [endpointId, secret] of Object.entries(webhookSecrets.created)) {
    const present = webhookSecrets.present[endpointId];
    if (present === undefined) violations.push(`webhook secret of ${endpointId} lost`);
    else if (present !== secret) violations.push(`webhook secret of ${endpointId} changed: not the one last shown`);
  }
  const checked = keys.created.length + adminCredentials.created.length + auditEntries.returned.length + Object.keys(webhookSecrets.created).length;
  return { invariant: INVARIANTS.durables, checked, violations };
}

/** `marquee audit-log verify`, as the campaign ran it at the end. */
export function checkVerifications(history: History): InvariantResult {
  const violations = history.verifications
    .filter((verification) => !verification.ok)
    .map((verification) => `${verification.what} failed${verification.detail === undefined ? '' : `: ${verification.detail}`}`);
  return { invariant: INVARIANTS.verifications, checked: history.verifications.length, violations };
}

/** Says that a verification checked the store against the publication log (verification-expectations.ts `against`), and from which leaf. */
const AGAINST_THE_LOG = /every publication its publication log records(?: from leaf (\d+) on)?$/;

/**
 * Every organization's history holds at the end, checked with the publication log, whatever the
 * faults did: `verify --all` (every publication the log records, and no manifest it does not know)
 * and `verify --all --since` the checkpoint kept before the faults (the log extends it, and every
 * publication logged since is in the store) report no break, and both did check the log (from the
 * kept checkpoint's leaf, for the latter). A break reported by both is one violation. A builder
 * killed between its log append and its pointer write (faults.ts 'kill-at-pointer') leaves a
 * manifest the log holds and no pointer ever named: the log must hold it at the end, and verify
 * must count it as never current rather than a break (docs/design.md "History as evidence"); the
 * campaign must have made at least one such kill.
 */
export function checkPublicationLog(history: History): InvariantResult {
  const { keptSize, verifications } = history.publicationLog;
  const violations: string[] = [];
  const breaks = new Map<string, string[]>();
  let checked = 0;
  for (const verification of verifications) {
    if (verification.failure !== undefined) {
      violations.push(`${verification.what} gave no verdict: ${verification.failure}`);
      continue;
    }
    checked += verification.organizations;
    const against = AGAINST_THE_LOG.exec(verification.against ?? '');
    const since = verification.what.includes('--since');
    if (against === null) violations.push(`${verification.what} did not check the publication log: it checked against ${verification.against}`);
    else if (since && Number(against[1]) !== keptSize)
      violations.push(`${verification.what} checked what the log recorded from leaf ${against[1] ?? 0} on, not from the kept checkpoint's ${keptSize}`);
    for (const found of verification.breaks) append(breaks, `${found.organizationId}: BROKEN at ${found.snapshotId} (${found.kind}): ${found.detail}`, verification.what);
  }
  for (const [found, by] of breaks) violations.push(`${found} — said by ${by.join(' and ')}`);
  const neverCurrent = new Set(verifications.flatMap((verification) => verification.neverCurrent.map(({ organizationId, snapshotId }) => `${organizationId}/${snapshotId}`)));
  const kills = history.faults.filter((fault) => fault.interrupted !== undefined);
  for (const fault of kills) {
    const { organizationId, snapshotId, logged } = fault.interrupted!;
    checked++;
    if (logged !== true)
      violations.push(
        `${describeFault(fault)} killed the builder at its pointer write of ${organizationId} to snapshot ${snapshotId}, after its log append, yet ${logged === false ? 'the publication log does not hold that manifest' : 'the publication log could not be read'}`,
      );
  }
  const vouched = kills.filter(({ interrupted }) => neverCurrent.has(`${interrupted!.organizationId}/${interrupted!.snapshotId}`)).length;
  return {
    invariant: INVARIANTS.publicationLog,
    checked,
    violations,
    notes: [
      `${kills.length} builders killed between their log append and their pointer write; ${vouched} of their manifests never current (vouched for by the next publish), the rest current since or pruned`,
      `${neverCurrent.size} manifests never current in all`,
    ],
    unexercised: verifications.length > 0 && kills.length === 0 ? ['no builder was killed between its log append and its pointer write'] : [],
  };
}

/** Every Marquee process of the campaign stopped with it, and its peak RSS stayed within its target. */
export function checkProcesses(history: History): InvariantResult {
  const violations: string[] = [];
  for (const process of history.processes) {
    if (process.leftBehind) violations.push(`${process.name} (pid ${process.pid}) still ran after the campaign stopped it`);
    if (process.peakRssMb > process.targetRssMb)
      violations.push(`${process.name} (pid ${process.pid}) peaked at ${process.peakRssMb} MB RSS, over its target of ${process.targetRssMb} MB`);
  }
  return { invariant: INVARIANTS.processes, checked: history.processes.length, violations };
}

/** What each checker judging nothing means the campaign failed to produce. */
const VACUOUS: Record<string, string> = {
  [INVARIANTS.crossOrganization]: 'no 200 body was read for the organizations it holds',
  [INVARIANTS.revokedKeys]: 'no request used a key after its revocation returned',
  [INVARIANTS.validKeys]: 'no request was answered with a key never revoked',
  [INVARIANTS.suspendedOrganizations]: 'no request asked for a suspended organization after its suspension was published',
  [INVARIANTS.serverErrors]: 'no request was answered',
  [INVARIANTS.convergence]: 'nothing was expected of the gateways after the heal',
  [INVARIANTS.webhooks]: 'no message was queued for an endpoint enabled at the end',
  [INVARIANTS.durables]: 'nothing durable was created',
  [INVARIANTS.verifications]: 'nothing was verified',
  [INVARIANTS.publicationLog]: 'no history was verified',
  [INVARIANTS.processes]: 'no process was recorded',
  [INVARIANTS.pinnedCrawls]: 'no pinned read was answered',
  [INVARIANTS.changeFeed]: 'no /changes answer was compared with the answers',
  [INVARIANTS.pinWindow]: 'no pinned read was judged against its window or a suspension',
  [INVARIANTS.usage]: 'no request was sent with a key',
};

/** The changes the campaign's stream must have made (issue 28, "What to build"), each at least once. */
export const REQUIRED_CHANGES: ReadonlyArray<Change['kind']> = [
  'platform.row',
  'key.created',
  'key.revoked',
  'organization.suspended',
  'organization.reactivated',
  'webhook.added',
  'webhook.disabled',
  'admin.action',
];

/**
 * The campaign did what it must for its other lines to mean something: every checker judged
 * something, faults were applied and all healed, `healedAt` is the last heal, each kind of change
 * of the stream was made, and each kind of durable record was created.
 */
export function checkExercised(history: History, results: InvariantResult[]): InvariantResult {
  const violations: string[] = [];
  for (const result of results) if (result.checked === 0) violations.push(`${result.invariant}: judged nothing (${VACUOUS[result.invariant] ?? 'no facts'})`);
  for (const result of results) for (const missing of result.unexercised ?? []) violations.push(`${result.invariant}: ${missing}`);
  if (history.faults.length === 0) violations.push('no fault was applied');
  for (const fault of history.faults) {
    if (fault.healedAt === undefined) violations.push(`${describeFault(fault)} never healed`);
    else if (fault.healedAt > history.healedAt) violations.push(`${describeFault(fault)} healed after the recorded last heal at ${instant(history.healedAt)}`);
  }
  const made = new Set(history.changes.map((change) => change.kind));
  for (const kind of REQUIRED_CHANGES) if (!made.has(kind)) violations.push(`no ${kind} change was made`);
  const { keys, webhookSecrets, adminCredentials, auditEntries } = history.durables;
  if (keys.created.length === 0) violations.push('no key was created');
  if (Object.keys(webhookSecrets.created).length === 0) violations.push('no webhook endpoint was created');
  if (adminCredentials.created.length === 0) violations.push('no admin credential was created');
  if (auditEntries.returned.length === 0) violations.push('no audited admin action returned');
  const overlapping = history.faults.filter((fault) =>
    history.faults.some(
      (other) => other !== fault && other.startedAt < (fault.healedAt ?? Number.POSITIVE_INFINITY) && fault.startedAt < (other.healedAt ?? Number.POSITIVE_INFINITY),
    ),
  ).length;
  const checked = results.length + history.faults.length + REQUIRED_CHANGES.length + 4;
  return {
    invariant: INVARIANTS.exercised,
    checked,
    violations,
    notes: [
      `${history.faults.length} faults, ${overlapping} overlapping another; ${history.requests.length} requests; ${history.changes.length} changes; ${history.queued.length} messages queued`,
    ],
  };
}

/** Every invariant, in the report's order, then whether the campaign exercised them. */
export function checkAll(history: History): InvariantResult[] {
  const results = [
    checkCrossOrganization(history),
    checkRevokedKeys(history),
    checkValidKeys(history),
    checkSuspendedOrganizations(history),
    checkServerErrors(history),
    checkConvergence(history),
    checkWebhooks(history),
    checkDurables(history),
    checkVerifications(history),
    checkPublicationLog(history),
    checkProcesses(history),
    checkPinnedCrawls(history),
    checkChangeFeed(history),
    checkPinWindow(history),
    checkUsage(history),
  ];
  return [...results, checkExercised(history, results)];
}
