// Two `marquee builder` processes on one PostgreSQL and one Redis, as production runs them, and one
// receiver: 40 messages queued at once (the builders race for them), a change made with SQL and a
// last message queued after all of them are each delivered once — one attempt per message,
// whichever builder took it.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateSyntheticPlatform } from '../../../bench/synthetic-platform.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import { migrate } from '../../../builder/platform/migrations.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { testMessage } from '../../../builder/webhooks/messages.ts';
import { WebhookStore } from '../../../builder/webhooks/webhook-store.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { until } from '../../support/until.ts';

let postgres: TestPostgres;
let redis: TestRedis;
let db: SqlClient;
let home: string;
const builders: Array<Awaited<ReturnType<typeof marqueeProcess>>> = [];

beforeAll(async () => {
  [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  home = await mkdtemp(join(tmpdir(), 'marquee-webhooks-two-'));
  db = await openPostgres(postgres.url);
  await migrate(db);
  await generateSyntheticPlatform(db, { organizations: 2, eventsPerOrganization: 1, sessionsPerEvent: 1 });
}, 120_000);

afterAll(async () => {
  await Promise.all(builders.map((builder) => builder.stop()));
  await db?.close();
  await Promise.all([postgres?.stop(), redis?.stop()]);
  await rm(home, { recursive: true, force: true });
});

it('delivers each message once, whichever of two builders takes it', async () => {
  const received = new Map<string, number>();
  const server = createServer((req, res) => {
    const id = String(req.headers['webhook-id']);
    received.set(id, (received.get(id) ?? 0) + 1);
    req.resume();
    // A little slow, as real receivers are: deliveries overlap.
    setTimeout(() => res.writeHead(200).end(), 20);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const env = {
      MARQUEE_HOME: home,
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      LOG_FORMAT: 'json',
      BUILD_SCHEDULE: '0 0 1 1 *',
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_ALLOW_INSECURE: '1',
    };
    for (const name of ['builder-a', 'builder-b']) builders.push(await marqueeProcess(['builder'], { ...env, BUILDER_NAME: name }, /builder running/));
    const [org] = await db.query<{ id: string; slug: string }>(`SELECT id, slug FROM organizations WHERE status = 'active' ORDER BY slug LIMIT 1`);
    const added = await marquee(['webhooks', 'add', '--org', org!.slug, '--url', `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    const endpoint = JSON.parse(added.stdout) as { id: string; organizationId: string };

    const store = new WebhookStore(db);
    const stored = (await store.get(endpoint.id))!;
    const queued = await Promise.all(Array.from({ length: 40 }, () => store.queueFor(stored, testMessage(org!.id, org!.slug, endpoint.id, new Date()))));
    await db.query(`UPDATE organizations SET name = name || ' (renamed)' WHERE id = $1`, [org!.id]);

    await until('41 messages', () => received.size >= 41, { timeoutMs: 20_000 });
    // One more, queued after all of them: an endpoint's deliveries go one at a time, in the order
    // they were queued, so this one is taken only once no builder holds any of the others. A
    // message sent twice would have been sent before it.
    const last = await store.queueFor(stored, testMessage(org!.id, org!.slug, endpoint.id, new Date()));
    await until('the last message', () => received.has(last), { timeoutMs: 20_000 });
    expect(received.size).toBe(42);
    for (const id of [...queued, last]) expect(received.get(id), id).toBe(1);
    expect([...received.values()].every((count) => count === 1)).toBe(true);
    const attempts = await until('every attempt recorded', async () => {
      const recorded = await store.attempts(endpoint.id);
      return recorded.length >= 42 && recorded;
    });
    expect(attempts).toHaveLength(42);
    expect(new Set(attempts.map((attempt) => attempt.messageId)).size).toBe(42);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}, 120_000);
