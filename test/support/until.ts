// How a test waits for something to happen (docs/development.md "The test suite"): it asks again
// until it has, within a bound, and never waits a fixed time. vitest's `expect.poll` and
// `vi.waitFor` do that for an assertion on a value; `until` is for the waits that must yield the
// value they waited for (a message, an answer, an instant), or whose probe checks something of
// every answer on the way (an assertion in it fails at once, as it would in a loop, where
// `expect.poll` and `vi.waitFor` would try again). Real timers (node:timers/promises), so a test's
// fake timers do not stall it, and nothing of vitest's, so a global setup may use it too.
import { setTimeout as sleep } from 'node:timers/promises';

export interface UntilOptions {
  /** How long it may take; the probe is asked once more after the deadline before giving up. Default 10 s. */
  timeoutMs?: number;
  /** From the end of one probe to the start of the next. Default 50 ms. */
  intervalMs?: number;
}

/**
 * Asks `probe` until it answers something other than undefined or false, and resolves with that
 * answer; rejects with "timed out after N ms waiting for `what`" once `timeoutMs` has gone by
 * without. An error thrown by the probe is not retried: it rejects at once.
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 10_000, intervalMs = 50 }: UntilOptions = {},
): Promise<Exclude<T, undefined | false>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const answer = await probe();
    if (answer !== undefined && answer !== false) return answer as Exclude<T, undefined | false>;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
