// Background probes of a process's backends (a `SELECT 1`, a Redis PING, a store lookup), each on
// its own timer, writing what they find into the process's BackendStates. In the background so
// that GET /readyz and /metrics only read memory: a load balancer or a scraper asking every second
// never makes the process ask its backends more often than the probe interval.
import { withinDeadline } from './deadline.ts';
import { describeError } from './errors.ts';
import type { BackendName, BackendStates } from './backend-states.ts';

export interface BackendProbe {
  backend: BackendName;
  /** Resolves when the backend answered as it should; rejects (with the reason) when not. */
  check(): Promise<void>;
}

export interface ProbeTiming {
  /** Between two probes of an answering backend; default 5 s. */
  intervalMs?: number;
  /** Between two probes of a backend that did not answer, so that its return shows soon; default 1 s. */
  retryMs?: number;
  /** A probe not answered within this counts as a failure; default 3 s (past the 2 s a Redis command is given). */
  timeoutMs?: number;
}

export interface RunningProbes {
  /** Resolves once every backend has been probed once, whatever it answered. */
  readonly firstRound: Promise<void>;
  stop(): void;
}

export function probeBackends(states: BackendStates, probes: readonly BackendProbe[], timing: ProbeTiming = {}): RunningProbes {
  const intervalMs = timing.intervalMs ?? 5_000;
  const retryMs = Math.min(timing.retryMs ?? 1_000, intervalMs);
  const timeoutMs = timing.timeoutMs ?? 3_000;
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;

  const probeOnce = async ({ backend, check }: BackendProbe): Promise<boolean> => {
    try {
      await withinDeadline(check(), timeoutMs, `${backend} probe`);
      states.answered(backend);
      return true;
    } catch (error) {
      states.failed(backend, describeError(error));
      return false;
    }
  };
  /** Probes now, then again after the interval (or sooner after a failure); resolves after the first probe. */
  const loop = async (probe: BackendProbe): Promise<void> => {
    const answered = await probeOnce(probe);
    if (stopped) return;
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        void loop(probe);
      },
      answered ? intervalMs : retryMs,
    );
    // A probe never keeps a process alive on its own.
    timer.unref();
    timers.add(timer);
  };
  const firstRound = Promise.all(probes.map(loop)).then(() => undefined);
  return {
    firstRound,
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
