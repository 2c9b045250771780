// npm run bench:webhooks — webhooks in the production shape (PostgreSQL, Redis, s3rver behind nginx
// as the CDN, one real `marquee builder`; test/support/production.ts), receivers on loopback.
//
// latency: an endpoint for the sample organization nordic-dev; 50 changes, each one SQL UPDATE of a
//   field its API shows (its name, a team member's title, in turn), spaced so that each is measured
//   alone: from the UPDATE to the receiver's receipt of the snapshot.published message, and from
//   the message's publishedAt to the receipt. Targets: change → received p95 ≤ 1.5 s, publish →
//   received p95 ≤ 1 s.
// fan-out: 1,000 organizations more (BENCH_WEBHOOK_ORGANIZATIONS; 2 events × 5 sessions), one
//   endpoint each; 10 of them answer never (the deliverer's 10 s timeout). One UPDATE renames every
//   one of them, so every one is rebuilt and publishes: every message to the answering endpoints
//   must arrive; reported: from the UPDATE to the last, the delivery rate, the builder's RSS and
//   peak, and when the silent endpoints' first attempts came (they must not hold the others). Then
//   delivery alone: a test message for each endpoint queued at once, the time to the last received.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { openPostgres } from '../records/database/postgres.ts';
import { SAMPLE } from '../builder/platform/sample.ts';
import { WebhookStore } from '../builder/webhooks/webhook-store.ts';
import { startProductionWorld } from '../test/support/production.ts';
import { reportChecks } from './checks.ts';
import { machine } from './machine.ts';
import { memoryOf } from './process-usage.ts';
import { generateSyntheticPlatform } from './synthetic-platform.ts';

const CHANGES = 50;
const FAN_OUT = Number(process.env.BENCH_WEBHOOK_ORGANIZATIONS ?? 1_000);
const SILENT = 10;
const FAN_OUT_TIMEOUT_MS = 10 * 60_000;

interface Receipt {
  path: string;
  at: number;
  body: { type: string; data: Record<string, unknown> };
}

