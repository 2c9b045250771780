// npm run bench:audit — the audit trail at 100,000 entries (BENCH_AUDIT_ENTRIES), on PostgreSQL 15.
//
// filter: `audit-log --org nordic-dev` (the newest 100 of its ~2,000 entries among 50 organizations'):
//   the operation every door calls (auditOperations.list, the query and its paging), 30 times,
//   median and p95 — target ≤ 200 ms — and the real CLI's wall time beside `marquee --version`'s
//   (Node's start-up, the floor of any command).
// verify: the whole chain walked and every hash recomputed, in-process and through the real CLI.
// admin API: one admin app per setting in this process over the same PostgreSQL, the same operations
//   and the same key: PATCH /admin/v1/keys/{id} (a label change) with the trail's append on, and with
//   it replaced by one that appends nothing, 400 requests each, interleaved one by one so both see
//   the same machine; p50/p95 of each and the p95 added — target ≤ 10 ms.
import { answerAsOf } from '../gateway/as-of.ts';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Registry } from 'prom-client';
import { createAdminApp } from '../admin/app.ts';
import { auditOperations } from '../admin/trail/audit-admin.ts';
import { type AuditEntry, chainedEntry } from '../records/trail/audit-entry.ts';
import { type AuditTrail, databaseAuditTrail } from '../records/trail/audit-trail.ts';
import { auditRecorder } from '../admin/trail/recorded-operations.ts';
import { PostgresKeyStore } from '../records/keys/postgres-key-store.ts';
import { organizationDirectory } from '../admin/organization-admin.ts';
import { createAdminServices } from '../admin/services.ts';
import { openPostgres } from '../records/database/postgres.ts';
import { migrateMarquee } from '../records/schema/migrate.ts';
import { migrate } from '../builder/platform/migrations.ts';
import { SAMPLE, seedSample } from '../builder/platform/sample.ts';
import { BuildRuns } from '../builder/runs/build-runs.ts';
import { DEFAULT_DISABLE_AFTER_MS, DEFAULT_RETRY_DELAYS_MS } from '../builder/webhooks/webhook-policy.ts';
import { WebhookStore } from '../builder/webhooks/webhook-store.ts';
import { MemoryStore } from '../snapshot/stores/memory.ts';
import { RecordingLog } from '../test/support/recording-log.ts';
import { startPostgres } from '../test/support/postgres.ts';
import { reportChecks } from './checks.ts';
import { machine } from './machine.ts';

const ENTRIES = Number(process.env.BENCH_AUDIT_ENTRIES ?? 100_000);
const ORGANIZATIONS = 50;
const FILTER_RUNS = 30;
const API_REQUESTS = 400;
const TOKEN = 'bench-audit-token-0123456789abcdef';
const MARQUEE = new URL('../bin/marquee', import.meta.url).pathname;

const run = promisify(execFile);
const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;
async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

