// The gateway against an earlier build of itself (`npm run bench:gateway:ab -- --against REV`):
// what a change costs the hot path, which bench:gateway's ratio to minimal Express cannot tell
// apart from the machine's noise across runs. REV is exported (git archive) and compiled into a
// temporary directory; both builds' embedded gateways (bench/gateway.ts's own `serve gateway`
// mode, as each build has it) and the minimal Express reference serve GET /organization of one
// organization, each in its own process; rounds are interleaved and their order rotated, and each
// round's ratio to the earlier build is taken in that round, so a noisy neighbour hits both alike.
// CPU per request comes from /proc (user + system time of the server process). Loopback only,
// bounded in time; prints a table and medians.
//
// --profile DIR: this build's gateway and minimal Express run with node's --cpu-prof and write their
// CPU profiles of GET /organization alone into DIR when they stop (summarize one with
// bench/cpu-profile.ts; the run prints which pid is which).
//
// --same-headers adds a reference: minimal Express sending the same response as the gateway, headers
// included (the CORS, rate-limit, request-id and snapshot-id headers the contract asks for, as the
// gateway's first answer had them), `express+`; the gap to it is the gateway's own work alone.
//
// --counted adds a fourth server, this build's gateway started by this script rather than by REV's
// bench/gateway.ts, and checks that usage per key was counted (gateway/usage/, a file spool as
// `marquee serve` has in MARQUEE_HOME/usage): what counting costs is `counted` against a REV from
// before counting. Both builds' gateways count since 057e1e1, `this` too (bench/embedded-gateway.ts).
//
// --gateway-flags '…': more node flags for this build's gateway alone; with --against HEAD, what a
// flag does to the hot path, in one run (bench:gateway's --gateway-flags weighs it against Express).
//
// --load autocannon: the load generator of figures before 2026-11-28 (bench/load-generator.ts; wrk by default).
//
// --path PATH measures another request of the same organization instead, such as
// '/api/integration/v1/events?timing=past&pageSize=50' (an empty page: the organization has no events).
//
//   node --import tsx bench/gateway-ab.ts --against 8a8fba4 [--rounds 10] [--seconds 3] [--counted] [--same-headers] [--profile DIR] [--path PATH] [--gateway-flags '…'] [--load wrk|autocannon]
import { machine } from './machine.ts';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpuMicrosecondsOf } from './process-usage.ts';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from './node-flags.ts';
import { gatewayOwnHeaders, startEmbeddedGateway } from './embedded-gateway.ts';
import { ORGANIZATION_PATH, publishOneOrganization } from './one-organization.ts';
import { applyLoad, loadGeneratorOf } from './load-generator.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
/** The issue's bound on what counting may cost the hot path: at most 3 % of its throughput. */
const COUNTED_TARGET = 0.97;

interface Server {
  name: string;
  url: string;
  child: ChildProcess;
}

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? undefined : args[at + 1];
}

/** REV's tree, compiled, in a temporary directory that shares this checkout's node_modules. */
async function earlierBuild(rev: string, dir: string): Promise<string> {
  const tree = join(dir, 'earlier');
  execFileSync('sh', ['-c', `mkdir -p "${tree}" && git -C "${ROOT}" archive "${rev}" | tar -x -C "${tree}"`]);
  await symlink(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
  try {
    execFileSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', 'dist'], { cwd: tree, stdio: 'ignore' });
  } catch (error) {
    // 2: type errors (against this checkout's dependencies), JavaScript written anyway.
    if ((error as { status?: number }).status !== 2) throw error;
  }
  return tree;
}

/** `args`: the child's script and mode (bench/gateway.ts' `serve gateway|express CONFIG`, or this file's `counted CONFIG`). */
function startServer(name: string, args: string[], flags: readonly string[] = []): Promise<Server> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...flags, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)));
    child.stdout!.once('data', (chunk: Buffer) => resolve({ name, url: `http://127.0.0.1:${(JSON.parse(chunk.toString()) as { port: number }).port}`, child }));
  });
}

function stopped(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.child.once('exit', () => resolve());
    server.child.kill();
  });
}

/**
 * The `counted` server: this build's embedded gateway (bench/embedded-gateway.ts), which counts usage
 * per key into a file spool beside the store as `marquee serve` does in MARQUEE_HOME/usage (no intake
 * takes the batches). Since bench/gateway.ts's embedded gateway counts too, `this` does as well:
 * `--counted` measures counting against a REV from before it.
 */
