// The load every gateway benchmark puts on its servers: a fixed number of keep-alive connections on
// loopback for a few seconds, in a process of its own, and what it measured — the rate, p99, the
// answers that were not 2xx or 3xx, and the generator's own CPU time per response.
//
// wrk by default (Debian's package; scripts/ensure-test-services.sh installs it): its HTTP parser is
// C, one thread, about 19 µs of CPU per 69 kB /events answer whichever server sent it. On a machine
// of two cores the generator takes one of them, and autocannon, whose parser is JavaScript, spent
// 43 to 53 µs per such answer, more per answer from a slower server: the rate it measured followed
// the generator as much as the server (docs/performance.md, "The load generator"). `--load
// autocannon` keeps it, for comparison with figures taken with it.
//
//   node --import tsx bench/load-generator.ts autocannon '{"url":…,"headers":{…},"seconds":3,"connections":32}'
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from './node-flags.ts';

export type LoadGenerator = 'wrk' | 'autocannon';
export const LOAD_GENERATORS: readonly LoadGenerator[] = ['wrk', 'autocannon'];

/** Keep-alive connections, the same for every gateway benchmark. */
export const CONNECTIONS = 32;

export interface LoadRequest {
  url: string;
  headers: Record<string, string>;
  seconds: number;
  /** CONNECTIONS when not given. */
  connections?: number;
}

export interface Load {
  requestsPerSecond: number;
  /** Milliseconds. */
  p99: number;
  /** Answers neither 2xx nor 3xx, and socket errors and timeouts. */
  errors: number;
  /** The generator's CPU time (user + system) per response, in µs. */
  loadCpuUs: number;
}

const SELF = fileURLToPath(import.meta.url);

/** `--load wrk|autocannon` among a benchmark's arguments (default wrk); anything else is refused. */
export function loadGeneratorOf(args: readonly string[]): LoadGenerator {
  const at = args.indexOf('--load');
  if (at === -1) return 'wrk';
  const named = args[at + 1];
  if (!LOAD_GENERATORS.includes(named as LoadGenerator)) throw new Error(`--load ${named ?? ''}: one of ${LOAD_GENERATORS.join(', ')}`);
  return named as LoadGenerator;
}

/** Runs `generator` against `request.url` and resolves with what it measured. */
export function applyLoad(generator: LoadGenerator, request: LoadRequest): Promise<Load> {
  const complete = { connections: CONNECTIONS, ...request };
  return generator === 'wrk' ? wrk(complete) : autocannonChild(complete);
}

/** Output of a child, which must exit with 0. */
function outputOf(command: string, args: readonly string[], what: string): Promise<string> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(out);
      // 127: the shell found no such command.
      else if (code === 127) reject(new Error(`${what} is not installed: sh scripts/ensure-test-services.sh ${what} installs it`));
      else reject(new Error(`${what} exited with ${code}: ${out.slice(-500)}`));
    });
  });
}

const LATENCY_UNITS: Readonly<Record<string, number>> = { us: 0.001, ms: 1, s: 1000 };

/**
 * wrk with one thread, from a shell whose `times` then prints the CPU time of its children: wrk
 * reports no CPU of its own, and its process is gone before /proc could be read.
 */
async function wrk({ url, headers, seconds, connections }: Required<LoadRequest>): Promise<Load> {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]), url];
  const out = await outputOf('sh', ['-c', 'wrk "$@" && times', 'sh', ...args], 'wrk');
  const read = (pattern: RegExp): RegExpExecArray => {
    const match = pattern.exec(out);
    if (match === null) throw new Error(`wrk printed no ${pattern.source}:\n${out}`);
    return match;
  };
  const total = Number(read(/(\d+) requests in/)[1]);
  const [, p99, unit] = read(/\s99%\s+([\d.]+)(us|ms|s)\b/);
  const notOk = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)?.slice(1) ?? [];
  // `times`: the shell's own user and system time, then its children's.
  const times = [...out.matchAll(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s/g)];
  if (times.length < 2) throw new Error(`the shell printed no CPU time of wrk:\n${out}`);
  const [, um, us, sm, ss] = times[times.length - 1]!;
  const cpuSeconds = Number(um) * 60 + Number(us) + Number(sm) * 60 + Number(ss);
  return {
    requestsPerSecond: Number(read(/Requests\/sec:\s+([\d.]+)/)[1]),
    p99: Number(p99) * LATENCY_UNITS[unit!]!,
    errors: notOk + socketErrors.reduce((sum, n) => sum + Number(n), 0),
    loadCpuUs: (cpuSeconds * 1e6) / Math.max(1, total),
  };
}

/** autocannon in a child process of its own (this file's entry below), so that it shares no event loop with the caller. */
async function autocannonChild(request: Required<LoadRequest>): Promise<Load> {
  return JSON.parse(await outputOf(process.execPath, [...NODE_FLAGS, SELF, 'autocannon', JSON.stringify(request)], 'autocannon')) as Load;
}

async function runAutocannon({ url, headers, seconds, connections }: Required<LoadRequest>): Promise<void> {
  const { default: autocannon } = await import('autocannon');
  const cpuBefore = process.cpuUsage();
  const result = await autocannon({ url, connections, duration: seconds, headers });
  const { user, system } = process.cpuUsage(cpuBefore);
  const load: Load = {
    requestsPerSecond: result.requests.average,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    loadCpuUs: (user + system) / Math.max(1, result.requests.total),
  };
  process.stdout.write(`${JSON.stringify(load)}\n`);
}

if (process.argv[1] === SELF && process.argv[2] === 'autocannon') await runAutocannon(JSON.parse(process.argv[3]!) as Required<LoadRequest>);
