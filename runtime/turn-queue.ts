// Bookkeeping deferred to the end of the current turn of the event loop and done there together:
// what a server counts per request costs several times more done one request at a time, between
// two system calls with the processor's caches cold, than in one loop over the turn's requests
// (the gateway's response counts; docs/performance.md, Gateway, "What was left on Node 26").

export class TurnQueue<T> {
  private items: T[] = [];
  private scheduled = false;

  /** `apply` gets the items added since the last time, in order; it must not throw. */
  constructor(private readonly apply: (items: readonly T[]) => void) {}

  /** Applied once the current turn ends (a setImmediate), with whatever else this turn adds. */
  add(item: T): void {
    this.items.push(item);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
  }

  /** Applies what was added and not yet applied, now: before a report or a close reads the result. */
  readonly drain = (): void => {
    this.scheduled = false;
    if (this.items.length === 0) return;
    const items = this.items;
    this.items = [];
    this.apply(items);
  };
}
