// The production world with a fault proxy between the Marquee processes and each backend.
// The world is test/support/production.ts's; the proxies are test/support/fault-proxy.ts's. One
// `marquee builder` and one `marquee serve` reach PostgreSQL, Redis, the bucket (the conditional-writes
// proxy) and the CDN only through them, so a test can slow, reset or cut each connection on its way.
// The test itself, the CLI and the CDN's own origin fetches go to the backends directly: set-up and
// checks are never caught in a fault.
import { marqueeProcess } from './cli.ts';
import { type FaultProxy, startFaultProxy } from './fault-proxy.ts';
import { type ProductionWorld, startProductionWorld } from './production.ts';

export type Backend = 'postgres' | 'redis' | 's3' | 'cdn';

/** A Marquee process of this world. Nobody restarts it: a fault that ends one fails the test. */
interface FaultyWorldProcess {
  output(): string;
  alive(): boolean;
  stop(): Promise<void>;
}

export interface FaultyWorld {
  /** The backends, `cli` and `sql` as the test reaches them: directly. */
  world: ProductionWorld;
  proxies: Record<Backend, FaultProxy>;
  builder: FaultyWorldProcess;
  /** The gateway at `url`, e.g. http://127.0.0.1:41234. */
  gateway: FaultyWorldProcess & { url: string };
  stop(): Promise<void>;
}

/** Where each backend is named in a Marquee process's environment. */
const ADDRESSES: Record<Backend, string> = { postgres: 'DATABASE_URL', redis: 'REDIS_URL', s3: 'S3_ENDPOINT', cdn: 'SNAPSHOT_CDN_URL' };

export async function startFaultyWorld(): Promise<FaultyWorld> {
  const world = await startProductionWorld();
  const proxies: Partial<Record<Backend, FaultProxy>> = {};
  const processes: FaultyWorldProcess[] = [];
  const stop = async () => {
    await Promise.all(processes.map((process) => process.stop()));
    await Promise.all(Object.values(proxies).map((proxy) => proxy.close()));
    await world.stop();
  };
  try {
    const env = { ...world.env };
    for (const [backend, variable] of Object.entries(ADDRESSES) as Array<[Backend, string]>) {
      const url = new URL(world.env[variable]!);
      const proxy = await startFaultProxy({ host: url.hostname, port: Number(url.port) });
      proxies[backend] = proxy;
      env[variable] = throughPort(world.env[variable]!, proxy.port);
    }
    const builder = held(await marqueeProcess(['builder'], env, /builder running/));
    processes.push(builder);
    const serving = await marqueeProcess(['serve'], env, /gateway listening on (http:\/\/\S+),/);
    const gateway = { ...held(serving), url: serving.match[1]! };
    processes.push(gateway);
    return { world, proxies: proxies as Record<Backend, FaultProxy>, builder, gateway, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** What the world keeps of a started process. */
function held(started: Awaited<ReturnType<typeof marqueeProcess>>): FaultyWorldProcess {
  return { output: started.output, alive: () => started.child.exitCode === null && started.child.signalCode === null, stop: started.stop };
}

/** `address` with its port replaced, and nothing else changed (no slash appended to a bare origin). */
function throughPort(address: string, port: number): string {
  const url = new URL(address);
  url.port = String(port);
  const rewritten = url.toString();
  return address.endsWith('/') || !rewritten.endsWith('/') ? rewritten : rewritten.slice(0, -1);
}
