// The BuildLocks contract (test/contracts/build-locks.ts) against the in-process lock table; the
// harness's other holders are siblings on the same table, as other builders share Redis.
import { InProcessBuildLocks, type LockTiming } from '../../../builder/build-locks.ts';
import { buildLocksContract } from '../../contracts/build-locks.ts';

const timing: LockTiming = { ttlMs: 1_000, renewEveryMs: 200 };

buildLocksContract('InProcessBuildLocks', {
  setup() {
    const locks = new InProcessBuildLocks(timing);
    const holders: InProcessBuildLocks[] = [locks];
    const holder = (own: LockTiming = timing) => {
      const sibling = locks.sibling(own);
      holders.push(sibling);
      return sibling;
    };
    return { locks, timing, holder, holders };
  },
  teardown: async ({ holders }) => {
    for (const holder of holders) await holder.close();
  },
});
