// A steady stream of requests through one address (a load balancer), at a fixed pace from a few
// concurrent clients on keep-alive connections, counting every answer that is not 200 and every
// request that got no answer at all (a refused or cut connection): what a rolling restart must not
// cost (test/integration/production/readiness.test.ts, bench/rolling-restart.ts).
import { Agent, request } from 'undici';

export interface LoadTally {
  sent: number;
  ok: number;
  /** Answers that were not 200, and requests without an answer. */
  failed: number;
  /** The first few failures, as "503" or the error's code and message. */
  failures: string[];
}

export interface SteadyLoad {
  /** Stops sending, waits for the requests in flight, and tallies. */
  stop(): Promise<LoadTally>;
  /** What was tallied so far. */
  readonly tally: Readonly<LoadTally>;
}

export interface SteadyLoadOptions {
  /** Requests a second, all clients together. */
  rate: number;
  /** Concurrent clients; default 4. */
  clients?: number;
  /** The request headers of the n-th request (keys taken in turn, to stay within each key's rate limit). */
  headers: (n: number) => Record<string, string>;
}

const FAILURES_KEPT = 10;

/** `url`: where every request goes, or where the n-th goes (a balancer of the caller's own). */
export function steadyLoad(url: string | ((n: number) => string), options: SteadyLoadOptions): SteadyLoad {
  const target = typeof url === 'string' ? () => url : url;
  const clients = options.clients ?? 4;
  const pauseMs = (1000 * clients) / options.rate;
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: clients });
  const tally: LoadTally = { sent: 0, ok: 0, failed: 0, failures: [] };
  const fail = (what: string) => {
    tally.failed++;
    if (tally.failures.length < FAILURES_KEPT) tally.failures.push(what);
  };
  let running = true;
  const client = async (): Promise<void> => {
    while (running) {
      const started = performance.now();
      const n = tally.sent++;
      try {
        const answer = await request(target(n), { dispatcher, headers: options.headers(n), headersTimeout: 10_000, bodyTimeout: 10_000 });
        await answer.body.text();
        if (answer.statusCode === 200) tally.ok++;
        else fail(String(answer.statusCode));
      } catch (error) {
        const { code, message } = error as NodeJS.ErrnoException;
        fail(`${code ?? 'error'}: ${message}`);
      }
      // The pace of a load, not a wait for a condition.
      const left = pauseMs - (performance.now() - started);
      if (left > 0 && running) await new Promise((resolve) => setTimeout(resolve, left));
    }
  };
  const all = Promise.all(Array.from({ length: clients }, client));
  return {
    tally,
    async stop() {
      running = false;
      await all;
      await dispatcher.close();
      return { ...tally, failures: [...tally.failures] };
    },
  };
}
