// `--since` and `?since=` of the audit trail's readers: an ISO 8601 instant with a zone, or a
// duration back from now (30m, 24h, 7d), as operators write them elsewhere (keys' --expires).
import { parseDurationMs } from '../../runtime/duration.ts';
import { OperatorError } from '../../runtime/errors.ts';
import { parseZonedInstant, ZONED_INSTANT_EXAMPLE } from '../../runtime/instant.ts';

/** An OperatorError naming `what` (the CLI's option, the API's parameter: answered as 400) when it is neither. */
export function sinceInstant(what: string, text: string, now: Date): Date {
  const ms = parseDurationMs(text);
  if (ms !== undefined) return new Date(now.getTime() - ms);
  const at = parseZonedInstant(text);
  if (at === undefined)
    throw new OperatorError(`${what} ${JSON.stringify(text)} is neither a duration such as 24h or 7d nor an ISO 8601 instant with a zone such as ${ZONED_INSTANT_EXAMPLE}`);
  return at;
}
