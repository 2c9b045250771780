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
//   node --import tsx bench/gateway-ab.ts --against 8a8fba4 [--rounds 10] [--seconds 3]
import { machine } from './machine.ts';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from './node-flags.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PATH = '/api/integration/v1/organization';

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

function startServer(name: string, benchFile: string, kind: 'gateway' | 'express', configPath: string): Promise<Server> {
  const child = spawn(process.execPath, [...NODE_FLAGS, benchFile, 'serve', kind, configPath], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)));
    child.stdout!.once('data', (chunk: Buffer) => resolve({ name, url: `http://127.0.0.1:${(JSON.parse(chunk.toString()) as { port: number }).port}`, child }));
  });
}

/** User + system CPU time of a process, in clock ticks (1/100 s on Linux). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function measure(url: string, headers: Record<string, string>, seconds: number): Promise<{ requestsPerSecond: number; p99: number; errors: number }> {
  const child = spawn(process.execPath, [...NODE_FLAGS, join(ROOT, 'bench/gateway.ts'), 'load', JSON.stringify({ url, headers, seconds })], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load generator exited with ${code}`)))));
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const rev = option(args, 'against');
  if (rev === undefined) throw new Error('usage: bench/gateway-ab.ts --against REV [--rounds N] [--seconds S]');
  const rounds = Number(option(args, 'rounds') ?? 10);
  const seconds = Number(option(args, 'seconds') ?? 3);
  console.log(`command: node --import tsx bench/gateway-ab.ts --against ${rev} --rounds ${rounds} --seconds ${seconds}`);
  console.log(`${machine()}\n`);

  const { PlatformFixture } = await import('../test/support/platform-fixture.ts');
  const { projectOrganization, resourcesOf } = await import('../builder/projection/index.ts');
  const { publishSnapshot } = await import('../builder/publish.ts');
  const { FileKeyStore } = await import('../records/keys/file-store.ts');
  const { DirectoryStore } = await import('../snapshot/stores/directory.ts');
  const dir = await mkdtemp(join(tmpdir(), 'marquee-bench-ab-'));
  const servers: Server[] = [];
  try {
    const earlier = await earlierBuild(rev, dir);
    const fixture = new PlatformFixture({ id: randomUUID(), name: 'Org', slug: 'org', description: 'A community.' });
    for (let i = 0; i < 3; i++) fixture.teamMember({ fullName: `Member ${i}`, title: 'Organizer', sortOrder: i });
    const projected = projectOrganization(fixture.data(), { publicBaseUrl: 'https://events.example' });
    const store = new DirectoryStore(join(dir, 'snapshots'));
    const resources = resourcesOf(projected).map(({ path, value }) => ({ path, value }));
    await publishSnapshot(store, {
      organizationId: fixture.organization.id,
      organizationSlug: 'org',
      state: 'active',
      resources,
      slugs: projected.slugs,
      trigger: 'manual',
      now: new Date(),
    });
    const keys = new FileKeyStore(join(dir, 'keys.json'));
    const { secret } = await keys.create({ organizationId: fixture.organization.id, label: 'bench', origins: ['https://site.example'] });
    const headers = { 'x-api-key': secret, origin: 'https://site.example' };

    const configPath = join(dir, 'serve.json');
    const config = { storeDir: join(dir, 'snapshots'), keyFile: join(dir, 'keys.json'), bodies: {} as Record<string, { body: string; etag: string }> };
    await writeFile(configPath, JSON.stringify(config));
    servers.push(await startServer('earlier', join(earlier, 'bench/gateway.ts'), 'gateway', configPath));
    servers.push(await startServer('this', join(ROOT, 'bench/gateway.ts'), 'gateway', configPath));
    // The reference answers the bytes the gateway answers, from memory.
    const first = await fetch(servers[0]!.url + PATH, { headers });
    config.bodies[PATH] = { body: await first.text(), etag: first.headers.get('etag') ?? '' };
    await writeFile(configPath, JSON.stringify(config));
    servers.push(await startServer('express', join(ROOT, 'bench/gateway.ts'), 'express', configPath));
    for (const server of servers) await measure(server.url + PATH, headers, 1);

    const results = new Map(servers.map((server) => [server.name, [] as Array<{ rps: number; p99: number; cpuUs: number }>]));
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < servers.length; i++) {
        const server = servers[(i + round) % servers.length]!;
        const before = cpuTicks(server.child.pid!);
        const measured = await measure(server.url + PATH, headers, seconds);
        if (measured.errors > 0) throw new Error(`${server.name}: ${measured.errors} answers were not 200`);
        const cpuUs = ((cpuTicks(server.child.pid!) - before) * 10_000) / (measured.requestsPerSecond * seconds);
        results.get(server.name)!.push({ rps: measured.requestsPerSecond, p99: measured.p99, cpuUs });
        console.log(
          `round ${round + 1}  ${server.name.padEnd(8)} ${measured.requestsPerSecond.toFixed(0).padStart(7)} req/s  p99 ${measured.p99} ms  ${cpuUs.toFixed(1)} µs CPU/request`,
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
          .padStart(7)} req/s  p99 ${median(runs.map((r) => r.p99))} ms  ${median(runs.map((r) => r.cpuUs)).toFixed(1)} µs CPU/request`,
      );
    }
    const toExpress = (name: string) => median(of(name).map((r) => r.rps)) / median(of('express').map((r) => r.rps));
    const perRound = median(of('this').map((r, i) => r.rps / of('earlier')[i]!.rps));
    const cpu = median(of('this').map((r) => r.cpuUs)) / median(of('earlier').map((r) => r.cpuUs));
    console.log(
      `\nGET /organization: this build ${(toExpress('this') * 100).toFixed(1)}% of minimal Express, ${rev} ${(toExpress('earlier') * 100).toFixed(1)}%; ` +
        `this / ${rev} per round (median) ${perRound.toFixed(3)} (target ≥ 0.95: ${perRound >= 0.95 ? 'met' : 'NOT met'}); CPU per request ${cpu.toFixed(3)}×`,
    );
  } finally {
    for (const server of servers) server.child.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
