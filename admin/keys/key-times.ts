// The operator's way of writing a key's times: a grace period of 24h, an expiry of 90d or an ISO
// instant. Shared by the CLI and the admin API, so both accept the same texts.
import { parseDurationMs } from '../../runtime/duration.ts';
import { parseZonedInstant } from '../../runtime/instant.ts';
import { KeyCommandError } from './key-admin.ts';

/** `30m`, `24h`, `7d`, `90s`, or `0`; a message naming `what` (e.g. `--grace`) otherwise. */
export function parseDuration(text: string, what: string): number {
  if (text.trim() === '0') return 0;
  const ms = parseDurationMs(text);
  if (ms === undefined) throw new KeyCommandError(`${what} ${JSON.stringify(text)} is not a duration such as 30m, 24h or 7d (or 0)`);
  return ms;
}

/** A key's `expiresAt` as an operator writes it: a duration from `now` (`90d`), or an ISO 8601 instant with its offset (`2027-01-01T00:00:00Z`). */
export function parseExpiry(text: string, now: Date): Date {
  const ms = parseDurationMs(text);
  if (ms !== undefined) return new Date(now.getTime() + ms);
  const at = parseZonedInstant(text);
  if (at === undefined)
    throw new KeyCommandError(`${JSON.stringify(text)} is neither a duration such as 90d nor an ISO instant such as 2027-01-01T00:00:00Z`, { field: 'expiresAt' });
  return at;
}
