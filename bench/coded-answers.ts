// What bench/gateway.ts measures of the gateway's coded answers (docs/design.md "Coded
// bodies"), in the same run as its other figures:
// - the bytes of one answer per coding (none asked, `Accept-Encoding: br`, `gzip`), counted as they
//   came over the socket (undici's request does not decode), each coded one checked to decode to the
//   identity answer;
// - br answers against identity answers of the same route, in requests/s and in the gateway's CPU
//   per request, round by round, the order of the two swapped every round;
// - the gateway's `GET /organization` against nginx serving the same bytes as static files with
//   their precompressed forms (bench/nginx-static.ts), per coding asked.
// A gateway that does not compress answers identity whatever is asked: its br bytes are its
// identity bytes, and what it is measured against is itself.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { applyLoad, type LoadGenerator } from './load-generator.ts';
import { cpuMicrosecondsOf } from './process-usage.ts';

/** Targets: br at most this share of identity's bytes (the list and the detail); br answers at least this share of identity's rate and CPU. */
const BROTLI_BYTES_TARGET = 0.25;
const CODED_RATE_TARGET = 0.95;

/** A server under load: where, and the process whose CPU time it spends. */
export interface Served {
  url: string;
  pid(): number;
}

export interface CodedRoute {
  name: string;
  path: string;
  /** The key and origin (the gateway's); nginx is asked without. */
  headers: Record<string, string>;
  /** Judged on its br bytes (the list and the detail; `/organization` is small enough to go as it is). */
  bytesTarget: boolean;
}

type Asked = 'identity' | 'br' | 'gzip';
const ASKED: readonly Asked[] = ['identity', 'br', 'gzip'];
const acceptOf = (asked: Asked): Record<string, string> => (asked === 'identity' ? {} : { 'accept-encoding': asked });

export interface Answer {
  /** The Content-Encoding answered, `identity` when none. */
  coding: string;
  bytes: Buffer;
}

/** One request, its body as received. */
export async function answerAs(url: string, headers: Record<string, string>, asked: Asked): Promise<Answer> {
  const { request } = await import('undici');
  const reply = await request(url, { headers: { ...headers, ...acceptOf(asked) } });
  const bytes = Buffer.from(await reply.body.arrayBuffer());
  if (reply.statusCode !== 200) throw new Error(`${url} (${asked}) answered ${reply.statusCode}: ${bytes.toString().slice(0, 200)}`);
  return { coding: String(reply.headers['content-encoding'] ?? 'identity'), bytes };
}

function decoded({ coding, bytes }: Answer): Buffer {
  if (coding === 'identity') return bytes;
  if (coding === 'br') return brotliDecompressSync(bytes);
  if (coding === 'gzip') return gunzipSync(bytes);
  throw new Error(`an answer coded ${coding}, which was not asked for`);
}

const inBytes = (bytes: number) => `${bytes.toLocaleString('en')} B`;
const percent = (ratio: number) => `${(ratio * 100).toFixed(0)}%`;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Bytes per answer, identity / br / gzip, one request each; a verdict per route, judged on br for the list and the detail. */
export async function measureBytes(gatewayUrl: string, routes: CodedRoute[]): Promise<string[]> {
  console.log(`\nbytes per answer, one request each, as received (not decoded)`);
  const verdicts: string[] = [];
  for (const route of routes) {
    const answers = {} as Record<Asked, Answer>;
    for (const asked of ASKED) answers[asked] = await answerAs(`${gatewayUrl}${route.path}`, route.headers, asked);
    for (const asked of ASKED) {
      if (!decoded(answers[asked]).equals(answers.identity.bytes)) throw new Error(`${route.name}: the answer to ${asked} is not the identity answer once decoded`);
    }
    const share = (asked: Asked) => answers[asked].bytes.length / answers.identity.bytes.length;
    const as = (asked: Asked) => `${asked} ${inBytes(answers[asked].bytes.length)} (answered ${answers[asked].coding}, ${percent(share(asked))} of identity)`;
    const target = route.bytesTarget ? ` (target br ≤ ${percent(BROTLI_BYTES_TARGET)} of identity: ${share('br') <= BROTLI_BYTES_TARGET ? 'met' : 'NOT met'})` : '';
    verdicts.push(`bytes: ${route.name}: identity ${inBytes(answers.identity.bytes.length)}, ${as('br')}, ${as('gzip')}${target}`);
  }
  console.log(verdicts.join('\n'));
  return verdicts;
}

interface Rate {
  requestsPerSecond: number;
  cpuUs: number;
}

/** One measurement of `served` under the load, with its CPU per request. */
async function loaded(generator: LoadGenerator, served: Served, path: string, headers: Record<string, string>, seconds: number): Promise<Rate> {
  const pid = served.pid();
  const before = cpuMicrosecondsOf(pid);
  const load = await applyLoad(generator, { url: `${served.url}${path}`, headers, seconds });
  if (load.errors > 0) console.log(`${served.url}${path}: ${load.errors} answers neither 2xx nor 3xx, or socket errors!`);
  return { requestsPerSecond: load.requestsPerSecond, cpuUs: (cpuMicrosecondsOf(pid) - before) / (load.requestsPerSecond * seconds) };
}

interface Side {
  served: Served;
  path: string;
  headers: Record<string, string>;
}

