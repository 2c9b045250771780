// Where a publish leaves its webhook messages (docs/design.md "Webhooks"): computed from what the
// publish changed and queued in the webhook store for every enabled endpoint of the organization,
// then the deliverer is woken. Only queueing happens on the publish path: delivery, with its
// timeouts and retries, is the deliverer's, apart from building.
import { messagesOf, type PublishedChange } from './messages.ts';
import type { WebhookStore } from './webhook-store.ts';

export class WebhookOutbox {
  constructor(
    private readonly store: WebhookStore,
    /** Told how many deliveries a publish queued, when it queued any (metrics, waking the deliverer). */
    private readonly onQueued: (deliveries: number) => void = () => {},
  ) {}

  /** Queues the messages of one publish; rejects when the database did not take them. */
  async published(change: PublishedChange): Promise<void> {
    const messages = messagesOf(change);
    if (messages.length === 0) return;
    const queued = await this.store.queue(change.organizationId, messages);
    if (queued > 0) this.onQueued(queued);
  }
}
