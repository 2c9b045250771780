// The WorkList contract (test/contracts/work-list.ts) against the in-process list; other builders
// are other names on the same list, as several runners in one process would share it.
import { InProcessWorkList } from '../../../builder/runs/work-list.ts';
import { workListContract } from '../../contracts/work-list.ts';

const claimTimeoutMs = 500;

workListContract('InProcessWorkList', {
  setup() {
    const list = new InProcessWorkList({ claimTimeoutMs });
    return { list, view: () => list, claimTimeoutMs };
  },
});
