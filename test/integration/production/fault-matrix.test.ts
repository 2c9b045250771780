// The fault matrix of docs/reliability.md: each backend slowed, reset and truncated during a build and under load.
// A fault proxy (test/support/faulty-world.ts) slows each backend beyond the clients' timeouts and
// below them, resets its connections or cuts its answers short, while a `marquee builder` publishes
// a change and a `marquee serve` answers a light load; nobody restarts either. Each row proves: every
// answer is nordic's own data (the name before or after the change) or 503 with Retry-After, a
// revoked key is never served, the fault met traffic, and once it is lifted the change is published
// whole and served, measured from that moment.
//
// Each fault begins at one moment of the build, seen on its way to the backend, and lasts FAULT_MS:
// PostgreSQL at the build's read transaction, Redis at its build lock, S3 at its first object write
// (and once at its pointer write), the CDN when the gateway fetches the new manifest through it. A
// row is both "during a build" and "during serving": each proxy carries the builder's and the
// gateway's traffic to its backend, and the load runs throughout.
import { afterAll, beforeAll, describe, expect, it, onTestFailed, vi } from 'vitest';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { readPointer } from '../../../snapshot/reader.ts';
import { S3Store } from '../../../snapshot/stores/s3.ts';
import type { Fault, FaultProxy } from '../../support/fault-proxy.ts';
import { type Backend, type FaultyWorld, startFaultyWorld } from '../../support/faulty-world.ts';
import { type Answer, type GatewayClient, gatewayClient, type LoadReport, underLoad, wrongForRevokedKey, wrongForValidKey } from '../../support/production-load.ts';
import { readWholeSnapshot } from '../../support/snapshot-integrity.ts';

const NORDIC = SAMPLE.organizations.nordic.id;
/** Long enough for every client to meet the fault (its timeouts, its retries); short enough for a 3-minute file. */
const FAULT_MS = 3_000;
/** Beyond every client timeout on the way: Redis commands 2 s (gateway verdicts, locks), S3 and CDN answers 5 s. */
const SLOW: Fault = { kind: 'delay', ms: 6_000 };
/** Below them, per backend: a round trip costs twice the delay. */
const MILD: Record<Backend, Fault> = {
  postgres: { kind: 'delay', ms: 1_000 },
  redis: { kind: 'delay', ms: 100 },
  s3: { kind: 'delay', ms: 1_000 },
  cdn: { kind: 'delay', ms: 1_000 },
};
const RESET: Fault = { kind: 'reset' };
/** Every row's change is served within this of the fault being lifted: far above what was measured (at most 6 s), below the 30 s an abandoned build lock costs. */
const RECOVERY_MS = 15_000;
/** Past a short answer's headers: some answers lose their body's end, some their headers'. */
const TRUNCATE: Fault = { kind: 'truncate', bytes: 512 };

/** The request that begins a backend's fault: the moment of the build (or of fetching its result) it strikes. */
const MOMENTS: Record<Backend, { what: string; pattern: RegExp }> = {
  postgres: { what: "the build's read transaction", pattern: /REPEATABLE READ/ },
  redis: { what: "the build's lock", pattern: new RegExp(`build-lock:${NORDIC}`) },
  s3: { what: "the build's first object write", pattern: new RegExp(`^PUT \\S*/orgs/${NORDIC}/objects/`, 'm') },
  cdn: { what: "the gateway's fetch of the new manifest", pattern: new RegExp(`^GET \\S*/orgs/${NORDIC}/snapshots/`, 'm') },
};
const POINTER_WRITE = { what: "the build's pointer write", pattern: new RegExp(`^PUT \\S*/orgs/${NORDIC}/current\\.json`, 'm') };
const LISTING = {
  what: "the change build's organization listing",
  pattern: /FROM organizations o LEFT JOIN marquee_source_versions v ON v\.organization_id = o\.id\s+ORDER BY o\.id/,
};

interface Row {
  backend: Backend;
  fault: Fault;
  moment: { what: string; pattern: RegExp };
}

const BACKENDS: Backend[] = ['postgres', 'redis', 's3', 'cdn'];
const ROWS: Row[] = [
  // No answer whole, before any organization is built, while the idle change listener keeps its
  // connection: no notification comes again and no catch-up build follows; only a retry publishes.
  // First, while no other build of nordic can be pending to publish the change in its stead.
  { backend: 'postgres', fault: { kind: 'truncate', bytes: 16 }, moment: LISTING },
  ...BACKENDS.flatMap((backend) => [SLOW, MILD[backend], RESET, TRUNCATE].map((fault) => ({ backend, fault, moment: MOMENTS[backend] }))),
  // The write happens and its answer is lost: the builder cannot tell whether it published.
  { backend: 's3', fault: TRUNCATE, moment: POINTER_WRITE },
];

let faulty: FaultyWorld;
let client: GatewayClient;
let store: S3Store;
let servingKey: string;
let revokedKey: string;
/** Keys the gateway has never checked, one per Redis row: what a new site meets while Redis is faulty. */
const unseenKeys: string[] = [];
/** The name the last row gave nordic: a build of it may still be publishing when the next row begins. */
let lastName: string;
const table: string[] = [];

