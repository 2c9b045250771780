// The backends' gauges on /metrics, read from the process's BackendStates when scraped (the same
// record GET /readyz answers from): `marquee_backend_up{backend}` and
// `marquee_backend_last_success_age_seconds{backend}`, one series per backend the process uses.
import { Gauge, type Registry } from 'prom-client';
import type { BackendStates } from './backend-states.ts';

export function registerBackendMetrics(registry: Registry, states: BackendStates): void {
  new Gauge({
    name: 'marquee_backend_up',
    help: 'Whether a backend this process uses (database, redis, store, cdn) answered its last probe or operation: 1 yes, 0 no',
    labelNames: ['backend'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const backend of states.used()) this.set({ backend }, states.stateOf(backend) === 'down' ? 0 : 1);
    },
  });
  new Gauge({
    name: 'marquee_backend_last_success_age_seconds',
    help: 'Seconds since a backend this process uses last answered (since the process started, when it never has)',
    labelNames: ['backend'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const backend of states.used()) this.set({ backend }, states.secondsSinceSuccess(backend));
    },
  });
}
