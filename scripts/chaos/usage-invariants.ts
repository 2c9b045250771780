// The judgement of usage per key under the campaign's faults (issue 37; docs/design.md "Usage per
// key"): what the builders counted per key and outcome (marquee_key_usage, read at the end:
// usage.ts) against what the campaign was answered with that key. Pure, like invariants.ts, which
// puts this line in the report.
//
// Per key and outcome (the status; a 403 with its errorCode), every answer the campaign got is
// - charged: the gateway found the key's record, so it counted the answer;
// - charged to no key: the gateway could not find the record — a 503 because the key could not be
//   checked (Redis unreachable and the key not in its memory), or a 401 (or a 429 for invalid keys
//   from the address) for a key never revoked, which only a Redis that lost its copy of the keys
//   gives (docs/design.md "Keys outlive any cache"): an unknown credential, counted by no one;
// - unsure: a revoked key's 401 while Redis's copy was lost (unknown then, or found revoked), and
//   any 401 of a key whose revocation failed (it may have been made);
// and a request with no answer (a connection reset by a kill, a timeout) may or may not have been
// counted, under any outcome. So, for each key and outcome:
//   counted ≤ charged + unsure + unanswered   (never more than was sent: nothing counted twice;
//                                              also for the key's total)
//   counted ≥ charged − exposed               (exposed: the answers of a killed gateway within its
//                                              loss window, below; with no gateway killed, exactly)
//
// The loss window of a gateway killed outright (docs/design.md: it loses at most what it counted
// since its last move): from USAGE_MOVE_SECONDS and MOVE_SLACK_MS before the kill to the restart,
// on the campaign's clock for both ends — the kill's instant from the fault's record, each answer's
// from the request's. Since a count is made before its answer is written, an answer received before
// the window was counted before it, and moved by its start plus the interval. The window reaches
// further back across what keeps a gateway from moving: a fault on its link to Redis or Redis itself
// (its moves fail, it holds on to its counts) or a pause (no move is made) that meets the window
// starts it at that fault's start; and a Redis that lost its data (flush, restart empty) in the
// window loses the batches waiting for an intake round, which the gateway puts again only at its
// next move — so it starts an intake round earlier, or an intake round before every builder was
// kept away (from PostgreSQL, from Redis, or killed or paused, all at once). Builders killed lose
// nothing: a batch taken stays waiting until an intake commits its counts with its id.
import { type InvariantResult, instant } from './describe.ts';
import type { AppliedFault, History, ProcessName, UsageAnswer } from './history.ts';
import { INTAKE_INTERVAL_MS } from './usage.ts';

export const USAGE_INVARIANTS = {
  usage: 'usage counts are exact within the loss bound',
} as const;

/**
 * How late a gateway's move may complete after its interval: its timer fires late on a loaded
 * machine (the suite has run the campaign at load averages of 10 to 18), and the put takes a round
 * trip to Redis. The runs lost at most the answers of the last 1.5 s before a kill.
 */
const MOVE_SLACK_MS = 2_000;

/** A key keeper refills a Redis that lost its data within 10 s (docs/design.md "Keys outlive any cache"); meanwhile keys are unknown to the gateways. */
const KEY_REFILL_BOUND_MS = 10_000;

/** gateway/access/access-control.ts: the 503 detail of a key that could not be checked, and the 429 detail of an address throttled for invalid keys. */
export const UNCHECKABLE = /cannot be checked/;
const INVALID_KEYS_FROM_ADDRESS = /invalid API key from this address/;

const DATA_LOSS = new Set(['redis-flush', 'redis-restart-empty']);
const isGateway = (name: ProcessName): boolean => name.startsWith('gateway');

type Charge = 'charged' | 'uncharged' | 'unsure';

/** An answer's outcome as the usage rows keep it: the status, a 403 with its errorCode. */
const outcomeOf = (status: number, errorCode: string | undefined): string => (status === 403 ? `403 ${errorCode ?? ''}`.trimEnd() : String(status));

interface Span {
  from: number;
  until: number;
}

