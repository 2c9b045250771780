// `--since`/`--until` and `?since=`/`?until=` of the audit trail's readers: an ISO 8601 instant
// with a zone, or a duration back from now (30m, 24h, 7d), as operators write them elsewhere
// (keys' --expires). `since` is inclusive and `until` exclusive: the window since..until is
// half-open, so windows laid end to end (an export a day) hold each entry exactly once.
import { parseDurationMs } from '../../runtime/duration.ts';
import { OperatorError } from '../../runtime/errors.ts';
import { parseZonedInstant, ZONED_INSTANT_EXAMPLE } from '../../runtime/instant.ts';

/** An OperatorError naming `what` (the CLI's option, the API's parameter: answered as 400) when it is neither. */
function sinceInstant(what: string, text: string, now: Date): Date {
  const ms = parseDurationMs(text);
  if (ms !== undefined) return new Date(now.getTime() - ms);
  const at = parseZonedInstant(text);
  if (at === undefined)
    throw new OperatorError(`${what} ${JSON.stringify(text)} is neither a duration such as 24h or 7d nor an ISO 8601 instant with a zone such as ${ZONED_INSTANT_EXAMPLE}`);
  return at;
}

/**
 * Both ends of a reader's window, each as sinceInstant reads it, named as the door names them
 * (`--since`, `since`). An `until` at or before `since` is refused rather than answered with
 * nothing: the two were most likely swapped (since 1h, until 7d).
 */
export function auditWindow(
  texts: { readonly since?: string | undefined; readonly until?: string | undefined },
  names: { readonly since: string; readonly until: string },
  now: Date,
): { since?: Date; until?: Date } {
  const since = texts.since === undefined ? undefined : sinceInstant(names.since, texts.since, now);
  const until = texts.until === undefined ? undefined : sinceInstant(names.until, texts.until, now);
  if (since !== undefined && until !== undefined && until.getTime() <= since.getTime())
    throw new OperatorError(
      `${names.until} ${JSON.stringify(texts.until)} (${until.toISOString()}) is not after ${names.since} ${JSON.stringify(texts.since)} (${since.toISOString()}): the window would hold nothing`,
    );
  return { ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) };
}
