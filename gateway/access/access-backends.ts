// Where a gateway reads keys and counts requests per key: the one place that chooses. With Redis,
// the key store and the key verdicts (lookup and count in one round trip) shared by every process
// — Redis holds the gateways' copy of the keys, whose durable record the control plane keeps
// (records/keys/key-backends.ts); embedded, the key file in MARQUEE_HOME, which the CLI can change
// while a gateway runs, and an in-process limiter (the gateway's default).
import type { BackendStates } from '../../runtime/backend-states.ts';
import { probeBackends } from '../../runtime/backend-probes.ts';
import { describeError, OperatorError } from '../../runtime/errors.ts';
import type { Log } from '../../runtime/log.ts';
import type { SharedState } from '../../runtime/shared-state.ts';
import { openKeyFile } from '../../records/keys/file-store.ts';
import { fileUsageSpool } from '../../records/usage/usage-spool-backends.ts';
import type { UsageOutbox } from '../../records/usage/usage-spool.ts';
import type { KeyStore } from '../../records/keys/key-store.ts';
import type { KeyVerdicts } from './key-verdicts.ts';
import { openRedisAccess } from './redis-access.ts';
import type { CacheBudgets } from '../cache-budget.ts';
import { OutageWarning } from '../snapshot-cache/outage-warning.ts';

/** A gateway's keys, and where it moves usage counts; `keyVerdicts` when a backend judges and counts in one step (otherwise the gateway's in-process limiter counts). */
export interface GatewayAccess {
  deps: { keys: KeyStore; keyVerdicts?: KeyVerdicts; usage: UsageOutbox };
  /** After the gateway's server has closed. */
  close(): Promise<void>;
}

/**
 * `budgets`: the gateway's (gateway/cache-budget.ts), of which Redis's verdicts keep `verdicts` and
 * `key_rates` in this process. `states`: the process's backend states; with Redis, a PING every few
 * seconds in the background writes Redis's there (runtime/backend-probes.ts).
 */
export async function openGatewayAccess(shared: SharedState, log: Log, budgets: CacheBudgets, states?: BackendStates): Promise<GatewayAccess> {
  if (shared.redisUrl === undefined) {
    const leaseFailures = new OutageWarning(log, 'the lease on the key file could not be renewed: every request checks the file until it is');
    const keys = await openKeyFile(shared.home, { onLeaseError: (error) => leaseFailures.report(error) });
    await keys.holdLease();
    return { deps: { keys, usage: fileUsageSpool(shared.home) }, close: () => keys.close() };
  }
  const access = await openRedisAccess({
    url: shared.redisUrl,
    log,
    recent: { maxBytes: budgets.verdicts },
    localRateBytes: budgets.key_rates,
    ...(states ? { states } : {}),
  }).catch((error: unknown) => {
    throw new OperatorError(`REDIS_URL: ${describeError(error)}; a gateway that cannot check keys does not start`, { cause: error });
  });
  const probes = states ? probeBackends(states, [{ backend: 'redis', check: access.ping }]) : undefined;
  return {
    deps: { keys: access.keys, keyVerdicts: access.verdicts, usage: access.usage },
    close: async () => {
      probes?.stop();
      await access.close();
    },
  };
}