export const meets = (span: Span, from: number, until: number): boolean => span.from <= until && from <= span.until;

/** While keys may be unknown to the gateways: from a Redis data loss to its refill, held back by a PostgreSQL restart the keeper copies from. */
export function copyLostSpans(faults: AppliedFault[]): Span[] {
  const postgres = faults.filter((fault) => fault.affects.some((affected) => affected.backend === 'postgres'));
  return faults
    .filter((fault) => DATA_LOSS.has(fault.kind))
    .map((fault) => {
      const span = { from: fault.startedAt, until: (fault.healedAt ?? Number.POSITIVE_INFINITY) + KEY_REFILL_BOUND_MS };
      for (let widened = true; widened; ) {
        widened = false;
        for (const restart of postgres) {
          const until = (restart.healedAt ?? Number.POSITIVE_INFINITY) + KEY_REFILL_BOUND_MS;
          if (restart.startedAt <= span.until && until > span.until && until > span.from) {
            span.until = until;
            widened = true;
          }
        }
      }
      return span;
    });
}

/** Whether the gateway counted `answer` in its key's usage, as far as the record tells. */
function chargeOf(answer: UsageAnswer, revoked: Set<string>, unsureRevocations: Set<string>, copyLost: Span[]): Charge | 'unanswered' {
  if (answer.status === undefined) return 'unanswered';
  if (answer.status === 503 && UNCHECKABLE.test(answer.detail ?? '')) return 'uncharged';
  const refusedAsInvalid = answer.status === 401 || (answer.status === 429 && INVALID_KEYS_FROM_ADDRESS.test(answer.detail ?? ''));
  if (!refusedAsInvalid) return 'charged';
  if (unsureRevocations.has(answer.keyId)) return 'unsure';
  if (!revoked.has(answer.keyId)) return 'uncharged';
  return copyLost.some((span) => meets(span, answer.sentAt, answer.answeredAt ?? answer.sentAt)) ? 'unsure' : 'charged';
}

/**
 * When no builder's intake could count: every builder kept from PostgreSQL, from Redis or from
 * running, at once (one builder away leaves the other's intake taking every batch, and a batch an
 * intake took stays waiting until it is counted, so a builder killed mid-round loses none).
 */
function intakeAway(history: History): Span[] {
  const builders = [
    ...new Set([...history.processes.map((process) => process.name), ...history.faults.flatMap((fault) => fault.affects.map((affected) => affected.process))]),
  ].filter((name) => !isGateway(name));
  const away = builders.map((builder) =>
    history.faults
      .filter((fault) => fault.affects.some((affected) => affected.process === builder && ['postgres', 'redis', 'itself'].includes(affected.backend)))
      .map((fault) => ({ from: fault.startedAt, until: fault.healedAt ?? Number.POSITIVE_INFINITY })),
  );
  if (away.length === 0) return [];
  const edges = [...new Set(away.flat().flatMap((span) => [span.from, span.until]))].sort((a, b) => a - b);
  const spans: Span[] = [];
  for (const [index, from] of edges.entries()) {
    const until = edges[index + 1];
    if (until === undefined) break;
    const middle = until === Number.POSITIVE_INFINITY ? from + 1 : (from + until) / 2;
    if (!away.every((spansOfBuilder) => spansOfBuilder.some((span) => span.from <= middle && middle <= span.until))) continue;
    const last = spans.at(-1);
    if (last !== undefined && last.until === from) last.until = until;
    else spans.push({ from, until });
  }
  return spans;
}

/** A gateway killed outright, and the answers its kill may have cost their count. */
interface LossWindow extends Span {
  kill: AppliedFault;
  /** The faults that took the window further back than the move interval and slack. */
  widenedBy: AppliedFault[];
}

