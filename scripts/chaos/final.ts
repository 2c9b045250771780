// What the campaign reads once the last fault has healed:
// - final answers: every gateway asked for every organization's main paths, in rounds, from the
//   heal for CONVERGENCE_WINDOW_MS (each answer recorded with its instant, and as usage per key
//   counts it, as are the fresh build's gateway's below);
// - then the expected answers, computed apart: the platform's final rows copied into a database of their own
//   (so that nothing there touches the campaign's runs, outbox or audit trail), `marquee build` of
//   every organization into a directory store, and a third `marquee serve` over that directory,
//   asked the same paths with the same keys: the status and ETag a fresh build of the final state
//   gives;
// - the webhook messages queued (from the webhook store's relations), once deliveries settled;
// - the durables: keys (`keys list --json`), webhook secrets (the endpoints' relation), admin
//   credentials (`admins list --json`), audit entries by request id (`audit-log --jsonl`);
// - the audit trail's verification, `marquee audit-log verify` (every organization's history is
//   verified with the publication log: publication-log.ts).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SqlClient } from '../../records/database/sql.ts';
import { type CliRun, marquee, marqueeProcess } from '../../test/support/cli.ts';
import { API } from '../../test/support/http-fuzz.ts';
import { freePort } from '../../test/support/ports.ts';
import { createDatabase, POSTGRES_BIN } from '../../test/support/postgres.ts';
import type { SoakKey } from '../soak/keys.ts';
import type { SoakPlatform } from '../soak/platform.ts';
import type { Durables, ExpectedAnswer, FinalAnswer, QueuedMessage, UsageAnswer, Verification } from './history.ts';
import { askCounted } from './load.ts';
import type { ChaosWorld } from './world.ts';

const run = promisify(execFile);
/**
 * What the gateways are asked for after the heal, per organization: the profile and the first page
 * of events, the two that every change of the stream alters (names of organizations and of events;
 * a suspension changes both). More paths would not fit in the 30 s for a thousand organizations on
 * two cores.
 */
const FINAL_PATHS = ['/organization', '/events'].map((path) => `${API}${path}`);
/** How long the gateways are asked after the heal: the convergence bound (30 s) and a little more; a last round after it shows any relapse. */
const CONVERGENCE_WINDOW_MS = 32_000;
const CONCURRENCY = 48;
/** A round starts at most this often (a small platform's rounds are quick). */
const ROUND_EVERY_MS = 2_000;
/** The fresh build's gateway, as its answers are recorded for usage per key. */
const EXPECTED_GATEWAY = 'expected';

interface Probe {
  organizationId: string;
  path: string;
  key: SoakKey;
}

/** One key per organization that was never revoked (nor is being): the final answers are asked with it. */
export function probes(platform: SoakPlatform, keys: readonly SoakKey[]): Probe[] {
  const keyOf = new Map<number, SoakKey>();
  for (const key of keys) if (key.revokingSince === undefined && !keyOf.has(key.organization)) keyOf.set(key.organization, key);
  return platform.organizations.flatMap((organization) => {
    const key = keyOf.get(organization.index);
    return key === undefined ? [] : FINAL_PATHS.map((path) => ({ organizationId: organization.id, path, key }));
  });
}

/** A probe asked at a gateway: its status and ETag; the answer goes to `answers` too, since the gateway counts it in the key's usage. */
async function ask(gateway: { name: string; url: string }, probe: Probe, answers: UsageAnswer[]): Promise<{ status: number | undefined; etag: string | undefined }> {
  const { answer, etag } = await askCounted(gateway, probe.key, probe.path, 10_000);
  answers.push(answer);
  return { status: answer.status, etag };
}

async function inParallel<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, items.length) }, async () => {
      while (next < items.length) await each(items[next++]!);
    }),
  );
}

/**
 * Rounds over every gateway and probe, from now until `healedAt + CONVERGENCE_WINDOW_MS`, then one
 * more: every answer recorded with its instant, so the checker sees when each pair first answered
 * as the fresh build does and whether it relapsed. The expected answers are computed afterwards,
 * so that the fresh build does not take the cores from the gateways while they are asked.
 */
