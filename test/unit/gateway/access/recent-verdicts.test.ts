// What a gateway may answer from memory while the shared key store cannot be reached: recently
// confirmed valid keys, revoked keys whatever their age, nothing else; bounded in bytes.
import { describe, expect, it } from 'vitest';
import { RecentVerdicts } from '../../../../gateway/access/recent-verdicts.ts';
import type { KeyRecord } from '../../../../records/keys/key-store.ts';

const T0 = Date.UTC(2026, 4, 1, 9, 0, 0);
const MINUTE = 60_000;

const record = (n: number, revokedAt: string | null = null, expiresAt: string | null = null): KeyRecord => ({
  id: `key_${n}`,
  organizationId: 'org',
  label: null,
  origins: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt,
  revokedAt,
  revocationScheduled: false,
  prefix: null,
  lastUsedAt: null,
  secretHash: `hash-${n}`,
});

describe('RecentVerdicts', () => {
  it('recalls nothing it was not told', () => {
    expect(new RecentVerdicts().recall('hash-1', T0)).toBeUndefined();
  });

  it('vouches for a valid key up to maxAgeMs after its last confirmation, not after', () => {
    const recent = new RecentVerdicts({ maxAgeMs: 5 * MINUTE });
    recent.confirm(record(1), T0);
    expect(recent.recall('hash-1', T0 + 5 * MINUTE)).toEqual(record(1));
    expect(recent.recall('hash-1', T0 + 5 * MINUTE + 1)).toBeUndefined();
    // Each confirmation starts the age afresh.
    recent.confirm(record(1), T0 + 4 * MINUTE);
    expect(recent.recall('hash-1', T0 + 9 * MINUTE)).toEqual(record(1));
  });

  it('answers with the record as last confirmed: a later revocation or origin edit replaces it', () => {
    const recent = new RecentVerdicts();
    recent.confirm(record(1), T0);
    recent.confirm({ ...record(1), origins: ['https://site.example'] }, T0 + 1);
    expect(recent.recall('hash-1', T0 + 2)?.origins).toEqual(['https://site.example']);
    recent.confirm(record(1, '2026-05-01T09:00:00.000Z'), T0 + 3);
    expect(recent.recall('hash-1', T0 + 4)?.revokedAt).toBe('2026-05-01T09:00:00.000Z');
  });

  it('remembers a revoked key as revoked whatever its age: revocation is final', () => {
    const recent = new RecentVerdicts({ maxAgeMs: MINUTE });
    recent.confirm(record(1, '2026-05-01T09:00:00.000Z'), T0);
    expect(recent.recall('hash-1', T0 + 24 * 60 * MINUTE)?.revokedAt).toBe('2026-05-01T09:00:00.000Z');
  });

  it('vouches for a key whose revocation is scheduled only while recent; once the instant has come, it is revoked whatever its age', () => {
    const recent = new RecentVerdicts({ maxAgeMs: MINUTE });
    const scheduled = { ...record(1, new Date(T0 + 10 * MINUTE).toISOString()), revocationScheduled: true };
    recent.confirm(scheduled, T0);
    expect(recent.recall('hash-1', T0 + MINUTE)).toEqual(scheduled);
    // Not confirmed for a while, not yet revoked: it may have been revoked earlier since.
    expect(recent.recall('hash-1', T0 + 5 * MINUTE)).toBeUndefined();
    // Its revocation has come: final, answered as revoked.
    expect(recent.recall('hash-1', T0 + 10 * MINUTE)).toEqual(scheduled);
  });

  it('remembers an expired key as expired whatever its age; an unexpired one only while recent', () => {
    const recent = new RecentVerdicts({ maxAgeMs: MINUTE });
    const expiring = record(1, null, new Date(T0 + 3 * MINUTE).toISOString());
    recent.confirm(expiring, T0);
    expect(recent.recall('hash-1', T0 + 2 * MINUTE)).toBeUndefined();
    expect(recent.recall('hash-1', T0 + 3 * MINUTE)).toEqual(expiring);
    expect(recent.recall('hash-1', T0 + 24 * 60 * MINUTE)).toEqual(expiring);
  });

  it('forgets a key the store no longer knows', () => {
    const recent = new RecentVerdicts();
    recent.confirm(record(1), T0);
    recent.forget('hash-1');
    expect(recent.recall('hash-1', T0)).toBeUndefined();
  });

  it('holds at most `maxBytes` of keys, forgetting the least recently used first', () => {
    // A record without label or origins weighs 1,050 bytes: room for three, not four.
    const recent = new RecentVerdicts({ maxBytes: 3 * 1050 + 100 });
    for (let n = 1; n <= 3; n++) recent.confirm(record(n), T0);
    // Asked for again: now the most recently used.
    recent.recall('hash-1', T0);
    recent.confirm(record(4), T0);
    expect([1, 2, 3, 4].map((n) => recent.recall(`hash-${n}`, T0)?.id)).toEqual(['key_1', undefined, 'key_3', 'key_4']);
    expect(recent.stats).toMatchObject({ weight: 3 * 1050, evictions: 1 });
  });

  it('weighs a key again when its label or origins change', () => {
    const recent = new RecentVerdicts();
    recent.confirm(record(1), T0);
    expect(recent.stats.weight).toBe(1050);
    recent.confirm({ ...record(1), label: 'site', origins: ['https://a.example'] }, T0);
    expect(recent.stats.weight).toBe(1050 + 4 + 32 + 17);
    recent.confirm(record(1), T0);
    expect(recent.stats.weight).toBe(1050);
  });
});
