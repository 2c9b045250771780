// The promises of the shared place for usage counts (records/usage/usage-spool.ts), as one suite both
// backends run, the directory of an embedded deployment and Redis:
//
// - put then waiting: the batch, byte for byte; putting the same id again is one batch;
// - settle: a batch put and still waiting is neither counted nor lost; once marked counted it is
//   counted; an id never put (or one the place lost) is lost — except where the place cannot lose
//   a batch (a directory), where it reads as counted: the capability `loses` says which;
// - markCounted: the batch no longer waits; marking twice, or an id never put, is harmless;
// - waiting: at most `limit`, from a second view too (another process on the same place).
import { describe, expect, it } from 'vitest';
import type { UsageSpool } from '../../records/usage/usage-spool.ts';
import { type ContractHooks, itWith, useHarness } from './harness.ts';

export interface UsageSpoolHarness {
  spool: UsageSpool;
  /** The same place as another process opens it. */
  other: () => UsageSpool;
  /** Makes the place lose everything it holds (FLUSHALL), for a place that can. */
  loses?: () => Promise<void>;
}

const batch = (id: string) => ({ id, payload: JSON.stringify({ id, c: [['key_1', 'org', 0, '/x', 200, '', 1]], o: [] }) });

export function usageSpoolContract<H extends UsageSpoolHarness>(name: string, hooks: ContractHooks<H>): void {
  describe(`UsageSpool contract: ${name}`, () => {
    const harness = useHarness(hooks);

    it('gives back what was put, byte for byte, once however often it was put', async () => {
      const { spool, other } = harness();
      await spool.put(batch('gw-1.1'));
      await spool.put(batch('gw-1.1'));
      await spool.put(batch('gw-2.1'));
      const waiting = await other().waiting(10);
      expect(waiting.sort((a, b) => a.id.localeCompare(b.id))).toEqual([batch('gw-1.1'), batch('gw-2.1')]);
    });

    it('settles a waiting batch as neither, and a counted one as counted', async () => {
      const { spool, other } = harness();
      await spool.put(batch('gw-1.1'));
      await spool.put(batch('gw-1.2'));
      expect(await spool.settle(['gw-1.1', 'gw-1.2'])).toEqual({ counted: [], lost: [] });
      await other().markCounted(['gw-1.1']);
      expect(await spool.settle(['gw-1.1', 'gw-1.2'])).toEqual({ counted: ['gw-1.1'], lost: [] });
      expect((await spool.waiting(10)).map((waiting) => waiting.id)).toEqual(['gw-1.2']);
    });

    it('takes marking twice, or marking what was never put, in its stride', async () => {
      const { spool } = harness();
      await spool.put(batch('gw-1.1'));
      await spool.markCounted(['gw-1.1']);
      await spool.markCounted(['gw-1.1', 'gw-9.9']);
      expect(await spool.waiting(10)).toEqual([]);
      expect(await spool.settle([])).toEqual({ counted: [], lost: [] });
    });

    it('hands out at most `limit` batches at a time', async () => {
      const { spool } = harness();
      for (let n = 1; n <= 5; n++) await spool.put(batch(`gw-1.${n}`));
      const first = await spool.waiting(3);
      expect(first).toHaveLength(3);
      await spool.markCounted(first.map((waiting) => waiting.id));
      expect(await spool.waiting(3)).toHaveLength(2);
    });

    itWith(hooks, 'loses')('says which batches it lost, so their gateway puts them again', async () => {
      const { spool, loses } = harness();
      await spool.put(batch('gw-1.1'));
      await spool.put(batch('gw-1.2'));
      await spool.markCounted(['gw-1.1']);
      await loses!();
      expect(await spool.settle(['gw-1.1', 'gw-1.2'])).toEqual({ counted: [], lost: ['gw-1.1', 'gw-1.2'] });
      await spool.put(batch('gw-1.2'));
      expect(await spool.settle(['gw-1.2'])).toEqual({ counted: [], lost: [] });
    });
  });
}
