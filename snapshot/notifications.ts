// "A snapshot was published for organization X": the builder announces, gateways listen.
// In-process here; a Redis pub/sub channel implements the same interface across processes.

export type PublishListener = (organizationId: string) => void;

export interface PublishChannel {
  announce(organizationId: string): Promise<void>;
  /** Returns the function that unsubscribes. */
  subscribe(listener: PublishListener): () => void;
}

export class InProcessChannel implements PublishChannel {
  private readonly listeners = new Set<PublishListener>();

  async announce(organizationId: string): Promise<void> {
    for (const listener of this.listeners) listener(organizationId);
  }

  subscribe(listener: PublishListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
