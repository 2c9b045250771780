// Fuzzing the real `marquee serve` process (`npm run fuzz`): two organizations published into a
// temporary store, keys made with the real CLI (test/support/served-gateway.ts), then N fuzzed
// requests over every endpoint, header and query parameter (test/support/http-fuzz.ts: random
// bytes, overlong values, unicode and percent-encoding tricks, repeated and conflicting key
// headers, malformed If-None-Match), one in twenty a pipeline mixing both organizations' keys on
// one connection. Loopback only; stops by itself after N requests or S seconds, whichever first.
// Prints a table of statuses, the rate and the process's RSS before and after, and exits 1 on any
// 5xx, undocumented status, unanswered well-formed request, other organization's data in a body,
// pipeline out of order, crash, or RSS growth beyond the bound.
//
//   node --import tsx scripts/fuzz.ts [--requests 3000] [--seconds 60] [--seed N] [--concurrency 16] [--rss-growth-mb 64]
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import {
  API,
  DOCUMENTED_STATUSES,
  discoverWorld,
  type FuzzWorld,
  fuzzOrganizationFixture,
  fuzzRequestArbitrary,
  pipeline,
  pipelineArbitrary,
  pipelineProblems,
  problemsWith,
  sendRaw,
} from '../test/support/http-fuzz.ts';
import { type ServedGateway, startServedGateway } from '../test/support/served-gateway.ts';
import { vmRssMb } from './soak/measures.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '3000' },
    seconds: { type: 'string', default: '60' },
    seed: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
    'rss-growth-mb': { type: 'string', default: '64' },
  },
});
const REQUESTS = positive('requests');
const SECONDS = positive('seconds');
const CONCURRENCY = positive('concurrency');
const RSS_GROWTH_MB = positive('rss-growth-mb');
const SEED = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
/** One job in this many is a pipeline of 2 to 12 requests. */
const PIPELINE_EVERY = 20;
const RSS_SAMPLE_EVERY = 250;
/** Failures printed in full; the rest are counted. */
const SHOWN_FAILURES = 10;

function positive(name: 'requests' | 'seconds' | 'concurrency' | 'rss-growth-mb'): number {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`--${name} must be a positive integer, got ${values[name]}\n`);
    process.exit(2);
  }
  return value;
}

/** The pid of the process listening on a loopback TCP port (Linux /proc). */
function pidListeningOn(port: number): number {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEXADDR:HEXPORT; state 0A is LISTEN; the inode is the tenth field.
      if (fields[3] === '0A' && Number.parseInt(fields[1]?.split(':')[1] ?? '', 16) === port) inodes.add(`socket:[${fields[9]}]`);
    }
  }
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (inodes.has(readlinkSync(`/proc/${entry}/fd/${fd}`))) return Number(entry);
      } catch {
        // Closed meanwhile.
      }
    }
  }
  throw new Error(`no process of ours listens on port ${port}`);
}

interface Tally {
  statuses: Map<string, number>;
  /** The highest VmRSS seen, sampled every RSS_SAMPLE_EVERY requests. */
  peakRssMb: number;
  requests: number;
  pipelines: number;
  failures: string[];
}

