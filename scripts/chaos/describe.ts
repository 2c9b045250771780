// What every checker of the campaign answers, and how it names instants, requests and faults in its
// violations, so that the report's lines read alike whichever module judged them (invariants.ts,
// crawl-invariants.ts).
import type { AppliedFault, RequestRecord } from './history.ts';

export interface InvariantResult {
  /** The report line's name. */
  invariant: string;
  /** How many facts it judged: zero means the campaign gave it nothing to judge. */
  checked: number;
  /** Each names the request, key, organization, message or fault, and the instants. */
  violations: string[];
  /** What the report shows beside the count that is no violation (duplicate deliveries, excused answers). */
  notes?: string[];
  /** What the checker needed the campaign to produce and found missing: `campaign exercised` fails on it. */
  unexercised?: string[];
}

/** An instant of the campaign's clock, as every violation and the report write it. */
export const instant = (ms: number | undefined): string => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(3)} s`);

export const describeRequest = (request: RequestRecord): string =>
  `${request.gateway} GET ${request.path}${request.pin === undefined ? '' : ` pinned to ${request.pin}`} with ${request.keyId} (${request.organizationId}) sent at ${instant(request.sentAt)}, answered ${request.status ?? 'nothing'} at ${instant(request.answeredAt)}`;

export const describeFault = (fault: AppliedFault): string => `fault #${fault.id} ${fault.kind} on ${fault.target} (${instant(fault.startedAt)}–${instant(fault.healedAt)})`;

export function append<T>(groups: Map<string, T[]>, key: string, item: T): void {
  const group = groups.get(key);
  if (group === undefined) groups.set(key, [item]);
  else group.push(item);
}
