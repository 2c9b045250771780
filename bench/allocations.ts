// Bytes the gateway allocates per request (`npm run bench:allocations`): the garbage a request
// leaves is what the collector's share of the gateway's time is made of, and a CPU profile does not
// show who made it. The embedded gateway (bench/embedded-gateway.ts) runs in this process;
// the load every gateway benchmark uses (bench/load-generator.ts: wrk, or `--load autocannon`) comes
// from a child; V8's sampling heap profiler, told to keep the objects the collector already freed,
// samples every allocation meanwhile. Printed: bytes per request, and the functions that
// allocated them (self, then inclusive). `--reference express` measures minimal Express serving
// the same bytes instead, with the same load, for comparison. Sampled every 256 bytes: a function's
// figure is an estimate, within a few percent over a few seconds of load. Loopback only.
//
//   node --import tsx bench/allocations.ts [--reference express] [--seconds 4] [--top 30] [--load wrk|autocannon]
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machine } from './machine.ts';
import { applyLoad, loadGeneratorOf } from './load-generator.ts';
import { startEmbeddedGateway } from './embedded-gateway.ts';
import { ORGANIZATION_PATH, publishOneOrganization } from './one-organization.ts';

const generator = loadGeneratorOf(process.argv);

interface SampledNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampledNode[];
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** The load every gateway benchmark puts on its servers (bench/load-generator.ts): the requests it got answered. */
async function load(url: string, headers: Record<string, string>, seconds: number): Promise<number> {
  return (await applyLoad(generator, { url, headers, seconds })).requestsPerSecond * seconds;
}

/** Minimal Express with one middleware, answering the bytes and headers bench/gateway.ts's reference answers. */
async function startExpress(body: Buffer, etag: string): Promise<string> {
  const { default: express } = await import('express');
  const { createServer } = await import('node:http');
  const app = express();
  app.set('etag', false);
  app.use((req, res, next) => {
    if (req.url !== ORGANIZATION_PATH) return next();
    res.set({ ETag: etag, 'Cache-Control': 'private, max-age=60', 'Content-Type': 'application/json; charset=utf-8' });
    res.send(body);
  });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** Bytes by function, self and inclusive (a function counted once per stack however often it recurs). */
function byFunction(head: SampledNode): { total: number; self: Map<string, number>; inclusive: Map<string, number> } {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (totals: Map<string, number>, key: string, bytes: number) => totals.set(key, (totals.get(key) ?? 0) + bytes);
  const nameOf = ({ callFrame: f }: SampledNode) =>
    `${f.functionName || '(anonymous)'}  ${f.url.replace(/^(?:file:\/\/)?.*?\/(node_modules|dist)\//, '$1/') || '(native)'}:${f.lineNumber + 1}`;
  const walk = (node: SampledNode, onStack: ReadonlySet<string>): number => {
    const name = nameOf(node);
    add(self, name, node.selfSize);
    const stack = new Set(onStack).add(name);
    let subtree = node.selfSize;
    for (const child of node.children) subtree += walk(child, stack);
    if (!onStack.has(name)) add(inclusive, name, subtree);
    return subtree;
  };
  const total = walk(head, new Set());
  return { total, self, inclusive };
}

async function main(): Promise<void> {
  const reference = option('reference');
  if (reference !== undefined && reference !== 'express') throw new Error('--reference takes only express');
  const seconds = Number(option('seconds') ?? 4);
  const top = Number(option('top') ?? 30);
  console.log(`command: node --import tsx bench/allocations.ts${reference ? ` --reference ${reference}` : ''} --seconds ${seconds} --top ${top}`);
  console.log(`${machine()}\n`);
  const dir = await mkdtemp(join(tmpdir(), 'marquee-bench-allocations-'));
  let gateway: { url: string; close(): Promise<void> } | undefined;
  try {
    const { storeDir, keyFile, headers } = await publishOneOrganization(dir);
    gateway = await startEmbeddedGateway({ storeDir, keyFile, usageHome: dir });
    let url = gateway.url + ORGANIZATION_PATH;
    if (reference === 'express') {
      // The gateway answers once, for the bytes; then only Express is loaded.
      const first = await fetch(url, { headers });
      url = (await startExpress(Buffer.from(await first.text()), first.headers.get('etag') ?? '')) + ORGANIZATION_PATH;
    }
    await load(url, headers, 2); // warm-up: compiled code, filled caches
    const session = new Session();
    session.connect();
    // Not in @types/node's parameter type, but V8's: keep what minor and major collections freed.
    await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
    const requests = await load(url, headers, seconds);
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SampledNode } };
    session.disconnect();
    const { total, self, inclusive } = byFunction(profile.head);
    const perRequest = (bytes: number) => (bytes / requests).toFixed(0).padStart(7);
    console.log(`${reference ?? 'gateway'}: GET /organization, ${requests.toFixed(0)} requests in ${seconds} s, ${perRequest(total).trim()} bytes allocated per request (sampled)`);
    const print = (title: string, totals: Map<string, number>) => {
      console.log(`\n${title}`);
      for (const [name, bytes] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${perRequest(bytes)} B  ${name}`);
    };
    print('self bytes per request by function', self);
    print('inclusive bytes per request by function', inclusive);
  } finally {
    // Closed first: its lease on the key file is renewed in the directory.
    await gateway?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
// Express's server (with --reference) is left listening: the answer is printed.
process.exit(0);