export async function pollFinal(world: ChaosWorld, all: readonly Probe[], healedAt: number, final: FinalAnswer[], answers: UsageAnswer[]): Promise<number> {
  const end = healedAt + CONVERGENCE_WINDOW_MS;
  const pairs = world.gateways.flatMap((gateway) => all.map((probe) => ({ gateway, probe })));
  let rounds = 0;
  for (;;) {
    const last = performance.now() >= end;
    const started = performance.now();
    await inParallel(pairs, async ({ gateway, probe }) => {
      const answer = await ask(gateway, probe, answers);
      final.push({ gateway: gateway.name, organizationId: probe.organizationId, path: probe.path, ...answer, at: performance.now() });
    });
    rounds++;
    if (last) return rounds;
    const pause = ROUND_EVERY_MS - (performance.now() - started);
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/**
 * The final platform's rows in a database of their own, built with `marquee build` into a directory,
 * served by a third gateway and asked every probe. That gateway shares the campaign's Redis (the
 * keys), so it counts its answers in the keys' usage too (`answers`), and moves them as it stops.
 */
export async function expectedAnswers(world: ChaosWorld, all: readonly Probe[], say: (line: string) => void, answers: UsageAnswer[]): Promise<ExpectedAnswer[]> {
  const databaseUrl = await createDatabase(world.postgres.url, `expected_${Date.now()}`);
  // The platform's relations only (Marquee's own are made by db migrate): its final state.
  const dump = await run('sh', ['-c', `${POSTGRES_BIN}/pg_dump --no-owner -T 'marquee_*' '${world.postgres.url}' | ${POSTGRES_BIN}/psql -q -v ON_ERROR_STOP=1 '${databaseUrl}'`], {
    maxBuffer: 64 << 20,
  });
  if (dump.stderr.trim() !== '') say(`copying the platform: ${dump.stderr.trim().split('\n')[0]}`);
  const home = await mkdtemp(join(tmpdir(), 'marquee-chaos-expected-'));
  const { S3_ENDPOINT: _endpoint, SNAPSHOT_STORE: _store, REDIS_URL: _redis, ...rest } = world.operatorEnv;
  const env = { ...rest, MARQUEE_HOME: home, DATABASE_URL: databaseUrl, SNAPSHOT_STORE: join(home, 'store') };
  try {
    for (const args of [['db', 'migrate'], ['build']]) {
      const started = performance.now();
      const done = await marquee(args, env);
      if (done.code !== 0) throw new Error(`the fresh build: marquee ${args.join(' ')} exited ${done.code}: ${done.stderr.trim().slice(0, 500)}`);
      say(`fresh build: marquee ${args.join(' ')} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    const { DATABASE_URL: _database, ...gatewayEnv } = env;
    const port = await freePort();
    const gateway = await marqueeProcess(['serve'], { ...gatewayEnv, REDIS_URL: world.redis.url, PORT: String(port), ADMIN_PORT: '0' }, /gateway listening on/);
    try {
      const expected: ExpectedAnswer[] = [];
      await inParallel(all, async (probe) => {
        const answer = await ask({ name: EXPECTED_GATEWAY, url: `http://127.0.0.1:${port}` }, probe, answers);
        expected.push({ organizationId: probe.organizationId, path: probe.path, status: answer.status ?? 0, etag: answer.etag });
      });
      return expected;
    } finally {
      await gateway.stop();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** Waits (up to `timeoutMs`) for no run under way and no delivery pending for an enabled endpoint, three looks in a row a second apart. */
export async function waitForQuiet(db: SqlClient, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  let quiet = 0;
  while (performance.now() < until) {
    const [row] = await db
      .query<{ runs: number; pending: number }>(
        `SELECT (SELECT count(*)::int FROM marquee_runs WHERE finished_at IS NULL) AS runs,
                (SELECT count(*)::int FROM marquee_webhook_deliveries d JOIN marquee_webhook_endpoints e ON e.id = d.endpoint_id WHERE d.state = 'pending' AND e.enabled) AS pending`,
      )
      .catch(() => [{ runs: 1, pending: 1 }]);
    quiet = row!.runs === 0 && row!.pending === 0 ? quiet + 1 : 0;
    if (quiet >= 3) return true;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return false;
}

/** Every delivery queued, in queue order (the message's creation, then its id), on the campaign's clock. */
export async function queuedMessages(db: SqlClient): Promise<{ queued: QueuedMessage[]; enabledEndpoints: string[] }> {
  const rows = await db.query<{ endpoint_id: string; message_id: string; epoch_ms: number }>(
    `SELECT d.endpoint_id, d.message_id, (extract(epoch FROM m.created_at) * 1000)::float8 AS epoch_ms
       FROM marquee_webhook_deliveries d JOIN marquee_webhook_messages m ON m.id = d.message_id
      ORDER BY m.created_at, m.id`,
  );
  const offset = Date.now() - performance.now();
  const enabled = await db.query<{ id: string }>('SELECT id FROM marquee_webhook_endpoints WHERE enabled ORDER BY id');
  return {
    queued: rows.map((row) => ({ endpointId: row.endpoint_id, messageId: row.message_id, queuedAt: Number(row.epoch_ms) - offset })),
    enabledEndpoints: enabled.map((row) => row.id),
  };
}

interface Created {
  keys: string[];
  webhookSecrets: Record<string, string>;
  admins: string[];
  auditedRequests: string[];
}

export async function readDurables(world: ChaosWorld, created: Created): Promise<Durables> {
  const json = async <T>(args: string[]): Promise<T> => {
    const done = await world.cli(args);
    if (done.code !== 0) throw new Error(`marquee ${args.join(' ')} exited ${done.code}: ${done.stderr.trim().slice(0, 300)}`);
    return JSON.parse(done.stdout) as T;
  };
  const [keys, admins, audit] = await Promise.all([
    json<Array<{ id: string; revokedAt: string | null }>>(['keys', 'list', '--json']),
    json<Array<{ name: string }>>(['admins', 'list', '--json']),
    world.cli(['audit-log', '--jsonl']),
  ]);
  if (audit.code !== 0) throw new Error(`marquee audit-log --jsonl exited ${audit.code}: ${audit.stderr.trim().slice(0, 300)}`);
  const requestIds = audit.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { requestId?: string | null }).requestId)
    .filter((id): id is string => typeof id === 'string');
  const secrets = await world.db.query<{ id: string; secret: string }>('SELECT id, secret FROM marquee_webhook_endpoints');
  return {
    keys: { created: created.keys, present: keys.filter((key) => key.revokedAt === null).map((key) => key.id) },
    webhookSecrets: { created: created.webhookSecrets, present: Object.fromEntries(secrets.map((row) => [row.id, row.secret])) },
    adminCredentials: { created: created.admins, present: admins.map((admin) => admin.name) },
    auditEntries: { returned: created.auditedRequests, present: requestIds },
  };
}

/** Said by a command that could not read the store in time: no verdict on the chain, so it is asked again. */
const STORE_TIMEOUT = /did not answer|requestTimeout|ECONNRESET|ETIMEDOUT/;
const VERIFY_ATTEMPTS = 3;

/** A verifying command, asked again (at most twice more) while it failed only because the store did not answer in time; `tried` says so when it was. */
export async function verifying(world: ChaosWorld, args: string[]): Promise<CliRun & { tried?: string }> {
  let done = await world.cli(args);
  let attempts = 1;
  while (done.code !== 0 && STORE_TIMEOUT.test(done.stderr) && attempts < VERIFY_ATTEMPTS) {
    done = await world.cli(args);
    attempts++;
  }
  return attempts > 1 ? { ...done, tried: `attempt ${attempts}; the ones before could not read the store in time` } : done;
}

/** `marquee audit-log verify`: the audit trail against the heads kept in the store. */
export async function verifyAuditTrail(world: ChaosWorld): Promise<Verification> {
  const args = ['audit-log', 'verify', '--json'];
  const done = await verifying(world, args);
  const detail = done.code === 0 ? done.tried : `exit ${done.code}${done.tried ? ` (${done.tried})` : ''}: ${(done.stdout + done.stderr).trim().slice(0, 500)}`;
  return { what: `marquee ${args.join(' ')}`, ok: done.code === 0, ...(detail === undefined ? {} : { detail }) };
}
