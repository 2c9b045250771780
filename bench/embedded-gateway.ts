// The gateway the benchmarks call "embedded": the compiled product, as bin/marquee runs it, on a
// directory store and a key file held under a lease (as `serve` holds it:
// gateway/access/access-backends.ts), with the per-key limits out of reach, Prometheus metrics with
// Node's process metrics, and usage per key counted into a file spool, as `serve` counts it in
// MARQUEE_HOME/usage. bench/gateway.ts, bench/gateway-ab.ts and bench/allocations.ts all measure
// this one.
import type { RunningGateway } from '../gateway/server.ts';
import type { GatewayMetrics } from '../gateway/metrics.ts';
import type { Log } from '../runtime/log.ts';
import { compiled } from './node-flags.ts';

/** Checked on every request like in production, but out of the benchmark's reach. */
export const UNREACHABLE_LIMIT = 1_000_000_000;
/** Longer than any run, so that a pinned read's earlier snapshot stays readable throughout. */
export const PIN_WINDOW_MS = 3_600_000;

/** Warnings and errors a benchmark should see; nothing per request. */
export const quiet: Log = { info: () => {}, warn: () => {}, error: (message, fields) => process.stderr.write(`${message} ${JSON.stringify(fields)}\n`) };

export interface EmbeddedGatewayOptions {
  storeDir: string;
  keyFile: string;
  /** Where the usage spool is (its usage/ folder): MARQUEE_HOME for `serve`. */
  usageHome: string;
}

export async function startEmbeddedGateway({ storeDir, keyFile, usageHome }: EmbeddedGatewayOptions): Promise<RunningGateway> {
  const { InMemoryRateLimiter } = (await import(compiled('gateway/access/in-memory-rate-limiter.js'))) as typeof import('../gateway/access/in-memory-rate-limiter.ts');
  const { FileKeyStore } = (await import(compiled('records/keys/file-store.js'))) as typeof import('../records/keys/file-store.ts');
  const { startGateway } = (await import(compiled('gateway/server.js'))) as typeof import('../gateway/server.ts');
  const { DirectoryStore } = (await import(compiled('snapshot/stores/directory.js'))) as typeof import('../snapshot/stores/directory.ts');
  const { fileUsageSpool } = (await import(compiled('records/usage/usage-spool-backends.js'))) as typeof import('../records/usage/usage-spool-backends.ts');
  const keys = new FileKeyStore(keyFile);
  await keys.holdLease();
  const gateway = await startGateway({
    port: 0,
    host: '127.0.0.1',
    snapshots: new DirectoryStore(storeDir),
    keys,
    rateLimiter: new InMemoryRateLimiter({ limit: UNREACHABLE_LIMIT }),
    authFailures: new InMemoryRateLimiter({ limit: UNREACHABLE_LIMIT }),
    usage: fileUsageSpool(usageHome),
    log: quiet,
    metrics: await productionMetrics(),
    limits: { pinWindowMs: PIN_WINDOW_MS },
  });
  // The key file's lease goes with the gateway: renewed after it, it would write into a directory being removed.
  return { ...gateway, close: () => gateway.close().finally(() => keys.close()) };
}

/** Headers Node writes for every server alike (the date, the connection, the framing). */
const WRITTEN_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/**
 * The headers of a gateway's answer besides those Node writes: what a reference sends to answer
 * with the same response (bench/gateway.ts `express-same`, bench/gateway-ab.ts `express+`).
 */
export function gatewayOwnHeaders(headers: Iterable<readonly [string, string]>): Record<string, string> {
  return Object.fromEntries([...headers].filter(([name]) => !WRITTEN_BY_NODE.has(name.toLowerCase())));
}

/** The gateway's metrics in a registry of their own with the default process metrics, as production has them. */
export async function productionMetrics(): Promise<GatewayMetrics> {
  const { collectDefaultMetrics, Registry } = await import('prom-client');
  const { gatewayMetrics } = (await import(compiled('gateway/metrics.js'))) as typeof import('../gateway/metrics.ts');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return gatewayMetrics(registry);
}
