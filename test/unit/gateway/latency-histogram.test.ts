// The gateway's latency histogram, counted in plain arrays and written out only when read: the
// Prometheus form Prometheus expects (cumulative buckets, a bound's own value in its bucket,
// +Inf, _sum and _count per route).
import { Registry } from 'prom-client';
import { expect, it } from 'vitest';
import { gatewayMetrics } from '../../../gateway/metrics.ts';

it('writes cumulative buckets per route, a value equal to a bound inside that bucket, and +Inf, sum and count', async () => {
  const registry = new Registry();
  const metrics = gatewayMetrics(registry);
  const route = '/api/integration/v1/organization';
  for (const seconds of [0.0004, 0.001, 0.003, 12]) metrics.served(route, 200, seconds);
  metrics.served(route, 200, undefined);
  const lines = new Map(
    (await registry.metrics())
      .split('\n')
      .filter((line) => line.startsWith('marquee_gateway_request_duration_seconds') && line.includes(`route="${route}"`))
      .map((line) => [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))]),
  );
  const bucket = (le: string) => lines.get(`marquee_gateway_request_duration_seconds_bucket{le="${le}",route="${route}"}`);
  expect([bucket('0.0005'), bucket('0.001'), bucket('0.0025'), bucket('0.005'), bucket('10'), bucket('+Inf')]).toEqual([1, 2, 2, 3, 3, 4]);
  expect(lines.get(`marquee_gateway_request_duration_seconds_count{route="${route}"}`)).toBe(4);
  expect(lines.get(`marquee_gateway_request_duration_seconds_sum{route="${route}"}`)).toBeCloseTo(12.0044, 6);
  // The response counted without a duration (a parser's refusal has none) is still a request.
  expect((await registry.metrics()).match(new RegExp(`^marquee_gateway_requests_total\\{route="${route.replaceAll('/', '\\/')}",status="200"\\} (\\d+)$`, 'm'))?.[1]).toBe('5');
});

it('counts each response once: when the turn that wrote it ends, or when the registry is read first', async () => {
  const registry = new Registry();
  const metrics = gatewayMetrics(registry);
  const route = '/api/integration/v1/events';
  /** The request counter's and the histogram's count for the route, as Prometheus would read them. */
  const read = async () => {
    const text = await registry.metrics();
    const value = (series: string) => Number(text.match(new RegExp(`^${series.replaceAll('/', '\\/')} (\\d+)$`, 'm'))?.[1]);
    return [value(`marquee_gateway_requests_total{route="${route}",status="200"}`), value(`marquee_gateway_request_duration_seconds_count{route="${route}"}`)];
  };
  const turnEnds = () => new Promise((resolve) => setImmediate(resolve));
  metrics.served(route, 200, 0.002);
  await turnEnds();
  expect(await read()).toEqual([1, 1]);
  // Read in the same turn as the response: counted first, and not again when the turn ends.
  metrics.served(route, 200, 0.002);
  expect(await read()).toEqual([2, 2]);
  await turnEnds();
  expect(await read()).toEqual([2, 2]);
});