async function fuzz(world: FuzzWorld, port: number, pid: number): Promise<{ tally: Tally; seconds: number }> {
  const tally: Tally = { statuses: new Map(), peakRssMb: vmRssMb(pid) ?? 0, requests: 0, pipelines: 0, failures: [] };
  let nextSample = RSS_SAMPLE_EVERY;
  const count = (status: string) => tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
  const fail = (problem: string) => tally.failures.push(problem);
  // One generator per kind, seeded: the same --seed replays the same requests.
  const requests = fc.sample(fuzzRequestArbitrary(world), { numRuns: REQUESTS, seed: SEED });
  const pipelines = fc.sample(pipelineArbitrary(world), { numRuns: Math.ceil(REQUESTS / PIPELINE_EVERY), seed: SEED + 1 });
  const started = Date.now();
  const deadline = started + SECONDS * 1000;
  let job = 0;
  const worker = async () => {
    while (tally.requests < REQUESTS && Date.now() < deadline && vmRssMb(pid) !== undefined) {
      const index = job++;
      if (tally.requests >= nextSample) {
        nextSample += RSS_SAMPLE_EVERY;
        tally.peakRssMb = Math.max(tally.peakRssMb, vmRssMb(pid) ?? 0);
      }
      if (index % PIPELINE_EVERY === PIPELINE_EVERY - 1 && pipelines.length > 0) {
        const { requests: batch, splits } = pipelines.pop()!;
        tally.requests += batch.length;
        tally.pipelines += 1;
        try {
          const responses = await pipeline(port, batch, splits);
          for (const response of responses) count(String(response.status));
          for (const problem of pipelineProblems(world, batch, responses, { throttled: true })) fail(`pipeline: ${problem}`);
        } catch (error) {
          fail(`pipeline of ${batch.length}: ${(error as Error).message}`);
        }
        continue;
      }
      const request = requests[index % requests.length]!;
      tally.requests += 1;
      try {
        const response = await sendRaw(port, request.bytes, { halfClose: request.mangled });
        count(response === undefined ? 'no answer' : Number.isNaN(response.status) ? 'unparsable' : String(response.status));
        for (const problem of problemsWith(world, request, response)) fail(`${problem}: ${request.summary}`);
      } catch (error) {
        fail(`${(error as Error).message}: ${request.summary}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { tally, seconds: (Date.now() - started) / 1000 };
}

async function main(): Promise<void> {
  const fixtures = [fuzzOrganizationFixture('Alpha'), fuzzOrganizationFixture('Bravo')] as const;
  process.stdout.write(`fuzz: starting marquee serve with two organizations (seed ${SEED})\n`);
  const served: ServedGateway = await startServedGateway([fixtures[0], fixtures[1]]);
  let exitCode = 0;
  try {
    // Enough keys that the fuzzed valid-key requests stay mostly under 600 a minute per key (§8).
    const keysEach = Math.max(2, Math.ceil(REQUESTS / 1200));
    const keys: [string[], string[]] = [[], []];
    for (const [index, fixture] of fixtures.entries()) {
      for (let i = 0; i < keysEach; i++) keys[index]!.push((await served.createKey(fixture.organization.slug)).key);
    }
    const port = Number(new URL(served.url).port);
    const pid = pidListeningOn(port);
    const world = await discoverWorld([fixtures[0], fixtures[1]], keys, async (path, key) => {
      const response = await fetch(`${served.url}${path}`, { headers: { 'X-Api-Key': key } });
      return { status: response.status, body: await response.text(), etag: response.headers.get('etag') ?? undefined };
    });
    const rssBefore = vmRssMb(pid)!;
    const { tally, seconds } = await fuzz(world, port, pid);
    const rssAfter = vmRssMb(pid);

    // Alive and still answering each organization its own data.
    if (rssAfter === undefined) tally.failures.push(`the process exited; its output ended with:\n${served.output().slice(-4000)}`);
    else {
      const health = await fetch(`${served.url}/readyz`).catch((error: Error) => error);
      if (health instanceof Error || health.status !== 200) tally.failures.push(`GET /readyz after the run: ${health instanceof Error ? health.message : health.status}`);
      for (const organization of world.organizations) {
        const response = await fetch(`${served.url}${API}/organization`, { headers: { 'X-Api-Key': organization.keys.at(-1)! } });
        const body = await response.text();
        if (response.status === 200 && !body.includes(organization.id)) tally.failures.push(`after the run, /organization of ${organization.id} answered another body`);
        if (response.status !== 200 && response.status !== 429) tally.failures.push(`after the run, /organization answered ${response.status}`);
      }
      if (rssAfter - rssBefore > RSS_GROWTH_MB) tally.failures.push(`RSS grew ${(rssAfter - rssBefore).toFixed(1)} MB (bound ${RSS_GROWTH_MB} MB)`);
    }

    const rows: Array<[string, string]> = [...tally.statuses.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, n]) => [
        status === 'no answer' ? 'no answer (cut short, allowed)' : `${status}${DOCUMENTED_STATUSES.has(Number(status)) ? '' : '  (undocumented)'}`,
        String(n),
      ]);
    rows.push(
      ['requests', String(tally.requests)],
      ['pipelines (their requests counted above)', String(tally.pipelines)],
      ['seconds', seconds.toFixed(1)],
      ['requests/s', (tally.requests / seconds).toFixed(0)],
      ['RSS before (MB)', rssBefore.toFixed(1)],
      ['RSS peak (MB)', tally.peakRssMb.toFixed(1)],
      ['RSS after (MB)', rssAfter === undefined ? 'process gone' : rssAfter.toFixed(1)],
      ['failures', String(tally.failures.length)],
    );
    const width = Math.max(...rows.map(([label]) => label.length));
    process.stdout.write(`\n${'status'.padEnd(width)}  count\n${rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n')}\n`);
    if (tally.failures.length > 0) {
      exitCode = 1;
      process.stdout.write(`\nFAILED (seed ${SEED}):\n`);
      for (const failure of tally.failures.slice(0, SHOWN_FAILURES)) process.stdout.write(`  - ${failure}\n`);
      if (tally.failures.length > SHOWN_FAILURES) process.stdout.write(`  … and ${tally.failures.length - SHOWN_FAILURES} more\n`);
    } else process.stdout.write(`\nOK: every answer documented, no 5xx, no other organization's data, pipelines in order, process alive (seed ${SEED})\n`);
  } finally {
    await served.stop();
  }
  process.exitCode = exitCode;
}

await main();
