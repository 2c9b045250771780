// "A snapshot was published for organization X": the builder announces, gateways listen.
// In-process here; a Redis pub/sub channel implements the same interface across processes.
// Every implementation passes test/contracts/publish-channel.ts.

export type PublishListener = (organizationId: string) => void;

export interface PublishChannel {
  /**
   * Every listener subscribed at the time hears it, each in the order announcements were made. A
   * listener that throws keeps no other from hearing it and is not the announcer's failure (across
   * processes the announcer could not even know): announce still resolves.
   */
  announce(organizationId: string): Promise<void>;
  /** Returns the function that unsubscribes (calling it again does nothing). */
  subscribe(listener: PublishListener): () => void;
  /**
   * Which unbroken stretch of delivery of every process's announcements to this process is under
   * way: a number that changes whenever delivery resumes after a gap (what was announced during
   * the gap is lost), and undefined while announcements may not arrive. A gateway re-reads
   * pointers every second only while this is undefined, and all of them once when it changes.
   */
  readonly deliveryEpoch: number | undefined;
}

/** Told of a listener that threw; the in-process channel's default writes it to stderr. */
export type ListenerErrorHandler = (error: unknown, organizationId: string) => void;

/** Calls every listener before announce resolves. */
export class InProcessChannel implements PublishChannel {
  private readonly listeners = new Set<PublishListener>();
  /** Another process (a `marquee build` beside `start`) publishes without telling this one. */
  readonly deliveryEpoch = undefined;

  constructor(private readonly onListenerError: ListenerErrorHandler = reportListenerError) {}

  async announce(organizationId: string): Promise<void> {
    for (const listener of this.listeners) {
      try {
        listener(organizationId);
      } catch (error) {
        this.onListenerError(error, organizationId);
      }
    }
  }

  subscribe(listener: PublishListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function reportListenerError(error: unknown, organizationId: string): void {
  console.error(`publish listener failed for organization ${organizationId}:`, error);
}
