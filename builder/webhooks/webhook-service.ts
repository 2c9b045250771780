// A long-running process's webhooks (builder, start), over the relations Marquee's migrations made
// (migrateMarquee, which every such process runs first): the outbox its builds queue into, and the
// deliverer, started. `marquee build` queues only (an outbox with
// no deliverer): the builders deliver what it queued.
import type { Log } from '../../runtime/log.ts';
import type { SqlClient } from '../../records/database/sql.ts';
import { WebhookDeliverer } from './deliverer.ts';
import { WebhookOutbox } from './outbox.ts';
import type { WebhookMetrics } from './webhook-metrics.ts';
import type { WebhookPolicy } from './webhook-policy.ts';
import type { BuilderPolicy } from './webhook-store.ts';
import { POLICY_ANNOUNCED_EVERY_MS, WebhookStore } from './webhook-store.ts';

export interface RunningWebhooks {
  store: WebhookStore;
  outbox: WebhookOutbox;
  /** Look for due deliveries now (a test message was queued through the admin API). */
  wake(): void;
  close(): Promise<void>;
}

export function startWebhooks(db: SqlClient, parts: { policy: WebhookPolicy; builder: string; log: Log; metrics?: WebhookMetrics }): RunningWebhooks {
  const store = new WebhookStore(db);
  const deliverer = new WebhookDeliverer({ store, policy: parts.policy, builder: parts.builder, log: parts.log, ...(parts.metrics ? { events: parts.metrics } : {}) });
  const outbox = new WebhookOutbox(store, (deliveries) => {
    parts.metrics?.queued(deliveries);
    deliverer.wake();
  });
  deliverer.start();
  // What this builder delivers to, said in the database while it runs: a registration made with
  // other settings (the CLI's) warns that this builder would refuse the URL (webhook-admin.ts).
  const policy = { builder: parts.builder, allowPrivate: parts.policy.allowPrivate, allowInsecure: parts.policy.allowInsecure };
  let announcing = announce(store, policy);
  const timer = setInterval(() => {
    announcing = announcing.then(() => announce(store, policy));
  }, POLICY_ANNOUNCED_EVERY_MS);
  timer.unref();
  return {
    store,
    outbox,
    wake: () => deliverer.wake(),
    close: async () => {
      clearInterval(timer);
      await announcing;
      await deliverer.stop();
      await store.forgetPolicy(parts.builder).catch(() => {});
    },
  };
}

/** Never fails the builder: a database that does not answer is the deliverer's to report (once per outage), not this. */
async function announce(store: WebhookStore, policy: BuilderPolicy): Promise<void> {
  await store.announcePolicy(policy).catch(() => {});
}

/** For `marquee build`: queues what its publishes send; the builders deliver it. */
export function webhookOutbox(db: SqlClient): WebhookOutbox {
  return new WebhookOutbox(new WebhookStore(db));
}
