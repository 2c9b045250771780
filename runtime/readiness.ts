// Liveness and readiness (docs/operation.md "Health"): GET /healthz says the process is alive (it
// answers while the event loop runs, nothing more); GET /readyz says whether it should be sent work
// now, with each backend's state (backend-states.ts) and why it is not ready. A process is ready when
// every one of its parts is (start: its gateway and its builder), and not while it drains: from its
// SIGTERM on, /readyz answers 503 "draining" while the process still serves, so that a load balancer
// takes it out before it stops taking connections (bin/shutdown.ts).
import type { RequestHandler } from 'express';
import type { BackendName, BackendReport, BackendStates } from './backend-states.ts';

/** What one part of a process says of itself. */
export interface PartReadiness {
  /** `starting`: not ready yet, as expected after a start; `unavailable`: cannot do its work until a problem is fixed. */
  status: 'ready' | 'starting' | 'unavailable';
  /** Why not ready, one line each, for the operator. */
  problems?: string[];
}

/** GET /readyz's body. */
export interface ReadinessReport {
  status: 'ready' | 'starting' | 'unavailable' | 'draining';
  problems?: string[];
  /** Every backend the process uses: `ok`, `degraded` or `down`, why, and what the process does meanwhile. */
  backends: Partial<Record<BackendName, BackendReport>>;
}

/** GET /healthz's body: small, the same always. */
const ALIVE = { status: 'alive' } as const;

export class ProcessReadiness {
  private readonly parts: Array<() => PartReadiness> = [];
  private drainingSince: number | undefined;

  constructor(readonly states: BackendStates) {}

  /** A part of the process whose readiness counts (the gateway, the builder); asked at every report. */
  add(part: () => PartReadiness): void {
    this.parts.push(part);
  }

  /** From now on the process is not ready, whatever its parts say: it is shutting down. */
  drain(): void {
    this.drainingSince ??= Date.now();
  }

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  report(): ReadinessReport {
    const backends = this.states.report();
    if (this.draining) return { status: 'draining', problems: ['shutting down: finishing the requests in flight'], backends };
    const said = this.parts.length === 0 ? [{ status: 'starting' as const, problems: ['not started yet'] }] : this.parts.map((part) => part());
    const problems = said.flatMap((part) => part.problems ?? []);
    const status = said.some((part) => part.status === 'starting') ? 'starting' : said.some((part) => part.status === 'unavailable') ? 'unavailable' : 'ready';
    return problems.length === 0 ? { status, backends } : { status, problems, backends };
  }
}

/** The status GET /readyz answers with. */
function readinessStatusCode(report: ReadinessReport): 200 | 503 {
  return report.status === 'ready' ? 200 : 503;
}

/** GET /healthz: alive, whatever the backends say. */
export const healthz: RequestHandler = function healthz(_req, res) {
  res.setHeader('Cache-Control', 'no-store');
  res.status(200).json(ALIVE);
};

/** GET /readyz: 200 ready, else 503, with the backends' states either way. */
export function readyz(readiness: () => ReadinessReport): RequestHandler {
  return function readyzCheck(_req, res) {
    const report = readiness();
    res.setHeader('Cache-Control', 'no-store');
    res.status(readinessStatusCode(report)).json(report);
  };
}
