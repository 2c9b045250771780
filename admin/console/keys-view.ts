// The keys table's rows: what a key is now (active, expiring, expired, revoked) in words, with
// its instants humanized and the organization named.
import type { AdminServices } from '../services.ts';
import { type ShownInstant, showInstant } from './relative-time.ts';

/** A key as the services list it (never its secret); expiry, last use and prefix where the key store keeps them. */
export type KeyItem = Awaited<ReturnType<AdminServices['keys']['list']>>[number] & { expiresAt?: string | null; lastUsedAt?: string | null; prefix?: string | null };

export type KeyState = 'active' | 'expired' | 'revoked';

export interface KeyRow {
  id: string;
  prefix: string | null;
  organizationId: string;
  organizationName: string;
  label: string | null;
  origins: string[];
  createdAt: ShownInstant | undefined;
  expiresAt: ShownInstant | undefined;
  lastUsedAt: ShownInstant | undefined;
  state: KeyState;
  stateText: string;
}

/**
 * A revocation may lie in the future (a rolled key's grace): until then the key works. A revoked or
 * expired key says since when: "revoked" alone left the operator asking when, and by what.
 */
export function keyState(key: KeyItem, now: Date): { state: KeyState; text: string } {
  const revokedAt = key.revokedAt ? new Date(key.revokedAt) : undefined;
  if (revokedAt && revokedAt <= now) return { state: 'revoked', text: `revoked ${revokedAt.toISOString()}` };
  const expiresAt = key.expiresAt ? new Date(key.expiresAt) : undefined;
  if (expiresAt && expiresAt <= now) return { state: 'expired', text: `expired ${expiresAt.toISOString()}` };
  if (revokedAt) return { state: 'active', text: `active until ${revokedAt.toISOString()} (rolled)` };
  return { state: 'active', text: 'active' };
}

export function keyRow(key: KeyItem, organizationNames: ReadonlyMap<string, string>, now: Date): KeyRow {
  const { state, text } = keyState(key, now);
  return {
    id: key.id,
    prefix: key.prefix ?? null,
    organizationId: key.organizationId,
    organizationName: organizationNames.get(key.organizationId) ?? key.organizationId,
    label: key.label,
    origins: key.origins,
    createdAt: showInstant(key.createdAt, now),
    expiresAt: showInstant(key.expiresAt, now),
    lastUsedAt: showInstant(key.lastUsedAt, now),
    state,
    stateText: text,
  };
}

/** The origins textarea: one per line; blank lines and surrounding spaces are nothing. */
export function originLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
