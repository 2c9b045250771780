// What a gateway counts between two moves (gateway/usage/usage-tally.ts): per key, hour, route and
// outcome, the refused origins named up to a few per key and the rest together, within its bytes
// (beyond them a count is dropped and said so, and an early move is asked for at half of them).
import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../../../records/usage/usage-batch.ts';
import { UsageTally } from '../../../../gateway/usage/usage-tally.ts';

const HOUR = Date.UTC(2026, 10, 27, 16);
const A = { id: 'key_A', organizationId: 'org-1' };
const B = { id: 'key_B', organizationId: 'org-2' };
const EVENTS = '/api/integration/v1/events';
const ORGANIZATION = '/api/integration/v1/organization';

function tallyAt(start: number, maxBytes = 1_000_000) {
  let now = start;
  let pressure = 0;
  const tally = new UsageTally({ maxBytes, clock: () => now, onPressure: () => pressure++ });
  return { tally, at: (ms: number) => (now = ms), pressure: () => pressure };
}

const sorted = <T>(items: T[]) => [...items].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('UsageTally', () => {
  it('counts per key, hour, route and outcome, a 403 by its errorCode, and starts empty after take', () => {
    const { tally } = tallyAt(HOUR + 5);
    for (let i = 0; i < 3; i++) tally.count(A, EVENTS, 200, '', undefined);
    tally.count(A, EVENTS, 304, '', undefined);
    tally.count(A, ORGANIZATION, 200, '', undefined);
    tally.count(A, EVENTS, 403, 'API_KEY_ORIGIN_NOT_ALLOWED', 'https://evil.example');
    tally.count(A, EVENTS, 403, 'ORGANIZATION_SUSPENDED', undefined);
    tally.count(B, EVENTS, 401, '', undefined);
    const taken = tally.take();
    const count = (keyId: string, route: string, status: number, errorCode: string, requests: number) => ({
      keyId,
      organizationId: keyId === 'key_A' ? 'org-1' : 'org-2',
      hour: HOUR,
      route,
      status,
      errorCode,
      requests,
    });
    expect(sorted(taken.counts)).toEqual(
      sorted([
        count('key_A', EVENTS, 200, '', 3),
        count('key_A', EVENTS, 304, '', 1),
        count('key_A', ORGANIZATION, 200, '', 1),
        count('key_A', EVENTS, 403, 'API_KEY_ORIGIN_NOT_ALLOWED', 1),
        count('key_A', EVENTS, 403, 'ORGANIZATION_SUSPENDED', 1),
        count('key_B', EVENTS, 401, '', 1),
      ]),
    );
    expect(taken.origins).toEqual([{ keyId: 'key_A', organizationId: 'org-1', hour: HOUR, origin: 'https://evil.example', requests: 1 }]);
    expect(tally.bytes).toBe(0);
    expect(tally.take()).toEqual({ counts: [], origins: [] });
  });

  it('keeps each hour apart: a key counted across the hour has a count in each', () => {
    const { tally, at } = tallyAt(HOUR + HOUR_MS - 1);
    tally.count(A, EVENTS, 200, '', undefined);
    at(HOUR + HOUR_MS);
    tally.count(A, EVENTS, 200, '', undefined);
    tally.count(A, EVENTS, 200, '', undefined);
    const hours = tally.take().counts.map((count) => [count.hour, count.requests]);
    expect(sorted(hours)).toEqual(
      sorted([
        [HOUR, 1],
        [HOUR + HOUR_MS, 2],
      ]),
    );
  });

  it('names the first few refused origins of a key and counts the others together under ""', () => {
    const { tally } = tallyAt(HOUR);
    const origins = ['https://a.example', 'https://b.example', 'https://c.example', 'https://d.example', 'https://e.example', 'https://f.example'];
    for (const origin of origins) tally.count(A, EVENTS, 403, 'API_KEY_ORIGIN_NOT_ALLOWED', origin);
    tally.count(A, EVENTS, 403, 'API_KEY_ORIGIN_NOT_ALLOWED', 'https://a.example');
    const taken = tally.take();
    const byOrigin = Object.fromEntries(taken.origins.map((o) => [o.origin, o.requests]));
    expect(byOrigin).toEqual({ 'https://a.example': 2, 'https://b.example': 1, 'https://c.example': 1, 'https://d.example': 1, '': 2 });
    // The refused origins add up to the key's refusals for its origin.
    expect(taken.origins.reduce((sum, o) => sum + o.requests, 0)).toBe(taken.counts.find((c) => c.status === 403)!.requests);
  });

  it('cuts an origin longer than the store keeps', () => {
    const { tally } = tallyAt(HOUR);
    tally.count(A, EVENTS, 403, 'API_KEY_ORIGIN_NOT_ALLOWED', `https://${'x'.repeat(500)}.example`);
    expect(tally.take().origins[0]!.origin).toHaveLength(200);
  });

  it('stays within its bytes: past them a new key is dropped and counted as dropped, a held one still counts', () => {
    const { tally, pressure } = tallyAt(HOUR, 3_000);
    for (let i = 0; i < 100; i++) tally.count({ id: `key_${i}`, organizationId: 'org-1' }, EVENTS, 200, '', undefined);
    expect(tally.bytes).toBeLessThanOrEqual(3_000);
    expect(tally.dropped).toBeGreaterThan(0);
    expect(pressure()).toBe(1);
    const held = tally.take().counts;
    expect(held.length + tally.dropped).toBe(100);
    // After a take the budget is free again.
    tally.count(B, EVENTS, 200, '', undefined);
    expect(tally.take().counts).toHaveLength(1);
  });
});