/** Each gateway kill's loss window (this module's opening comment). */
function lossWindows(history: History, moveMs: number): LossWindow[] {
  const reach = moveMs + MOVE_SLACK_MS;
  const away = intakeAway(history);
  const holdsBack = (fault: AppliedFault, gateway: ProcessName) =>
    // A kill of its own before is no reason: the process restarted counts afresh and moves within its interval.
    fault.kind !== 'kill' && fault.affects.some((affected) => affected.process === gateway && (affected.backend === 'redis' || affected.backend === 'itself'));
  return history.faults
    .filter((fault) => fault.kind === 'kill' && isGateway(fault.target))
    .map((kill) => {
      const window: LossWindow = { kill, from: kill.startedAt - reach, until: kill.healedAt ?? Number.POSITIVE_INFINITY, widenedBy: [] };
      for (let widened = true; widened; ) {
        widened = false;
        for (const fault of history.faults) {
          // A fault that ended a move and its slack before the window did its harm before it.
          if (fault === kill || fault.startedAt > kill.startedAt || (fault.healedAt ?? Number.POSITIVE_INFINITY) + reach < window.from) continue;
          let from = holdsBack(fault, kill.target) ? fault.startedAt - reach : Number.POSITIVE_INFINITY;
          if (DATA_LOSS.has(fault.kind)) {
            // The batches lost were put since the last intake round: an interval before, or before the builders went away.
            const since = away.find((span) => span.from <= fault.startedAt && fault.startedAt <= span.until)?.from ?? fault.startedAt;
            from = Math.min(from, since - INTAKE_INTERVAL_MS - reach);
          }
          if (from < window.from) {
            window.from = from;
            if (!window.widenedBy.includes(fault)) window.widenedBy.push(fault);
            widened = true;
          }
        }
      }
      return window;
    });
}

/** One key's figures: per outcome, what was charged, unsure, exposed to a kill and counted; and its unanswered requests. */
interface KeyFigures {
  organizationId: string | undefined;
  charged: Map<string, number>;
  unsure: Map<string, number>;
  exposed: Map<string, number>;
  counted: Map<string, number>;
  unanswered: number;
}

const add = (tally: Map<string, number>, outcome: string, count = 1) => tally.set(outcome, (tally.get(outcome) ?? 0) + count);
const sum = (tally: Map<string, number>) => [...tally.values()].reduce((total, count) => total + count, 0);

/**
 * The durable counts per key and outcome equal what the campaign was answered with that key, less
 * at most the answers of a killed gateway within its loss window, plus at most what went unanswered
 * (and the unsure answers): this module's opening comment. One violation per key that breaks
 * either bound, with its figures.
 */
