// What every contract suite in this folder shares. A suite is a function `(name, hooks)` that
// registers one `describe`; each implementation's test file calls it with its own setup (the
// pattern of ipfs/js-stores' interface-blockstore-tests). `setup` runs before every test and
// returns a fresh harness: the object under test plus the optional capabilities the
// implementation has (a second view of the same data, a way to simulate a crash); a test that
// needs a capability the harness lacks is skipped, naming it.
import { afterEach, beforeEach, vi } from 'vitest';

export interface ContractHooks<H> {
  setup(): H | Promise<H>;
  teardown?(harness: H): void | Promise<void>;
}

/** Registers setup/teardown around every test of the calling describe; returns the current harness. */
export function useHarness<H>(hooks: ContractHooks<H>): () => H {
  let current: H | undefined;
  beforeEach(async () => {
    current = await hooks.setup();
  });
  afterEach(async () => {
    const done = current;
    current = undefined;
    if (done !== undefined) await hooks.teardown?.(done);
  });
  return () => {
    if (current === undefined) throw new Error('contract harness used outside a test');
    return current;
  };
}

/**
 * Waits until `check` stops throwing: delivery through a networked implementation takes a while,
 * through an in-process one it is immediate (the first check passes).
 */
export function eventually(check: () => void | Promise<void>, timeoutMs = 5_000): Promise<void> {
  return vi.waitFor(check, { timeout: timeoutMs, interval: 5 });
}
