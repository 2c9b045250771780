// One record of a process's backends, read by /readyz and by /metrics alike: what each says is the
// same state, at the same instant; a backend never answered counts its age from the process's start.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerBackendMetrics } from '../../../runtime/backend-metrics.ts';
import { probeBackends } from '../../../runtime/backend-probes.ts';
import { BackendStates } from '../../../runtime/backend-states.ts';
import { ProcessReadiness } from '../../../runtime/readiness.ts';

async function gauges(registry: Registry): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const name of ['marquee_backend_up', 'marquee_backend_last_success_age_seconds']) {
    for (const { labels, value } of (await registry.getSingleMetric(name)!.get()).values) found[`${name}{${labels.backend}}`] = value;
  }
  return found;
}

describe('BackendStates', () => {
  it('starts a probed backend down, "not answered yet", and one used now and then as answering; /readyz and the gauges say the same', async () => {
    let now = 1_000_000;
    const states = new BackendStates(() => now);
    const registry = new Registry();
    registerBackendMetrics(registry, states);
    states.use('database', { meanwhile: 'building nothing' });
    states.use('cdn', { meanwhile: 'pointers are no-cache', assumeAnswering: true });
    now += 30_000;
    expect(states.report()).toEqual({
      database: { state: 'down', why: 'not answered yet', meanwhile: 'building nothing' },
      cdn: { state: 'ok', lastSuccessSecondsAgo: 30 },
    });
    expect(await gauges(registry)).toEqual({
      'marquee_backend_up{database}': 0,
      'marquee_backend_up{cdn}': 1,
      'marquee_backend_last_success_age_seconds{database}': 30,
      'marquee_backend_last_success_age_seconds{cdn}': 30,
    });

    states.answered('database');
    now += 4_500;
    states.failed('database', 'connect ECONNREFUSED 127.0.0.1:5432');
    states.degraded('cdn', 'throttled');
    expect(states.report()).toEqual({
      database: { state: 'down', why: 'connect ECONNREFUSED 127.0.0.1:5432', lastSuccessSecondsAgo: 4, meanwhile: 'building nothing' },
      cdn: { state: 'degraded', why: 'throttled', lastSuccessSecondsAgo: 0, meanwhile: 'pointers are no-cache' },
    });
    // Degraded answers: up. Down: not.
    expect(await gauges(registry)).toMatchObject({ 'marquee_backend_up{database}': 0, 'marquee_backend_up{cdn}': 1, 'marquee_backend_last_success_age_seconds{database}': 4.5 });
    // A backend the process does not use has no series and no report.
    states.answered('redis');
    expect(Object.keys(states.report())).toEqual(['database', 'cdn']);
  });
});

describe('probeBackends', () => {
  it('writes what each probe finds, a probe past its deadline as down, and probes again until stopped', async () => {
    const states = new BackendStates();
    states.use('database', { meanwhile: '' });
    states.use('redis', { meanwhile: '' });
    states.use('store', { meanwhile: '' });
    let storeAnswers = false;
    const probes = probeBackends(
      states,
      [
        { backend: 'database', check: async () => {} },
        { backend: 'redis', check: () => new Promise(() => {}) },
        {
          backend: 'store',
          check: async () => {
            if (!storeAnswers) throw new Error('storage unreachable');
          },
        },
      ],
      { intervalMs: 20, retryMs: 20, timeoutMs: 50 },
    );
    try {
      await probes.firstRound;
      expect(states.report()).toMatchObject({
        database: { state: 'ok' },
        redis: { state: 'down', why: 'redis probe not answered within 50 ms' },
        store: { state: 'down', why: 'storage unreachable' },
      });
      storeAnswers = true;
      await expect.poll(() => states.stateOf('store')).toBe('ok');
    } finally {
      probes.stop();
    }
  });
});

describe('ProcessReadiness', () => {
  it('is starting before any part joined, the worst of its parts after, and draining from drain() on whatever they say', () => {
    const states = new BackendStates();
    const readiness = new ProcessReadiness(states);
    expect(readiness.report()).toEqual({ status: 'starting', problems: ['not started yet'], backends: {} });
    let builder: 'ready' | 'unavailable' = 'ready';
    readiness.add(() => ({ status: 'ready' }));
    readiness.add(() => (builder === 'ready' ? { status: 'ready' } : { status: 'unavailable', problems: ['database: connect ECONNREFUSED'] }));
    expect(readiness.report()).toEqual({ status: 'ready', backends: {} });
    builder = 'unavailable';
    expect(readiness.report()).toEqual({ status: 'unavailable', problems: ['database: connect ECONNREFUSED'], backends: {} });
    builder = 'ready';
    readiness.drain();
    expect(readiness.report()).toMatchObject({ status: 'draining' });
  });
});
