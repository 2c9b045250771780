// How a long-running command stops on SIGTERM or SIGINT (docs/operation.md "Health"). At once, its
// /readyz turns 503 "draining". A process with a gateway (serve, start) then keeps answering for
// SHUTDOWN_DRAIN_SECONDS, each answer closing its connection, so that a load balancer probing /readyz
// takes it out while nothing is refused; a second signal ends the wait. Then the process closes
// its parts in their own order (the gateway stops taking connections, answers what is in flight,
// moves its last usage counts) and exits. A builder has nothing to drain: its orderly close waits
// for the build under way already.
import type { Log } from '../runtime/log.ts';
import type { ProcessReadiness } from '../runtime/readiness.ts';

export interface ShutdownParts {
  log: Log;
  readiness: ProcessReadiness;
  /** The process's gateway, drained before `close` for `drainMs`; absent: no wait. */
  gateway?: { endKeepAlive(): void } | undefined;
  /** SHUTDOWN_DRAIN_SECONDS, in milliseconds. */
  drainMs: number;
  /** Closes every part; the process exits 0 once it resolves, 1 if it rejects. */
  close(): Promise<void>;
}

export function onShutdown(parts: ShutdownParts): void {
  const { log } = parts;
  let signalled = false;
  let endWait: (() => void) | undefined;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (signalled) {
      // The second signal during the drain: stop waiting, close now.
      if (endWait !== undefined) log.info(`${signal}: ending the drain early`, { signal });
      endWait?.();
      return;
    }
    signalled = true;
    parts.readiness.drain();
    if (parts.gateway !== undefined && parts.drainMs > 0) {
      const seconds = parts.drainMs / 1000;
      log.info(`${signal}: draining for ${seconds} s (SHUTDOWN_DRAIN_SECONDS): /readyz answers 503 while requests are still answered; a second SIGTERM or SIGINT ends the wait`, {
        signal,
        drainSeconds: seconds,
      });
      parts.gateway.endKeepAlive();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, parts.drainMs);
        endWait = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      endWait = undefined;
      log.info('drained: closing', { signal });
    } else {
      log.info(`${signal}: shutting down`, { signal });
    }
    try {
      await parts.close();
    } catch (error) {
      log.error('shutdown failed', { err: error });
      process.exit(1);
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
