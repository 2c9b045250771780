// The promises of BuildLocks (builder/build-locks.ts), as one suite every implementation runs: the
// in-process table and Redis. A holder is one BuildLocks (one builder process); the harness opens
// more holders of the same locks. What an implementation must do:
//
// - a lock has one holder at a time, among holders and among concurrent requests alike; locks of
//   different organizations are independent;
// - release frees it for anyone; releasing twice is harmless;
// - a lock its holder keeps renewing stays held past several times its TTL;
// - a lock its holder stops renewing (a stalled builder) expires after its TTL, and that holder's
//   late release does not free the lock its next holder took;
// - close abandons a holder's locks without releasing them (a killed builder): they expire.
//
// Expiry takes a TTL of real time, so the harness's timing is short (about a second).
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { BuildLease, BuildLocks, LockTiming } from '../../builder/build-locks.ts';
import { type ContractHooks, eventually, useHarness } from './harness.ts';

export interface BuildLocksHarness {
  /** The holder under test, with `timing`. */
  locks: BuildLocks;
  timing: LockTiming;
  /** Another holder of the same locks, as another builder process opens it (closed by the teardown). */
  holder(timing?: LockTiming): BuildLocks;
}

const ORG_A = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
const ORG_B = '9f8e7d6c-5b4a-4321-8fed-cba987654321';

/** The lease `locks` gets once the lock is free; fails after the `eventually` bound. */
async function acquiredEventually(locks: BuildLocks, organizationId: string): Promise<BuildLease> {
  let lease: BuildLease | undefined;
  await eventually(async () => {
    lease ??= await locks.acquire(organizationId);
    expect(lease).toBeDefined();
  }, 10_000);
  return lease!;
}

export function buildLocksContract<H extends BuildLocksHarness>(name: string, hooks: ContractHooks<H>): void {
  describe(`BuildLocks contract: ${name}`, () => {
    const harness = useHarness(hooks);
    const locks = () => harness().locks;

    it('gives one holder a lock at a time; locks of other organizations are independent', async () => {
      const other = harness().holder();
      const lease = await locks().acquire(ORG_A);
      expect(lease).toBeDefined();
      expect(await locks().acquire(ORG_A)).toBeUndefined();
      expect(await other.acquire(ORG_A)).toBeUndefined();
      expect(await other.acquire(ORG_B)).toBeDefined();
    });

    it('gives exactly one lease when many holders ask at once', async () => {
      const holders = [locks(), harness().holder(), harness().holder()];
      const leases = await Promise.all(holders.flatMap((holder) => Array.from({ length: 5 }, () => holder.acquire(ORG_A))));
      expect(leases.filter((lease) => lease !== undefined)).toHaveLength(1);
    });

    it('is free for anyone once released; releasing twice is harmless', async () => {
      const other = harness().holder();
      const lease = (await locks().acquire(ORG_A))!;
      await lease.release();
      const next = await other.acquire(ORG_A);
      expect(next).toBeDefined();
      await lease.release();
      expect(await harness().holder().acquire(ORG_A)).toBeUndefined();
      await next!.release();
      expect(await locks().acquire(ORG_A)).toBeDefined();
    });

    it('keeps a lock its holder renews, past three times its time to live', async () => {
      const { ttlMs } = harness().timing;
      const other = harness().holder();
      const lease = (await locks().acquire(ORG_A))!;
      const until = performance.now() + 3 * ttlMs;
      while (performance.now() < until) {
        expect(await other.acquire(ORG_A)).toBeUndefined();
        await sleep(ttlMs / 5);
      }
      expect(await other.acquire(ORG_A)).toBeUndefined();
      await lease.release();
      expect(await other.acquire(ORG_A)).toBeDefined();
    });

    it('lets a lock expire when its holder stops renewing it, and its late release frees nothing', async () => {
      const { ttlMs } = harness().timing;
      // Renews long after the lock expired: a builder stalled by a pause, a frozen machine.
      const stalled = harness().holder({ ttlMs, renewEveryMs: 100 * ttlMs });
      const stale = (await stalled.acquire(ORG_A))!;
      expect(stale).toBeDefined();
      expect(await locks().acquire(ORG_A)).toBeUndefined();
      const next = await acquiredEventually(locks(), ORG_A);
      await stale.release();
      expect(await harness().holder().acquire(ORG_A)).toBeUndefined();
      await next.release();
    });

    it('lets the locks of a closed holder expire (a killed builder)', async () => {
      const killed = harness().holder();
      expect(await killed.acquire(ORG_A)).toBeDefined();
      expect(await killed.acquire(ORG_B)).toBeDefined();
      await killed.close();
      await acquiredEventually(locks(), ORG_A);
      await acquiredEventually(locks(), ORG_B);
    });
  });
}
