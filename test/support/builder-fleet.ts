// A fleet of `marquee builder` processes on one PostgreSQL, one Redis and one store, as the tests of
// divided runs, of the runs' record and of Redis lost mid-run start them: each with its own name,
// its admin port on a free address (read from the line that announces it), no schedule during the
// test, and the same admin token. What a builder's admin API says of a run is BuildRunAnswer.
import { marqueeProcess } from './cli.ts';

export const FLEET_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const fleetBearer = { Authorization: `Bearer ${FLEET_ADMIN_TOKEN}` };

export interface FleetBackends {
  home: string;
  databaseUrl: string;
  redisUrl: string;
  /** SNAPSHOT_STORE */
  store: string;
}

export interface FleetBuilder {
  name: string;
  /** e.g. http://127.0.0.1:41234, the admin port's base. */
  admin: string;
  output(): string;
  stop(): Promise<void>;
  /** SIGKILL, as a crash or an OOM kill would: no shutdown, no claim or lock released. */
  kill(): Promise<void>;
}

/** A run as GET /admin/v1/builds/{id} answers it: the members these tests read. */
export interface BuildRunAnswer {
  id: string;
  trigger: string;
  requestedBy: string;
  state: string;
  done: number;
  total: number;
  finishedAt: string | null;
  error?: string;
  organizations: Array<{ id: string; slug: string; result: string; snapshotId?: string; builder: string }>;
}

/**
 * Starts builder `name`. `ready` 'admin': resolves as soon as its admin port answers, before its
 * start-up run (for faults that strike that run); 'running': once the start-up run is done.
 */
export async function startFleetBuilder(backends: FleetBackends, name: string, ready: 'admin' | 'running'): Promise<FleetBuilder> {
  const env = {
    MARQUEE_HOME: backends.home,
    DATABASE_URL: backends.databaseUrl,
    REDIS_URL: backends.redisUrl,
    SNAPSHOT_STORE: backends.store,
    LOG_FORMAT: 'json',
    // The schedule never comes during a test: whatever is built, the test asked for it.
    BUILD_SCHEDULE: '0 0 1 1 *',
    BUILDER_NAME: name,
    ADMIN_TOKEN: FLEET_ADMIN_TOKEN,
    ADMIN_PORT: '0',
  };
  const announced = ready === 'admin' ? /"admin":"(http:\/\/[^"]+)"/ : /"admin":"(http:\/\/[^"]+)"[^\n]*builder running/;
  const started = await marqueeProcess(['builder'], env, announced, { readyTimeoutMs: 120_000 });
  const exited = new Promise<void>((resolve) => started.child.once('exit', () => resolve()));
  return {
    name,
    admin: started.match[1]!,
    output: started.output,
    stop: started.stop,
    kill: async () => {
      if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
      await exited;
    },
  };
}