/** One server for every endpoint (each its own path): answers 200 at once, except on /silent/…, where it never answers. */
async function startReceiver(): Promise<{ server: Server; url: string; receipts: Receipt[] }> {
  const receipts: Receipt[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receipts.push({ path: req.url ?? '', at: Date.now(), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Receipt['body'] });
      if (!req.url?.startsWith('/silent/')) res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, receipts };
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const ms = (value: number) => `${Math.round(value)} ms`;

const world = await startProductionWorld();
const receiver = await startReceiver();
try {
  const db = await openPostgres(world.env.DATABASE_URL!);
  await generateSyntheticPlatform(db, { organizations: FAN_OUT, eventsPerOrganization: 2, sessionsPerEvent: 5, namespace: 'fan' });
  const fanOut = await db.query<{ id: string }>(`SELECT id FROM organizations WHERE slug LIKE '%fan%' AND status = 'active' ORDER BY id`);
  console.log(machine());
  // Receivers on loopback over plain http: for the builder and for `webhooks add` alike.
  Object.assign(world.env, { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_ALLOW_INSECURE: '1' });
  const builder = await world.builder({ ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef' }, { readyTimeoutMs: 30 * 60_000 });

  // latency
  const nordic = SAMPLE.organizations.nordic;
  const added = await world.cli(['webhooks', 'add', '--org', nordic.slug, '--url', `${receiver.url}/nordic`, '--json']);
  if (added.code !== 0) throw new Error(`webhooks add failed: ${added.stderr}`);
  const fromChange: number[] = [];
  const fromPublish: number[] = [];
  for (let change = 0; change < CHANGES; change++) {
    const seen = receiver.receipts.length;
    const value = `bench ${change} ${Date.now()}`;
    const started = Date.now();
    if (change % 2 === 0) await db.query(`UPDATE organizations SET name = $1 WHERE id = $2`, [`Nordic Developers (${value})`, nordic.id]);
    else
      await db.query(`UPDATE team_members SET title = $1 WHERE id = (SELECT id FROM team_members WHERE organization_id = $2 AND show_on_website ORDER BY id LIMIT 1)`, [
        value,
        nordic.id,
      ]);
    let receipt: Receipt | undefined;
    while (receipt === undefined) {
      receipt = receiver.receipts.slice(seen).find((candidate) => candidate.path === '/nordic' && candidate.body.type === 'snapshot.published');
      if (Date.now() - started > 10_000) throw new Error(`change ${change}: no message within 10 s`);
      if (receipt === undefined) await sleep(2);
    }
    fromChange.push(receipt.at - started);
    fromPublish.push(receipt.at - Date.parse(String(receipt.body.data.publishedAt)));
    await sleep(300);
  }
  console.log(`\nlatency: ${CHANGES} changes to nordic-dev, one at a time\n`);
  console.log('| from | p50 | p95 | max | target |\n|---|---|---|---|---|');
  console.log(`| SQL UPDATE → received | ${ms(percentile(fromChange, 50))} | ${ms(percentile(fromChange, 95))} | ${ms(Math.max(...fromChange))} | p95 ≤ 1.5 s |`);
  console.log(`| publish → received | ${ms(percentile(fromPublish, 50))} | ${ms(percentile(fromPublish, 95))} | ${ms(Math.max(...fromPublish))} | p95 ≤ 1 s |`);

  // fan-out
  const store = new WebhookStore(db);
  const silent = new Set(fanOut.slice(0, SILENT).map((org) => org.id));
  for (const org of fanOut) {
    const path = silent.has(org.id) ? `/silent/${org.id}` : `/fan/${org.id}`;
    await store.create({ organizationId: org.id, url: `${receiver.url}${path}`, description: 'bench' });
  }
  const seen = receiver.receipts.length;
  const started = Date.now();
  await db.query(`UPDATE organizations SET name = name || ' *' WHERE slug LIKE '%fan%'`);
  const answering = fanOut.length - silent.size;
  const arrived = () => receiver.receipts.slice(seen).filter((receipt) => receipt.path.startsWith('/fan/') && receipt.body.type === 'snapshot.published');
  let peakRss = 0;
  while (new Set(arrived().map((receipt) => receipt.path)).size < answering) {
    if (Date.now() - started > FAN_OUT_TIMEOUT_MS) throw new Error(`fan-out: ${arrived().length} of ${answering} messages within ${FAN_OUT_TIMEOUT_MS / 1000} s`);
    peakRss = Math.max(peakRss, memoryOf(builder.pid).peak);
    await sleep(50);
  }
  const last = Math.max(...arrived().map((receipt) => receipt.at)) - started;
  const silentFirst = receiver.receipts
    .slice(seen)
    .filter((receipt) => receipt.path.startsWith('/silent/'))
    .map((receipt) => receipt.at - started);
  const memory = memoryOf(builder.pid);
  const duplicates = arrived().length - new Set(arrived().map((receipt) => receipt.path)).size;
  console.log(`\nfan-out: one UPDATE renames ${fanOut.length} organizations, each with an endpoint (${silent.size} never answer)\n`);
  console.log('| measure | value |\n|---|---|');
  console.log(`| messages received by the ${answering} answering endpoints | ${arrived().length} (${duplicates} twice) |`);
  console.log(`| UPDATE → the last of them | ${(last / 1000).toFixed(1)} s (${(answering / (last / 1000)).toFixed(1)} messages/s, publish included) |`);
  console.log(`| first attempts at the silent endpoints | ${silentFirst.length}, from ${ms(Math.min(...silentFirst))} to ${ms(Math.max(...silentFirst))} |`);
  console.log(`| builder RSS after, peak | ${memory.rss.toFixed(0)} MB, ${Math.max(peakRss, memory.peak).toFixed(0)} MB |`);

  // Delivery alone: a webhook.test for every endpoint, queued at once; the builder builds nothing meanwhile.
  const endpoints = await store.list();
  const testSeen = receiver.receipts.length;
  const testStarted = Date.now();
  for (const endpoint of endpoints.filter((candidate) => candidate.description === 'bench')) {
    await store.queueFor(endpoint, { type: 'webhook.test', timestamp: new Date().toISOString(), data: { endpointId: endpoint.id } });
  }
  const queuedMs = Date.now() - testStarted;
  const tests = () => receiver.receipts.slice(testSeen).filter((receipt) => receipt.path.startsWith('/fan/') && receipt.body.type === 'webhook.test');
  while (tests().length < answering) {
    if (Date.now() - testStarted > FAN_OUT_TIMEOUT_MS) throw new Error(`delivery alone: ${tests().length} of ${answering} within ${FAN_OUT_TIMEOUT_MS / 1000} s`);
    await sleep(20);
  }
  const testLast = Math.max(...tests().map((receipt) => receipt.at)) - testStarted;
  console.log(
    `| delivery alone: a test message to each endpoint, queued at once (in ${(queuedMs / 1000).toFixed(1)} s) → the last of ${answering} received | ${(testLast / 1000).toFixed(1)} s (${(answering / (testLast / 1000)).toFixed(0)} messages/s) |`,
  );
  console.log('');
  reportChecks([
    ['SQL change → webhook received p95 ≤ 1.5 s', percentile(fromChange, 95) <= 1_500],
    ['publish → webhook received p95 ≤ 1 s', percentile(fromPublish, 95) <= 1_000],
    [`every one of the ${answering} answering endpoints got its message`, new Set(arrived().map((receipt) => receipt.path)).size === answering],
  ]);
  await db.close();
} finally {
  receiver.server.closeAllConnections();
  receiver.server.close();
  await world.stop();
}
