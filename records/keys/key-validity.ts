// Whether a key is valid at an instant: the one rule every verdict path applies (the embedded
// verdicts through access control, the Redis script, the recent verdicts used while Redis is away).
import type { KeyRecord } from './key-store.ts';

/**
 * Usable, or why not. Revoked outright, or scheduled and revokedAt ≤ now (e.g. the end of
 * `keys roll`'s grace period); expired iff expiresAt ≤ now. Both are final.
 */
export type KeyStanding = 'usable' | 'revoked' | 'expired';

export function standingAt(record: Pick<KeyRecord, 'revokedAt' | 'revocationScheduled' | 'expiresAt'>, nowMs: number): KeyStanding {
  // Most keys have neither: no date is parsed on their requests.
  if (record.revokedAt !== null && (!record.revocationScheduled || Date.parse(record.revokedAt) <= nowMs)) return 'revoked';
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= nowMs) return 'expired';
  return 'usable';
}
