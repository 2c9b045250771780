// Who acts, for the length of one request or one command (docs/design.md "Roles"): the door
// that took it says so once (actingAs), and every operation it calls records its audit entry under
// that attribution (audit/recorded-operations.ts), however deep the call. Kept apart and small: the CLI
// sets it before it knows which command runs, without loading what the commands load; and the
// operations that name their author (a credential's creator, a requested run's asker) read it here.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Attribution } from '../records/actor.ts';

const acting = new AsyncLocalStorage<Attribution>();

/** Runs `work` (a request's handling, a CLI command) as `attribution`. */
export function actingAs<T>(attribution: Attribution, work: () => T): T {
  return acting.run(attribution, work);
}

/** Who acts now; an operation called outside any door is a bug the trail must not hide. */
export function currentAttribution(): Attribution {
  const attribution = acting.getStore();
  if (attribution === undefined) throw new Error('a state-changing operation was called outside any door: no actor to record it under');
  return attribution;
}
