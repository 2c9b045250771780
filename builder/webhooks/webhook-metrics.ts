// The deliverer's Prometheus metrics (docs/design.md "Webhooks"), on the builder's /metrics: messages
// queued, delivered, retried and failed, and how long from queued to delivered.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { DeliveryEvents } from './deliverer.ts';

export interface WebhookMetrics extends DeliveryEvents {
  queued(deliveries: number): void;
}

/** Delivery takes from milliseconds (first attempt) to a day (the last retry). */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 30, 300, 1800, 7200, 86400];

export function registerWebhookMetrics(registry: Registry): WebhookMetrics {
  const deliveries = new Counter({
    name: 'marquee_webhook_deliveries_total',
    help: 'Webhook deliveries (one message to one endpoint) by event: queued at publish, delivered, retried after a failed attempt, failed after the last retry',
    labelNames: ['event'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'marquee_webhook_delivery_latency_seconds',
    help: 'Seconds from a webhook delivery being queued to its receiver answering 2xx',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  for (const event of ['queued', 'delivered', 'retried', 'failed']) deliveries.inc({ event }, 0);
  return {
    queued: (count) => deliveries.inc({ event: 'queued' }, count),
    delivered: (seconds) => {
      deliveries.inc({ event: 'delivered' });
      latency.observe(seconds);
    },
    retried: () => deliveries.inc({ event: 'retried' }),
    failed: () => deliveries.inc({ event: 'failed' }),
  };
}
