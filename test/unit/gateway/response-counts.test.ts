// API responses are counted (metrics and usage per key) together once the turn of the event loop
// that wrote them ends, not one by one (gateway/observed-request.ts): counted then, each exactly
// once, and at once when the gateway asks, as it does when it closes.
import type { Request, Response } from 'express';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { gatewayMetrics } from '../../../gateway/metrics.ts';
import { chargeTo, countApiResponse, requestObserver } from '../../../gateway/observed-request.ts';
import { UsageTally } from '../../../gateway/usage/usage-tally.ts';

const ORGANIZATION = '/api/integration/v1/organization';
const KEY = { id: 'key-1', organizationId: 'org-1' };

/** What note() and countApiResponse() read of a request and its response, as Express makes them. */
function exchange(origin?: string): { req: Request; res: Response } {
  const res = { locals: Object.create(null), setHeader() {}, on() {} } as unknown as Response;
  const req = { method: 'GET', path: ORGANIZATION, headers: origin === undefined ? {} : { origin }, res } as unknown as Request;
  return { req, res };
}

function counting() {
  const registry = new Registry();
  const usage = new UsageTally({ maxBytes: 1 << 20, clock: () => Date.parse('2026-11-28T10:00:00Z') });
  const observer = requestObserver(gatewayMetrics(registry), usage);
  const served = async (status: number) =>
    (await registry.getSingleMetric('marquee_gateway_requests_total')!.get()).values.find((value) => value.labels.status === String(status))?.value ?? 0;
  const counted = () => usage.take().counts.map(({ keyId, status, errorCode, requests }) => ({ keyId, status, errorCode, requests }));
  return { observer, usage, served, counted };
}

/** One API request noted, charged to KEY, and answered `status`. */
function answer(observer: ReturnType<typeof requestObserver>, status: number, errorCode?: string, origin?: string): void {
  const { req, res } = exchange(origin);
  observer.note(req, res);
  chargeTo(req, KEY);
  countApiResponse(req, status, errorCode);
}

const turnEnds = () => new Promise((resolve) => setImmediate(resolve));

describe('responses are counted', () => {
  it('once the turn that wrote them ends, each once, by key and outcome', async () => {
    const { observer, served, counted } = counting();
    answer(observer, 200);
    answer(observer, 200);
    answer(observer, 403, 'API_KEY_ORIGIN_NOT_ALLOWED', 'https://copy.example');
    await turnEnds();
    expect(await served(200)).toBe(2);
    expect(await served(403)).toBe(1);
    expect(counted()).toEqual([
      { keyId: KEY.id, status: 200, errorCode: '', requests: 2 },
      { keyId: KEY.id, status: 403, errorCode: 'API_KEY_ORIGIN_NOT_ALLOWED', requests: 1 },
    ]);
    await turnEnds();
    expect(await served(200)).toBe(2);
  });

  it('at once when the gateway asks (it does when it closes), and not again when the turn ends', async () => {
    const { observer, served, counted } = counting();
    answer(observer, 200);
    observer.countWritten();
    expect(await served(200)).toBe(1);
    expect(counted()).toEqual([{ keyId: KEY.id, status: 200, errorCode: '', requests: 1 }]);
    await turnEnds();
    expect(await served(200)).toBe(1);
    expect(counted()).toEqual([]);
  });

  it("charge a 404's errorCode to no outcome: only a 403's tells causes apart", async () => {
    const { observer, counted } = counting();
    answer(observer, 404, 'EVENT_NOT_FOUND');
    await turnEnds();
    expect(counted()).toEqual([{ keyId: KEY.id, status: 404, errorCode: '', requests: 1 }]);
  });
});