console.log(`bench:audit — ${machine()}`);
const postgres = await startPostgres();
const home = await mkdtemp(join(tmpdir(), 'marquee-bench-audit-'));
const db = await openPostgres(postgres.url);
try {
  await migrate(db);
  await migrateMarquee(db);
  await seedSample(db, { now: new Date() });
  const nordic = SAMPLE.organizations.nordic.id;
  const organizationIds = [nordic, ...Array.from({ length: ORGANIZATIONS - 1 }, (_, index) => `00000000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`)];

  // The trail filled as appends would fill it, in batches: each entry chained to the one before.
  const filling = performance.now();
  let previous: AuditEntry | undefined;
  const BATCH = 2000;
  const start = Date.now() - ENTRIES * 1000;
  for (let first = 0; first < ENTRIES; first += BATCH) {
    const batch: AuditEntry[] = [];
    for (let index = first; index < Math.min(ENTRIES, first + BATCH); index++) {
      previous = chainedEntry(
        {
          actor: index % 3 === 0 ? 'root' : `cli:ops${index % 7}@host`,
          actorRole: 'owner',
          door: (['api', 'console', 'cli'] as const)[index % 3]!,
          action: (['key.created', 'key.updated', 'key.revoked', 'webhook.created', 'build.requested'] as const)[index % 5]!,
          organizationId: organizationIds[index % ORGANIZATIONS]!,
          targetId: `key_${index}`,
          outcome: index % 50 === 0 ? 'refused' : 'ok',
          reason: null,
          requestId: `req-${index}`,
          clientAddress: '127.0.0.1',
          changes: { label: `label ${index}`, origins: ['https://www.example.org'] },
        },
        previous,
        new Date(start + index * 1000),
      );
      batch.push(previous);
    }
    await db.query(
      `INSERT INTO marquee.marquee_audit_trail (seq, at, actor, actor_role, door, action, organization_id, target_id, outcome, reason, request_id, client_address, changes, previous_hash, hash)
       SELECT seq, at, actor, "actorRole", door, action, "organizationId", "targetId", outcome, reason, "requestId", "clientAddress", changes, "previousHash", hash
       FROM jsonb_to_recordset($1::jsonb) AS x(seq bigint, at timestamptz, actor text, "actorRole" text, door text, action text, "organizationId" text, "targetId" text,
         outcome text, reason text, "requestId" text, "clientAddress" text, changes jsonb, "previousHash" text, hash text)`,
      [JSON.stringify(batch)],
    );
  }
  await db.query('ANALYZE marquee.marquee_audit_trail');
  console.log(`trail filled: ${ENTRIES.toLocaleString('en')} entries, ${ORGANIZATIONS} organizations, in ${ms(performance.now() - filling)}`);

  const trail = databaseAuditTrail(db);
  const organizations = organizationDirectory(async () => db);
  const store = new MemoryStore();
  const audit = auditOperations({ trail, store, organizations, recorder: auditRecorder(async () => trail, organizations) });

  // filter
  const filterTimes: number[] = [];
  for (let index = 0; index < FILTER_RUNS; index++) filterTimes.push(await timed(() => audit.list({ organization: 'nordic-dev' })));
  const env = { ...process.env, MARQUEE_HOME: home, DATABASE_URL: postgres.url, LOG_FORMAT: 'json' };
  const cliFilter = await timed(() => run(MARQUEE, ['audit-log', '--org', 'nordic-dev'], { env, maxBuffer: 16 << 20 }));
  const cliFloor = await timed(() => run(MARQUEE, ['--version'], { env }));
  console.log(
    `audit-log --org nordic-dev (${(await audit.list({ organization: 'nordic-dev' })).entries.length} entries shown): operation median ${ms(percentile(filterTimes, 50))}, p95 ${ms(percentile(filterTimes, 95))}; real CLI ${ms(cliFilter)} (marquee --version: ${ms(cliFloor)})`,
  );

  // verify
  const verifyTime = await timed(async () => {
    const verdict = await audit.verify();
    if (!verdict.ok) throw new Error(`the filled trail does not verify: ${JSON.stringify(verdict.broken)}`);
  });
  const cliVerify = await timed(() => run(MARQUEE, ['audit-log', 'verify'], { env }));
  console.log(`audit-log verify over ${ENTRIES.toLocaleString('en')} entries: operation ${ms(verifyTime)}; real CLI ${ms(cliVerify)}`);

  // admin API, trail on and off
  const keys = new PostgresKeyStore(db);
  const noTrail: AuditTrail = {
    append: async (record) => ({ ...record, seq: 0, at: '', previousHash: '', hash: '' }),
    head: async () => undefined,
    list: async () => [],
    walk: () => ({ async *[Symbol.asyncIterator]() {} }),
  };
  const servers = await Promise.all(
    [trail, noTrail].map(async (usedTrail) => {
      const services = createAdminServices({
        db,
        store,
        keys,
        webhooks: {
          store: new WebhookStore(db),
          policy: { allowPrivate: false, allowInsecure: false, retryDelaysMs: DEFAULT_RETRY_DELAYS_MS, disableAfterMs: DEFAULT_DISABLE_AFTER_MS },
        },
        runs: new BuildRuns(),
        builds: { queue: () => ({ run: undefined as never, results: Promise.resolve() }) },
        trail: usedTrail,
        onBuildError: () => {},
        answerAsOf,
      });
      const app = createAdminApp({ token: TOKEN, registry: new Registry(), readiness: () => ({ status: 'ready', backends: {} }), log: new RecordingLog(), services });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    }),
  );
  const created = (await (
    await fetch(`${servers[1]!.url}/admin/v1/keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ organization: 'nordic-dev' }),
    })
  ).json()) as { id: string };
  const patch = (url: string, index: number) =>
    timed(async () => {
      const response = await fetch(`${url}/admin/v1/keys/${created.id}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ label: `label ${index}` }),
      });
      if (response.status !== 200) throw new Error(`PATCH answered ${response.status}`);
      await response.arrayBuffer();
    });
  for (let index = 0; index < 40; index++) await patch(servers[index % 2]!.url, index); // warm-up
  const on: number[] = [];
  const off: number[] = [];
  for (let index = 0; index < API_REQUESTS; index++) {
    on.push(await patch(servers[0]!.url, index));
    off.push(await patch(servers[1]!.url, index));
  }
  for (const { server } of servers) await new Promise((resolve) => server.close(resolve));
  const added = percentile(on, 95) - percentile(off, 95);
  console.log(
    `PATCH /admin/v1/keys/{id}, ${API_REQUESTS} each: trail on p50 ${ms(percentile(on, 50))}, p95 ${ms(percentile(on, 95))}; append off p50 ${ms(percentile(off, 50))}, p95 ${ms(percentile(off, 95))}; p95 added ${ms(added)}`,
  );

  reportChecks([
    [`audit-log --org at ${ENTRIES.toLocaleString('en')} entries: p95 ${ms(percentile(filterTimes, 95))} ≤ 200 ms`, percentile(filterTimes, 95) <= 200],
    [`admin API p95 added by the trail: ${ms(added)} ≤ 10 ms`, added <= 10],
  ]);
} finally {
  await db.close();
  await postgres.stop();
  await rm(home, { recursive: true, force: true });
}
