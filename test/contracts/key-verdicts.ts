// The promises of KeyVerdicts (gateway/access/key-verdicts.ts), as one suite every backend runs:
// the embedded verdicts (a key store, then a limiter) and the Redis ones (both in one script).
// Every result is awaited, so synchronous and asynchronous backends fit. What a backend must do,
// with the clock given as `nowMs`:
//
// - verdict: the key's record, revoked or not, as the store has it, from the next call after a
//   change on; no record for an unknown hash; never `retryAfterSeconds` while the store answers;
// - verdict then settle: at most `limit` requests per key in any window, as the RateLimiter
//   contract counts them (remaining counting down, refused ones not counted, resetSeconds to the
//   oldest counted second), each key on its own;
// - verdict then release: the request uses none of the quota, wherever in the window it came;
//   releasing a request that was over the limit frees nothing;
// - many verdicts at once: exactly `limit` accepted;
// - a key revoked outright, scheduled and due, or expired at `nowMs` is answered with its record
//   and never counted (no `rate`); before a scheduled revocation or an expiry it is usable and
//   counted; whatever `nowMs` says, an outright revocation applies;
// - with a copy of the store that can lose its data (capability `copy`, docs/design.md "Keys
//   outlive any cache"): a key missing from a copy marked complete is unknown; once the copy has
//   lost its data (the mark gone with it), or while a keeper refills it, a missing key is one that
//   cannot be checked (`retryAfterSeconds`, a 503), never unknown, and a key found is judged as
//   found, a revoked one never usable; a copy no keeper ever marked answers a missing key unknown.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KeyVerdicts, UsableVerdict } from '../../gateway/access/key-verdicts.ts';
import type { RateDecision } from '../../gateway/access/rate-limit.ts';
import type { Awaitable } from '../../runtime/awaitable.ts';
import type { KeyStore } from '../../records/keys/key-store.ts';
import { standingAt } from '../../records/keys/key-validity.ts';
import { type ContractHooks, itWith, useHarness } from './harness.ts';

export interface KeyVerdictsHarness {
  /** The store whose keys the verdicts judge; empty at first. */
  store: KeyStore;
  /** Verdicts on `store`'s keys; call once per test (the counts of one call are not another's business). */
  verdicts(options: { limit: number; windowSeconds: number }): Awaitable<KeyVerdicts>;
  /** The copy the verdicts read, as its keeper and its faults see it. */
  copy?: {
    /** What a keeper does once it has written every record. */
    markComplete(): Promise<void>;
    /** What a keeper does when it begins to refill an empty copy. */
    markRefilling(): Promise<void>;
    /** Every record and the mark gone, as after FLUSHALL or a restart without persistence. */
    lose(): Promise<void>;
  };
}