export function checkUsage(history: History): InvariantResult {
  const { usage } = history;
  const revoked = new Set(history.changes.flatMap((change) => (change.kind === 'key.revoked' ? [change.keyId] : [])));
  const unsureRevocations = new Set(usage.revocationsUnsure);
  const copyLost = copyLostSpans(history.faults);
  const windows = lossWindows(history, usage.moveMs);
  const keys = new Map<string, KeyFigures>();
  const figuresOf = (keyId: string, organizationId: string | undefined) => {
    let figures = keys.get(keyId);
    if (figures === undefined) {
      figures = { organizationId, charged: new Map(), unsure: new Map(), exposed: new Map(), counted: new Map(), unanswered: 0 };
      keys.set(keyId, figures);
    }
    figures.organizationId ??= organizationId;
    return figures;
  };
  const perWindow = new Map<LossWindow, { answers: number; keys: Set<string> }>(windows.map((window) => [window, { answers: 0, keys: new Set() }]));
  let checked = 0;
  let uncharged = 0;
  const answers: Array<UsageAnswer & { organizationId?: string }> = [...history.requests, ...usage.otherAnswers];
  for (const answer of answers) {
    checked++;
    const figures = figuresOf(answer.keyId, answer.organizationId);
    const charge = chargeOf(answer, revoked, unsureRevocations, copyLost);
    if (charge === 'unanswered') figures.unanswered++;
    else if (charge === 'uncharged') uncharged++;
    else {
      const outcome = outcomeOf(answer.status!, answer.errorCode);
      add(charge === 'charged' ? figures.charged : figures.unsure, outcome);
      if (charge !== 'charged') continue;
      const window = windows.find((window) => window.kill.target === answer.gateway && meets(window, answer.answeredAt!, answer.answeredAt!));
      if (window === undefined) continue;
      add(figures.exposed, outcome);
      perWindow.get(window)!.answers++;
      perWindow.get(window)!.keys.add(answer.keyId);
    }
  }
  for (const row of usage.counted) add(figuresOf(row.keyId, row.organizationId).counted, outcomeOf(row.status, row.errorCode), row.requests);

  // Nothing read is nothing to compare: one violation, not one per key.
  if (usage.failure !== undefined) return { invariant: USAGE_INVARIANTS.usage, checked, violations: [`marquee_key_usage could not be read: ${usage.failure}`] };
  const violations: string[] = [];
  let lostWithinBound = 0;
  let countedOfUnanswered = 0;
  for (const [keyId, figures] of [...keys].sort(([a], [b]) => a.localeCompare(b))) {
    const problems: string[] = [];
    const most = sum(figures.charged) + sum(figures.unsure) + figures.unanswered;
    if (sum(figures.counted) > most) problems.push(`counted ${sum(figures.counted)} in all, more than the ${most} requests sent with it`);
    const outcomes = [...new Set([...figures.charged.keys(), ...figures.counted.keys()])].sort();
    for (const outcome of outcomes) {
      const counted = figures.counted.get(outcome) ?? 0;
      const charged = figures.charged.get(outcome) ?? 0;
      const unsure = figures.unsure.get(outcome) ?? 0;
      const exposed = figures.exposed.get(outcome) ?? 0;
      const figuresText = `${outcome} counted ${counted}, answered ${charged} (${exposed} of them in a killed gateway's loss window), ${unsure} unsure, ${figures.unanswered} unanswered`;
      if (counted > charged + unsure + figures.unanswered) problems.push(`${figuresText}: ${counted - charged - unsure - figures.unanswered} counted more than sent`);
      else if (counted < charged - exposed) problems.push(`${figuresText}: ${charged - exposed - counted} lost beyond the bound`);
      else if (counted < charged) lostWithinBound += charged - counted;
      else countedOfUnanswered += counted - charged;
    }
    if (problems.length > 0) violations.push(`${keyId} (${figures.organizationId ?? 'unknown organization'}): ${problems.join('; ')}`);
  }

  const every = [...keys.values()];
  const total = (pick: (figures: KeyFigures) => number) => every.reduce((sum, figures) => sum + pick(figures), 0);
  const bound =
    windows.length === 0
      ? 'no gateway killed: every key counted exactly as answered (and at most its unanswered)'
      : `loss windows (USAGE_MOVE_SECONDS ${usage.moveMs / 1000} s + ${MOVE_SLACK_MS / 1000} s before each gateway kill, to its restart): ${windows
          .map((window) => {
            const { answers, keys } = perWindow.get(window)!;
            const widened =
              window.widenedBy.length === 0
                ? ''
                : `, widened by fault${window.widenedBy.length > 1 ? 's' : ''} ${window.widenedBy.map((fault) => `#${fault.id} ${fault.kind}`).join(', ')}`;
            return `fault #${window.kill.id} on ${window.kill.target} at ${instant(window.kill.startedAt)}: ${instant(window.from)}–${instant(window.until)}${widened}, ${answers} answers of ${keys.size} keys`;
          })
          .join('; ')}`;
  return {
    invariant: USAGE_INVARIANTS.usage,
    checked,
    violations,
    notes: [
      `${keys.size} keys: answered ${total((figures) => sum(figures.charged))}, counted ${total((figures) => sum(figures.counted))}; ${total((figures) => figures.unanswered)} unanswered, ${total((figures) => sum(figures.unsure))} unsure, ${uncharged} charged to no key (unknown credentials, keys that could not be checked)`,
      `${lostWithinBound} lost within the bound, ${countedOfUnanswered} counted of the unanswered or unsure`,
      bound,
      `marquee_key_usage read ${usage.reads} times, ${usage.settled ? 'the last two agreeing' : 'never two reads agreeing (still moving at the bound)'}`,
    ],
  };
}
