// The organizations' webhook receivers: one loopback server, one path per endpoint, each path with
// its behaviour. `ok` answers 204 at once; `slow` answers 204 after 2 to 8 s (late, but within the
// deliverer's 10 s limit); `flaky` answers 500 to a message's first attempt and 204 to the next
// (Marquee retries 5 s later: docs/design.md "Webhooks"). A receiver that kept failing would wait
// for the 5-minute retry and never be judged inside a campaign. Only what a receiver accepted (2xx)
// is recorded, by `webhook-id`, with the endpoint the path belongs to.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReceivedMessage } from './history.ts';
import type { Random } from './schedule.ts';

type Behaviour = 'ok' | 'slow' | 'flaky';
export const BEHAVIOURS: readonly Behaviour[] = ['ok', 'slow', 'flaky'];

export interface Receivers {
  /** The URL for a new endpoint's receiver; `bind` ties the path to the endpoint id once it is known. */
  url(serial: number, behaviour: Behaviour): string;
  bind(serial: number, endpointId: string): void;
  /** Accepted messages whose endpoint is known. */
  received(): ReceivedMessage[];
  /** Every request, accepted or not: how many arrived. */
  readonly arrivals: { count: number };
  close(): Promise<void>;
}

export async function startReceivers(random: Random): Promise<Receivers> {
  const accepted: Array<{ serial: number; webhookId: string; receivedAt: number }> = [];
  const endpoints = new Map<number, string>();
  const failedOnce = new Set<string>();
  const arrivals = { count: 0 };
  const server: Server = createServer((req, res) => {
    arrivals.count++;
    req.resume();
    req.on('end', () => {
      void (async () => {
        const [, behaviour, serial] = (req.url ?? '').split('/');
        const webhookId = String(req.headers['webhook-id'] ?? '');
        if (behaviour === 'flaky' && !failedOnce.has(`${serial}:${webhookId}`)) {
          failedOnce.add(`${serial}:${webhookId}`);
          res.writeHead(500).end('first attempt refused');
          return;
        }
        if (behaviour === 'slow') await sleep(random.between(2_000, 8_000));
        // Recorded before the answer: the deliverer may count it delivered as soon as the 2xx leaves.
        accepted.push({ serial: Number(serial), webhookId, receivedAt: performance.now() });
        res.writeHead(204).end();
      })();
    });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (serial, behaviour) => `${base}/${behaviour}/${serial}`,
    bind: (serial, endpointId) => endpoints.set(serial, endpointId),
    received: () => accepted.flatMap(({ serial, webhookId, receivedAt }) => (endpoints.has(serial) ? [{ endpointId: endpoints.get(serial)!, webhookId, receivedAt }] : [])),
    arrivals,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
