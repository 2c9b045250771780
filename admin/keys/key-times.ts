// The operator's way of writing a key's times: `keys roll --grace 24h`, `keys create --expires 90d`
// or an ISO instant. Shared by the CLI and the admin API, so both accept the same texts.
import { parseZonedInstant } from '../../runtime/instant.ts';
import { KeyCommandError } from './key-admin.ts';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+)(s|m|h|d)$/;

/** `30m`, `24h`, `7d`, `90s`, or `0`; a message naming `what` (e.g. `--grace`) otherwise. */
export function parseDuration(text: string, what: string): number {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const match = DURATION.exec(trimmed);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2]!]! : Number.NaN;
  if (!Number.isSafeInteger(ms)) throw new KeyCommandError(`${what} ${JSON.stringify(text)} is not a duration such as 30m, 24h or 7d (or 0)`);
  return ms;
}

/** `--expires`: a duration from `now` (`90d`), or an ISO 8601 instant with its offset (`2027-01-01T00:00:00Z`). */
export function parseExpiry(text: string, now: Date): Date {
  const trimmed = text.trim();
  if (DURATION.test(trimmed)) return new Date(now.getTime() + parseDuration(trimmed, '--expires'));
  const at = parseZonedInstant(trimmed);
  if (at === undefined) throw new KeyCommandError(`--expires ${JSON.stringify(text)} is neither a duration such as 90d nor an ISO instant such as 2027-01-01T00:00:00Z`);
  return at;
}