const ORG = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
/** A second boundary. */
const T0 = Date.UTC(2026, 4, 1, 9, 0, 0);

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export function keyVerdictsContract<H extends KeyVerdictsHarness>(name: string, hooks: ContractHooks<H>): void {
  describe(`KeyVerdicts contract: ${name}`, () => {
    const harness = useHarness(hooks);
    const withCopy = itWith(hooks, 'copy');
    const newKey = async () => (await harness().store.create({ organizationId: ORG, label: null, origins: ['https://site.example'] })).record;

    async function usable(verdicts: KeyVerdicts, secretHash: string, nowMs: number): Promise<UsableVerdict> {
      const verdict = await verdicts.verdict(secretHash, nowMs);
      expect(verdict.retryAfterSeconds).toBeUndefined();
      expect(verdict.record && standingAt(verdict.record, nowMs)).toBe('usable');
      return verdict as UsableVerdict;
    }

    /** One request that passed every other check. */
    async function admitted(verdicts: KeyVerdicts, secretHash: string, nowMs: number): Promise<RateDecision> {
      return verdicts.settle(await usable(verdicts, secretHash, nowMs), nowMs);
    }

    /** One request refused with 403 after its verdict. */
    async function refused(verdicts: KeyVerdicts, secretHash: string, nowMs: number): Promise<void> {
      await verdicts.release(await usable(verdicts, secretHash, nowMs));
    }

    it('reports its limit and window', async () => {
      const verdicts = await harness().verdicts({ limit: 7, windowSeconds: 13 });
      expect(verdicts.limit).toBe(7);
      expect(verdicts.windowSeconds).toBe(13);
    });

    it('finds the record as the store has it, and nothing for an unknown hash', async () => {
      const verdicts = await harness().verdicts({ limit: 5, windowSeconds: 60 });
      const record = await newKey();
      expect((await verdicts.verdict(record.secretHash, T0)).record).toEqual(record);
      const unknown = await verdicts.verdict(sha256('no such key'), T0);
      expect(unknown.record).toBeUndefined();
      expect(unknown.retryAfterSeconds).toBeUndefined();
    });

    it('sees a key created and a revocation made through the store from the next verdict on', async () => {
      const verdicts = await harness().verdicts({ limit: 5, windowSeconds: 60 });
      expect((await verdicts.verdict(sha256('later'), T0)).record).toBeUndefined();
      const record = await newKey();
      expect((await verdicts.verdict(record.secretHash, T0)).record).toEqual(record);
      const at = new Date('2026-05-01T09:00:00Z');
      await harness().store.revoke(record.id, at);
      expect((await verdicts.verdict(record.secretHash, T0)).record).toEqual({ ...record, revokedAt: at.toISOString() });
    });

    it('judges revocation and expiry at the request instant: counted before, never after', async () => {
      const verdicts = await harness().verdicts({ limit: 5, windowSeconds: 60 });
      const store = harness().store;
      const rolled = await newKey();
      await store.scheduleRevocation(rolled.id, new Date(T0 + 2_000));
      const expiring = (await store.create({ organizationId: ORG, label: null, origins: [], expiresAt: new Date(T0 + 2_000) })).record;
      for (const key of [rolled, expiring]) {
        expect(await admitted(verdicts, key.secretHash, T0 + 1_999)).toMatchObject({ allowed: true, remaining: 4 });
        const after = await verdicts.verdict(key.secretHash, T0 + 2_000);
        expect(after.record?.id).toBe(key.id);
        expect(after.rate).toBeUndefined();
        expect(after.retryAfterSeconds).toBeUndefined();
      }
      expect((await verdicts.verdict(rolled.secretHash, T0 + 2_000)).record).toMatchObject({ revokedAt: new Date(T0 + 2_000).toISOString(), revocationScheduled: true });
      // Revoked outright "later" than the request's clock: revoked all the same (clocks differ between machines).
      const revoked = await newKey();
      await store.revoke(revoked.id, new Date(T0 + 3_600_000));
      const verdict = await verdicts.verdict(revoked.secretHash, T0);
      expect(verdict.record).toMatchObject({ revocationScheduled: false });
      expect(verdict.rate).toBeUndefined();
    });

    it('sees an update of origins through the store from the next verdict on', async () => {
      const verdicts = await harness().verdicts({ limit: 5, windowSeconds: 60 });
      const record = await newKey();
      await harness().store.update(record.id, { origins: ['https://other.example'] });
      expect((await verdicts.verdict(record.secretHash, T0)).record?.origins).toEqual(['https://other.example']);
    });

    it('counts settled requests against the limit, each key on its own, and refuses past it until a slot frees', async () => {
      const verdicts = await harness().verdicts({ limit: 3, windowSeconds: 60 });
      const [a, b] = [await newKey(), await newKey()];
      expect(await admitted(verdicts, a.secretHash, T0)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
      expect(await admitted(verdicts, a.secretHash, T0 + 10_000)).toEqual({ allowed: true, limit: 3, remaining: 1, resetSeconds: 50 });
      expect(await admitted(verdicts, a.secretHash, T0 + 20_000)).toEqual({ allowed: true, limit: 3, remaining: 0, resetSeconds: 40 });
      expect(await admitted(verdicts, a.secretHash, T0 + 30_000)).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 30 });
      expect(await admitted(verdicts, b.secretHash, T0 + 30_000)).toMatchObject({ allowed: true, remaining: 2 });
      // Refused requests were not counted: the first slot frees a window after it was taken.
      expect(await admitted(verdicts, a.secretHash, T0 + 59_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
      expect(await admitted(verdicts, a.secretHash, T0 + 60_000)).toEqual({ allowed: true, limit: 3, remaining: 0, resetSeconds: 10 });
    });

    it('lets a released request use none of the quota', async () => {
      const verdicts = await harness().verdicts({ limit: 2, windowSeconds: 60 });
      const { secretHash } = await newKey();
      for (let i = 0; i < 5; i++) await refused(verdicts, secretHash, T0 + i * 1_000);
      expect(await admitted(verdicts, secretHash, T0 + 10_000)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
      await refused(verdicts, secretHash, T0 + 20_000);
      expect(await admitted(verdicts, secretHash, T0 + 30_000)).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 40 });
      // The released requests left nothing behind: the slots free when the admitted ones leave.
      expect(await admitted(verdicts, secretHash, T0 + 69_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
      expect(await admitted(verdicts, secretHash, T0 + 70_000)).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 20 });
    });

    it('frees nothing when a request over the limit is released', async () => {
      const verdicts = await harness().verdicts({ limit: 2, windowSeconds: 60 });
      const { secretHash } = await newKey();
      await admitted(verdicts, secretHash, T0);
      await admitted(verdicts, secretHash, T0 + 1_000);
      for (let i = 0; i < 3; i++) await refused(verdicts, secretHash, T0 + 2_000);
      expect(await admitted(verdicts, secretHash, T0 + 3_000)).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 57 });
    });

    it('accepts exactly `limit` of many requests judged at once', async () => {
      const verdicts = await harness().verdicts({ limit: 100, windowSeconds: 60 });
      const { secretHash } = await newKey();
      const decisions = await Promise.all(Array.from({ length: 250 }, (_, i) => admitted(verdicts, secretHash, T0 + (i % 10) * 100)));
      expect(
        decisions
          .filter((d) => d.allowed)
          .map((d) => d.remaining)
          .sort((x, y) => x - y),
      ).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect(decisions.filter((d) => !d.allowed)).toHaveLength(150);
    });

    withCopy('answers a key missing from a copy marked complete unknown, and one missing from a copy that lost its data 503, never unknown', async () => {
      const copy = harness().copy!;
      const verdicts = await harness().verdicts({ limit: 5, windowSeconds: 60 });
      const valid = await newKey();
      await copy.markComplete();
      expect((await verdicts.verdict(valid.secretHash, T0)).record).toEqual(valid);
      expect(await verdicts.verdict(sha256('no such key'), T0)).toEqual({ record: undefined });
      await copy.lose();
      for (const secretHash of [valid.secretHash, sha256('no such key')]) {
        const verdict = await verdicts.verdict(secretHash, T0);
        expect(verdict.record).toBeUndefined();
        expect(verdict.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      }
      // A keeper refilling: what it wrote is judged as written (a revoked key never usable), the rest still 503.
      await copy.markRefilling();
      const revoked = await newKey();
      await harness().store.revoke(revoked.id, new Date(T0));
      const found = await verdicts.verdict(revoked.secretHash, T0);
      expect(found.record).toMatchObject({ id: revoked.id, revokedAt: new Date(T0).toISOString() });
      expect(found.rate).toBeUndefined();
      expect((await verdicts.verdict(valid.secretHash, T0)).retryAfterSeconds).toBeGreaterThanOrEqual(1);
      await copy.markComplete();
      expect(await verdicts.verdict(valid.secretHash, T0)).toEqual({ record: undefined });
    });

    withCopy('answers a missing key 503 while a keeper refills the copy, even to verdicts that never saw it complete', async () => {
      const copy = harness().copy!;
      await copy.markRefilling();
      const verdicts = await harness().verdicts({ limit: 5, windowSeconds: 60 });
      expect((await verdicts.verdict(sha256('not copied back yet'), T0)).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    });

    withCopy('answers a missing key unknown from a copy no keeper ever marked (a Redis seeded directly, an older release)', async () => {
      const copy = harness().copy!;
      const verdicts = await harness().verdicts({ limit: 5, windowSeconds: 60 });
      const record = await newKey();
      expect(await admitted(verdicts, record.secretHash, T0)).toMatchObject({ allowed: true, remaining: 4 });
      await copy.lose();
      expect(await verdicts.verdict(record.secretHash, T0)).toEqual({ record: undefined });
      expect(await verdicts.verdict(sha256('no such key'), T0)).toEqual({ record: undefined });
    });
  });
}
