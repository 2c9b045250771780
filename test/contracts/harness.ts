// What every contract suite in this folder shares. A suite is a function `(name, hooks)` that
// registers one `describe`; each implementation's test file calls it with its own setup (the
// pattern of ipfs/js-stores' interface-blockstore-tests). `setup` runs before every test and
// returns a fresh harness: the object under test plus the optional capabilities the
// implementation has (a second view of the same data, a way to simulate a crash). The hooks say
// up front which capabilities the implementation has, and a test that needs one is registered
// only then: an implementation without a second view has no such test, rather than a skipped one.
import { afterEach, beforeEach, it, vi } from 'vitest';

export interface ContractHooks<H> {
  setup(): H | Promise<H>;
  teardown?(harness: H): void | Promise<void>;
  /** The optional members every harness from `setup` has (e.g. 'other'). */
  capabilities?: ReadonlyArray<keyof H>;
}

/** `it` when the implementation has `capability`; otherwise the test is not registered at all. */
export function itWith<H>(hooks: ContractHooks<H>, capability: keyof H): typeof it | ((...args: Parameters<typeof it>) => void) {
  return hooks.capabilities?.includes(capability) ? it : () => {};
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