beforeAll(async () => {
  faulty = await startFaultyWorld();
  const { env } = faulty.world;
  // The test reads the store directly, with s3rver's credentials, as the CLI does.
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION']) vi.stubEnv(name, env[name]!);
  const [bucket, ...prefix] = env.SNAPSHOT_STORE!.slice('s3://'.length).split('/');
  store = new S3Store({ bucket: bucket!, prefix: prefix.join('/'), endpoint: env.S3_ENDPOINT! });
  client = gatewayClient(faulty.gateway.url);
  const keys = await Promise.all([createKey(), createKey(), ...ROWS.filter((row) => row.backend === 'redis').map(() => createKey())]);
  const [serving, revoked, ...unseen] = keys;
  servingKey = serving!.key;
  revokedKey = revoked!.key;
  unseenKeys.push(...unseen.map((key) => key.key));
  const served = await client.get('/organization', servingKey);
  expect(served.status).toBe(200);
  lastName = nameIn(served)!;
  // Seen valid, revoked, then seen revoked: what the gateway holds of it while Redis is faulty is the
  // revocation. (A revocation it has not seen yet, it learns only once Redis answers again.)
  expect((await client.get('/organization', revokedKey)).status).toBe(200);
  expect((await faulty.world.cli(['keys', 'revoke', revoked!.id])).code).toBe(0);
  expect((await client.get('/organization', revokedKey)).status).toBe(401);
});

afterAll(async () => {
  if (table.length > 0) console.info(`fault matrix, recovery after the fault was lifted:\n${table.join('\n')}`);
  await client?.close();
  await faulty?.stop();
  vi.unstubAllEnvs();
});