async function countedGateway(configPath: string): Promise<void> {
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as { storeDir: string; keyFile: string };
  const gateway = await startEmbeddedGateway({ storeDir: config.storeDir, keyFile: config.keyFile, usageHome: dirname(config.storeDir) });
  process.once('SIGTERM', () => process.exit(0));
  process.stdout.write(`${JSON.stringify({ port: gateway.port })}\n`);
}

/** What the counted gateway moved to its spool: the batches and the requests they count. */
async function movedRequests(spool: string): Promise<{ batches: number; requests: number }> {
  const { decodeBatch } = await import('../records/usage/usage-batch.ts');
  const names = (await readdir(spool).catch(() => [] as string[])).filter((name) => name.endsWith('.json'));
  let requests = 0;
  for (const name of names) for (const count of decodeBatch(await readFile(join(spool, name), 'utf8')).counts) requests += count.requests;
  return { batches: names.length, requests };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const rev = option(args, 'against');
  if (rev === undefined)
    throw new Error(
      'usage: bench/gateway-ab.ts --against REV [--rounds N] [--seconds S] [--counted] [--same-headers] [--profile DIR] [--path PATH] [--gateway-flags FLAGS] [--load wrk|autocannon]',
    );
  const rounds = Number(option(args, 'rounds') ?? 10);
  const seconds = Number(option(args, 'seconds') ?? 3);
  const counted = args.includes('--counted');
  const sameHeaders = args.includes('--same-headers');
  const profileDir = option(args, 'profile');
  const PATH = option(args, 'path') ?? ORGANIZATION_PATH;
  const generator = loadGeneratorOf(args);
  const measure = (url: string, headers: Record<string, string>, seconds: number) => applyLoad(generator, { url, headers, seconds });
  const profile = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const gatewayFlags = option(args, 'gateway-flags')?.split(' ').filter(Boolean) ?? [];
  console.log(
    `command: node --import tsx bench/gateway-ab.ts --against ${rev} --rounds ${rounds} --seconds ${seconds}${counted ? ' --counted' : ''}${sameHeaders ? ' --same-headers' : ''}${profileDir === undefined ? '' : ` --profile ${profileDir}`}${PATH === ORGANIZATION_PATH ? '' : ` --path '${PATH}'`}${gatewayFlags.length === 0 ? '' : ` --gateway-flags '${gatewayFlags.join(' ')}'`} --load ${generator}`,
  );
  console.log(`${machine()}\n`);

  const dir = await mkdtemp(join(tmpdir(), 'marquee-bench-ab-'));
  const servers: Server[] = [];
  try {
    const earlier = await earlierBuild(rev, dir);
    const { storeDir, keyFile, headers } = await publishOneOrganization(dir);

    const configPath = join(dir, 'serve.json');
    const config = { storeDir, keyFile, bodies: {} as Record<string, { body: string; etag: string; headers?: Record<string, string> }> };
    await writeFile(configPath, JSON.stringify(config));
    servers.push(await startServer('earlier', [join(earlier, 'bench/gateway.ts'), 'serve', 'gateway', configPath]));
    servers.push(await startServer('this', [join(ROOT, 'bench/gateway.ts'), 'serve', 'gateway', configPath], [...gatewayFlags, ...profile]));
    if (counted) servers.push(await startServer('counted', [SELF, 'counted', configPath]));
    // The reference answers the bytes the gateway answers, from memory.
    const first = await fetch(servers[0]!.url + PATH, { headers });
    config.bodies[PATH] = { body: await first.text(), etag: first.headers.get('etag') ?? '' };
    await writeFile(configPath, JSON.stringify(config));
    servers.push(await startServer('express', [join(ROOT, 'bench/gateway.ts'), 'serve', 'express', configPath], profile));
    if (sameHeaders) {
      const sameConfigPath = join(dir, 'serve-same-headers.json');
      await writeFile(sameConfigPath, JSON.stringify({ ...config, bodies: { [PATH]: { ...config.bodies[PATH], headers: gatewayOwnHeaders(first.headers) } } }));
      servers.push(await startServer('express+', [join(ROOT, 'bench/gateway.ts'), 'serve', 'express', sameConfigPath]));
    }
    if (profileDir !== undefined)
      console.log(
        `CPU profiles in ${profileDir}: this build's gateway is process ${servers[1]!.child.pid}, minimal Express ${servers.find(({ name }) => name === 'express')!.child.pid}`,
      );
    for (const server of servers) await measure(server.url + PATH, headers, 1);

    const results = new Map(servers.map((server) => [server.name, [] as Array<{ rps: number; p99: number; cpuUs: number }>]));
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < servers.length; i++) {
        const server = servers[(i + round) % servers.length]!;
        const before = cpuMicrosecondsOf(server.child.pid!);
        const measured = await measure(server.url + PATH, headers, seconds);
        if (measured.errors > 0) throw new Error(`${server.name}: ${measured.errors} answers were not 200`);
        const cpuUs = (cpuMicrosecondsOf(server.child.pid!) - before) / (measured.requestsPerSecond * seconds);
        results.get(server.name)!.push({ rps: measured.requestsPerSecond, p99: measured.p99, cpuUs });
        console.log(
          `round ${round + 1}  ${server.name.padEnd(8)} ${measured.requestsPerSecond.toFixed(0).padStart(7)} req/s  p99 ${measured.p99.toFixed(2)} ms  ${cpuUs.toFixed(1)} µs CPU/request`,
        );
      }
    }
    const of = (name: string) => results.get(name)!;
    console.log('\nmedians');
    for (const server of servers) {
      const runs = of(server.name);
      console.log(
        `${server.name.padEnd(8)} ${median(runs.map((r) => r.rps))
          .toFixed(0)
          .padStart(7)} req/s  p99 ${median(runs.map((r) => r.p99)).toFixed(2)} ms  ${median(runs.map((r) => r.cpuUs)).toFixed(1)} µs CPU/request`,
      );
    }
    const toExpress = (name: string) => median(of(name).map((r) => r.rps)) / median(of('express').map((r) => r.rps));
    const perRound = (name: string, reference: string) => median(of(name).map((r, i) => r.rps / of(reference)[i]!.rps));
    const cpu = (name: string, reference: string) => median(of(name).map((r) => r.cpuUs)) / median(of(reference).map((r) => r.cpuUs));
    const thisToEarlier = perRound('this', 'earlier');
    if (sameHeaders) {
      console.log(
        `\nexpress+ (minimal Express, the gateway's headers): this build ${(perRound('this', 'express+') * 100).toFixed(1)}% of its requests/s per round (median), ` +
          `CPU per request ${cpu('this', 'express+').toFixed(3)}×; the gateway's headers cost minimal Express ${((1 - perRound('express+', 'express')) * 100).toFixed(1)}% of its requests/s`,
      );
    }
    console.log(
      `\nGET ${PATH.replace('/api/integration/v1', '')}: this build ${(toExpress('this') * 100).toFixed(1)}% of minimal Express, ${rev} ${(toExpress('earlier') * 100).toFixed(1)}%; ` +
        `this / ${rev} per round (median) ${thisToEarlier.toFixed(3)} (target ≥ 0.95: ${thisToEarlier >= 0.95 ? 'met' : 'NOT met'}); CPU per request ${cpu('this', 'earlier').toFixed(3)}×`,
    );
    if (counted) {
      const countedToEarlier = perRound('counted', 'earlier');
      const met = countedToEarlier >= COUNTED_TARGET;
      console.log(
        `counted (usage per key counted): ${(toExpress('counted') * 100).toFixed(1)}% of minimal Express; counted / ${rev} per round (median) ${countedToEarlier.toFixed(3)} ` +
          `(target ≥ ${COUNTED_TARGET}: ${met ? 'met' : 'NOT met'}), CPU per request ${cpu('counted', 'earlier').toFixed(3)}×; ` +
          `counted / this per round (median) ${perRound('counted', 'this').toFixed(3)}, CPU per request ${cpu('counted', 'this').toFixed(3)}×`,
      );
      // A run whose counted server counted nothing measured no counting: say so, and fail.
      const moved = await movedRequests(join(dir, 'usage'));
      console.log(`counted: ${moved.requests} requests in ${moved.batches} batches moved to the spool (the last 10 s are still in the tally)`);
      if (!met || moved.requests === 0) process.exitCode = 1;
    }
  } finally {
    // Each gateway gone before the directory is: one still renewing its lease on the key file
    // writes into it while it is removed (ENOTEMPTY).
    await Promise.all(servers.map(stopped));
    await rm(dir, { recursive: true, force: true });
  }
}

const [mode, configPath] = process.argv.slice(2);
if (mode === 'counted') await countedGateway(configPath!);
else await main();
