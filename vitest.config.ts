// Six projects in four groups, one group after the other (docs/development.md, "The test suite"):
//   1. `unit`: pure logic, in-process, two files at a time (worker threads: they start faster).
//   2. `integration`, every file under test/integration/ not listed in ALONE, and
//      `integration-production`, the gateway suites once more on the production backends (one
//      global setup starts them for the project: test/support/production-backends.ts; each suite
//      on its own key prefix and Redis namespace): two files at a time. Each integration file starts
//      the real servers it needs itself, on free loopback ports and in its own temporary
//      directories, so two files never share a server.
//   3. `integration-fault-campaigns`, the chaos campaign and the fault matrix (FAULT_CAMPAIGNS):
//      each bounds latencies under faults, and each mostly waits on its faults (together they keep
//      under half of the two cores busy), so they run beside each other and nothing else.
//   4. `integration-alone` and `integration-production-alone`, the files in ALONE, which bound a
//      latency (a change served within a second, a verdict within 100 ms) that a second test busy
//      on this machine's two cores could stretch: one file at a time, nothing beside it.
// A new integration file needs nothing: it runs in group 2. One that bounds a latency goes in ALONE.
//
// MARQUEE_TEST_SCOPE=compatibility narrows every project to what a Node line other than the current
// LTS runs (scripts/test.sh): the unit tests but those of the repository's text (REPOSITORY_CHECKS),
// the contract suites against the real servers and a smoke test of each process (SMOKE). The
// current LTS runs everything.
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/sequencer.ts';

/** The gateway suites that run on both: routes, authentication, security properties, freshness, conditional requests. */
const GATEWAY_SUITES = [
  'auth-suite',
  'routes-happy',
  'routes-errors',
  'security.property',
  'freshness',
  'conditional',
  'paging',
  'pinned-reads',
  'changes',
  'compressed-answers',
].map((name) => `test/integration/gateway/${name}.test.ts`);

/**
 * Integration files that bound a latency tightly enough (a change served within 1 or 2 s, a verdict
 * within 100 ms, a median under a second) that they run with nothing beside them.
 */
const ALONE = [
  'builder/change-during-run',
  'builder/change-triggered',
  'cli/serve-beside',
  'cli/start',
  // A 64 MiB object written through the S3 proxy in the test's own process within the store's 5 s
  // request timeout, and a store that fails within 2 s (the rest of its suite, s3-store, and one
  // that gives up after 15 s, s3-store-stuck, wait beside others).
  'contracts/s3-store-bounds',
  'gateway/cdn',
  'gateway/freshness',
  'gateway/hostile-http',
  'gateway/redis-access',
  'production/many-gateways',
  // Every one of 800 organizations served within 30 s of Redis losing its data mid-run: the
  // builders' pace on two cores is the bound.
  'production/redis-lost-mid-run',
  'runtime/files',
].map((name) => `test/integration/${name}.test.ts`);

/**
 * The short chaos campaign (two builders, two gateways and every backend under faults; its
 * invariants bound latencies: a 503 only while a backend is down, convergence within 30 s) and the
 * fault matrix (18 faults, each held 3 s during a build, then a recovery bound). Either spends most
 * of its time waiting on a fault or a heal: run 16's two cores were 75 to 80 % idle while the
 * campaign ran alone and while the matrix ran beside the webhooks suite.
 */
const FAULT_CAMPAIGNS = ['production/chaos', 'production/fault-matrix'].map((name) => `test/integration/${name}.test.ts`);

/**
 * A smoke test of each process, for another Node line than the current LTS: the CLI's first run
 * (version, a wrong command line, a MARQUEE_HOME it cannot create), `marquee start` from nothing
 * with the commands beside it (PGlite), and `marquee db migrate` and `db seed` on PostgreSQL, then
 * `marquee builder` with two `marquee serve` on PostgreSQL, Redis, S3 (s3rver) and the CDN (nginx).
 */
const SMOKE = ['cli/first-run', 'cli/start', 'production/many-gateways'].map((name) => `test/integration/${name}.test.ts`);

/**
 * Unit files that check the repository's committed text, not what the code does when it runs: the
 * docs' links, the import graph as TypeScript's scanner reads the sources, and the committed
 * schemas/openapi.json (generated anew and compared, then linted by Redocly). They give the same
 * verdict on every Node line, so the current LTS alone runs them, as it runs the static checks once.
 * On Node 20 at a load average of 16 the four took 177 s of the unit files' own 793 s (22 %).
 */
const REPOSITORY_CHECKS = ['docs/links', 'architecture/import-graph', 'openapi/document', 'openapi/lint'].map((name) => `test/unit/${name}.test.ts`);

/**
 * MARQUEE_TEST_SCOPE=compatibility: what another Node line than the current LTS runs — every unit
 * test but REPOSITORY_CHECKS, the contract suites against the real servers
 * (test/integration/contracts/), and SMOKE.
 */
const compatibility = process.env.MARQUEE_TEST_SCOPE === 'compatibility';
const CONTRACTS = 'test/integration/contracts/**/*.test.ts';
const inScope = (file: string) => file.startsWith('test/integration/contracts/') || SMOKE.includes(file);
const scope = {
  integration: compatibility ? [CONTRACTS, ...SMOKE] : ['test/integration/**/*.test.ts'],
  production: compatibility ? GATEWAY_SUITES.filter(inScope) : GATEWAY_SUITES,
  alone: compatibility ? ALONE.filter(inScope) : ALONE,
};

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: compatibility ? REPOSITORY_CHECKS : [],
          testTimeout: 20_000,
          pool: 'threads',
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: scope.integration,
          exclude: [...ALONE, ...FAULT_CAMPAIGNS],
          globalSetup: ['test/support/build-product.ts', 'test/support/template-homes.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'integration-production',
          include: scope.production.filter((file) => !ALONE.includes(file)),
          globalSetup: ['test/support/build-product.ts', 'test/support/production-backends.ts'],
          // The S3 store takes its credentials from the AWS SDK's chain, as in production: these are s3rver's.
          env: { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' },
          testTimeout: 120_000,
          hookTimeout: 180_000,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'integration-fault-campaigns',
          include: compatibility ? [] : FAULT_CAMPAIGNS,
          globalSetup: ['test/support/build-product.ts', 'test/support/template-homes.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
      {
        test: {
          name: 'integration-production-alone',
          include: scope.production.filter((file) => ALONE.includes(file)),
          globalSetup: ['test/support/build-product.ts', 'test/support/production-backends.ts'],
          env: { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' },
          testTimeout: 120_000,
          hookTimeout: 180_000,
          maxWorkers: 1,
          sequence: { groupOrder: 3 },
        },
      },
      {
        test: {
          name: 'integration-alone',
          include: scope.alone,
          globalSetup: ['test/support/build-product.ts', 'test/support/template-homes.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          maxWorkers: 1,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