async function createKey(): Promise<{ id: string; key: string }> {
  const run = await faulty.world.cli(['keys', 'create', '--org', 'nordic-dev', '--json']);
  if (run.code !== 0) throw new Error(`keys create failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { id: string; key: string };
}

const describeFault = (fault: Fault): string =>
  fault.kind === 'delay' ? `slowed ${fault.ms} ms` : fault.kind === 'truncate' ? `truncated after ${fault.bytes} bytes` : fault.kind;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** When the fault began and was lifted (performance.now()); `cancel` lifts it, or stops waiting for its moment. */
interface FaultWindow {
  began: Promise<number>;
  lifted: Promise<number>;
  cancel(): void;
}

/** Sets `fault` on `proxy` when a client sends what `pattern` matches, and lifts it FAULT_MS later. */
function faultAt(proxy: FaultProxy, fault: Fault, pattern: RegExp): FaultWindow {
  let began!: (at: number) => void;
  let lifted!: (at: number) => void;
  let timer: NodeJS.Timeout | undefined;
  const lift = () => {
    proxy.set({ kind: 'pass' });
    lifted(performance.now());
  };
  const unwatch = proxy.watch((chunk) => {
    if (!pattern.test(chunk.toString('latin1'))) return;
    unwatch();
    proxy.set(fault);
    began(performance.now());
    timer = setTimeout(lift, FAULT_MS);
  });
  return {
    began: new Promise<number>((resolve) => (began = resolve)),
    lifted: new Promise<number>((resolve) => (lifted = resolve)),
    cancel: () => {
      unwatch();
      clearTimeout(timer);
      lift();
    },
  };
}

/** The moment `probe` first holds, polled every 100 ms for up to `timeoutMs`. */
async function firstTime(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<number> {
  return vi.waitFor(
    async () => {
      if (!(await probe())) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
      return performance.now();
    },
    { timeout: timeoutMs, interval: 100 },
  );
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Rejects after `ms`: what was awaited never came. */
const within = <T>(what: string, promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms))]);

/** Whether nordic's pointer, read from the store directly, names another snapshot than `snapshotId`. */
const pointerMoved = (snapshotId: string | null | undefined) => async () => (await readPointer(store, NORDIC))?.snapshotId !== snapshotId;

const nameIn = (answer: Answer): string | undefined => (answer.status === 200 ? (JSON.parse(answer.body) as { name?: string }).name : undefined);

/** What one row saw: the load's reports, an unseen key's answer during the fault, and milliseconds after the fault was lifted. */
interface Observed {
  serving: LoadReport;
  revoked: LoadReport;
  unseenDuring: Answer | undefined;
  after: { published: number; served: number; unseenKey?: number };
}

/** Renames nordic with `row`'s fault set at its moment, under load; resolves once the change is served. */
async function observe(row: Row, name: string, names: ReadonlySet<string>, snapshotBefore: string | null | undefined): Promise<Observed> {
  const proxy = faulty.proxies[row.backend];
  const unseenKey = row.backend === 'redis' ? unseenKeys.pop() : undefined;
  let servedAt: number | undefined;
  let unseenDuring: Answer | undefined;
  let after: Observed['after'] | undefined;
  const window = faultAt(proxy, row.fault, row.moment.pattern);
  const judgeServing = (answer: Answer) => {
    if (servedAt === undefined && nameIn(answer) === name) servedAt = answer.at;
    return wrongForValidKey(answer, NORDIC, names);
  };
  const [serving, revoked] = await underLoad(
    [
      { ask: () => client.get('/organization', servingKey), judge: judgeServing, intervalMs: 150 },
      { ask: () => client.get('/organization', revokedKey), judge: wrongForRevokedKey, intervalMs: 1_000 },
    ],
    async () => {
      try {
        await faulty.world.sql('UPDATE organizations SET name = $1 WHERE id = $2', [name, NORDIC]);
        // Watched from now: a build may get through before the fault is lifted.
        const published = firstTime('the change published in the store', pointerMoved(snapshotBefore));
        published.catch(() => {});
        await within(`${row.moment.what} going by`, window.began, 30_000);
        if (unseenKey) unseenDuring = await pause(1_000).then(() => client.get('/organization', unseenKey));
        const lifted = await window.lifted;
        const publishedAt = await published;
        await firstTime('the change served', async () => servedAt !== undefined);
        after = { published: publishedAt - lifted, served: servedAt! - lifted };
        // A key refused while Redis could not be asked: how long until it is checked again.
        if (unseenKey && unseenDuring?.status !== 200) {
          after.unseenKey = (await firstTime('the unseen key accepted', async () => (await client.get('/organization', unseenKey)).status === 200)) - lifted;
        }
      } finally {
        window.cancel();
      }
    },
  );
  return { serving: serving!, revoked: revoked!, unseenDuring, after: after! };
}

async function runRow(row: Row): Promise<void> {
  const proxy = faulty.proxies[row.backend];
  const logsFrom = { builder: faulty.builder.output().length, gateway: faulty.gateway.output().length };
  onTestFailed(() => {
    for (const part of ['builder', 'gateway'] as const) console.info(`${part} log during the row:\n${faulty[part].output().slice(logsFrom[part]).slice(-6_000)}`);
  });
  const name = `Nordic, ${row.backend} ${describeFault(row.fault)} at ${row.moment.what}`;
  // Served now, the last row's (should it be published yet), the new one: never anything older.
  const names = new Set([nameIn(await client.get('/organization', servingKey)) ?? lastName, lastName, name]);
  lastName = name;
  const faultedBefore = proxy.stats.faulted;
  const snapshotBefore = (await readPointer(store, NORDIC))?.snapshotId;
  const observed = await observe(row, name, names, snapshotBefore);
  const line = report(row, observed);
  table.push(line);
  console.info(line);

  expect(faulty.builder.alive() && faulty.gateway.alive()).toBe(true);
  expect(observed.serving.problems).toEqual([]);
  expect(observed.revoked.problems).toEqual([]);
  expect(observed.revoked.answers.length).toBeGreaterThan(0);
  expect(proxy.stats.faulted).toBeGreaterThan(faultedBefore);
  expect(observed.after.served).toBeLessThan(RECOVERY_MS);
  if (observed.unseenDuring) expect(wrongForValidKey(observed.unseenDuring, NORDIC, names)).toBeUndefined();
  // The pointer names a snapshot whose manifest and objects are all there and match their hashes, and it is the change's.
  const whole = await readWholeSnapshot(store, NORDIC);
  expect(whole.snapshotId).not.toBe(snapshotBefore);
  expect((whole.resources['/organization'] as { name: string }).name).toBe(name);
}

const counts = (report: LoadReport): string => [...report.statuses].map(([status, count]) => `${count}×${status}`).join(' ');

/** One line of the table: the row, what the load saw, and how long after the fault was lifted each thing came back. */
function report(row: Row, { serving, revoked, unseenDuring, after }: Observed): string {
  const slowest = Math.max(...serving.answers.map((answer) => answer.ms));
  const since = (what: string, ms: number | undefined) => (ms === undefined ? '' : `${what} ${ms <= 0 ? 'during the fault' : `+${seconds(ms)}`}`);
  return [
    `${row.backend} ${describeFault(row.fault)} at ${row.moment.what}`,
    `valid key ${counts(serving)}, slowest ${seconds(slowest)}; revoked key ${counts(revoked)}${unseenDuring ? `; an unseen key ${unseenDuring.status}` : ''}`,
    [since('published', after.published), since('served', after.served), since('unseen key accepted', after.unseenKey)].filter(Boolean).join(', '),
  ].join(' | ');
}

describe('each backend slowed, reset and truncated during a build and under load, no Marquee process restarted', () => {
  for (const row of ROWS) {
    it(`${row.backend} ${describeFault(row.fault)} at ${row.moment.what}`, () => runRow(row));
  }

  it('leaves a store that `marquee audit` finds whole', async () => {
    const audit = await faulty.world.cli(['audit', '--json']);
    expect(audit.stderr).toBe('');
    expect(audit.code).toBe(0);
  });
});