/**
 * `a` against `b`, `rounds` times, which runs first swapped each round, after a second of each to
 * warm up: per round a's requests/s over b's, and b's CPU per request over a's (above 100%, a costs less).
 */
async function pairRounds(generator: LoadGenerator, label: string, a: Side, b: Side, rounds: number, seconds: number) {
  for (const side of [a, b]) await loaded(generator, side.served, side.path, side.headers, 1);
  const runs: Array<{ a: Rate; b: Rate }> = [];
  for (let round = 1; round <= rounds; round++) {
    const first = round % 2 ? a : b;
    const second = first === a ? b : a;
    const firstRate = await loaded(generator, first.served, first.path, first.headers, seconds);
    const secondRate = await loaded(generator, second.served, second.path, second.headers, seconds);
    const run = first === a ? { a: firstRate, b: secondRate } : { a: secondRate, b: firstRate };
    runs.push(run);
    console.log(
      `round ${round}  ${label.padEnd(58)} ${run.a.requestsPerSecond.toFixed(0).padStart(7)} against ${run.b.requestsPerSecond.toFixed(0).padStart(7)} req/s, ${run.a.cpuUs.toFixed(1)} against ${run.b.cpuUs.toFixed(1)} µs CPU/request`,
    );
  }
  const rates = runs.map((run) => run.a.requestsPerSecond / run.b.requestsPerSecond);
  const cpus = runs.map((run) => run.b.cpuUs / run.a.cpuUs);
  return {
    rate: median(rates),
    rates,
    cpu: median(cpus),
    aCpu: median(runs.map((run) => run.a.cpuUs)),
    bCpu: median(runs.map((run) => run.b.cpuUs)),
  };
}

/** br answers against identity answers of each route, on the gateway; a verdict per route. */
export async function measureCodedAgainstIdentity(generator: LoadGenerator, gateway: Served, routes: CodedRoute[], rounds: number, seconds: number): Promise<string[]> {
  console.log(`\nbr answers against identity answers, the gateway's own, ${rounds} rounds × ${seconds} s`);
  const verdicts: string[] = [];
  for (const route of routes) {
    const coding = (await answerAs(`${gateway.url}${route.path}`, route.headers, 'br')).coding;
    const identity: Side = { served: gateway, path: route.path, headers: route.headers };
    const br: Side = { ...identity, headers: { ...route.headers, ...acceptOf('br') } };
    const measured = await pairRounds(generator, `${route.name}: br / identity`, br, identity, rounds, seconds);
    const met = (ratio: number) => (ratio >= CODED_RATE_TARGET ? 'met' : 'NOT met');
    verdicts.push(
      `${route.name}: br answers (answered ${coding}) at ${percent(measured.rate)} of identity answers' requests/s (${measured.rates.map(percent).join(', ')}; target ≥ ${percent(CODED_RATE_TARGET)}: ${met(measured.rate)}), ` +
        `${percent(measured.cpu)} in CPU per request (${measured.aCpu.toFixed(1)} µs against ${measured.bCpu.toFixed(1)} µs; target ≥ ${percent(CODED_RATE_TARGET)}: ${met(measured.cpu)})`,
    );
  }
  console.log(verdicts.join('\n'));
  return verdicts;
}

/**
 * The gateway's `route` against nginx serving `file` (the same bytes, precompressed forms beside
 * them), asked for each coding nginx can serve: no target yet, the reference.
 */
export async function measureAgainstStatic(
  generator: LoadGenerator,
  gateway: Served,
  route: CodedRoute,
  nginx: Served & { brotli: boolean },
  file: string,
  rounds: number,
  seconds: number,
): Promise<string[]> {
  console.log(`\n${route.name} against nginx serving the same bytes as static files, ${rounds} rounds × ${seconds} s`);
  const verdicts: string[] = [];
  const codings = ASKED.filter((asked) => asked !== 'br' || nginx.brotli);
  for (const asked of codings) {
    const [ours, theirs] = [await answerAs(`${gateway.url}${route.path}`, route.headers, asked), await answerAs(`${nginx.url}/${file}`, {}, asked)];
    const measured = await pairRounds(
      generator,
      `${route.name}${asked === 'identity' ? '' : `, ${asked}`}: gateway / nginx static`,
      { served: gateway, path: route.path, headers: { ...route.headers, ...acceptOf(asked) } },
      { served: nginx, path: `/${file}`, headers: acceptOf(asked) },
      rounds,
      seconds,
    );
    verdicts.push(
      `${route.name}${asked === 'identity' ? '' : `, Accept-Encoding: ${asked}`}: ${percent(measured.rate)} of nginx static (${measured.rates.map(percent).join(', ')}; in CPU per request ${percent(measured.cpu)}, ${measured.aCpu.toFixed(1)} µs against nginx's ${measured.bCpu.toFixed(1)} µs; ` +
        `the gateway answered ${ours.coding} ${inBytes(ours.bytes.length)}, nginx ${theirs.coding} ${inBytes(theirs.bytes.length)}; no target yet)`,
    );
  }
  if (!nginx.brotli) verdicts.push(`${route.name}, Accept-Encoding: br: not measured, nginx's brotli_static is not installed (sh scripts/ensure-test-services.sh nginx-brotli)`);
  console.log(verdicts.join('\n'));
  return verdicts;
}
