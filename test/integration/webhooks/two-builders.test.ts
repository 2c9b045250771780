// Two `marquee builder` processes on one PostgreSQL and one Redis, as production runs them, and one
// receiver: 40 messages queued at once (the builders race for them) and a change made with SQL
// are each delivered once — one attempt per message, whichever builder took it.
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

    const deadline = Date.now() + 20_000;
    while (received.size < 41 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    // Anything sent twice would have arrived by now too.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(received.size).toBe(41);
    for (const id of queued) expect(received.get(id), id).toBe(1);
    expect([...received.values()].every((count) => count === 1)).toBe(true);
    const attempts = await store.attempts(endpoint.id);
    expect(attempts).toHaveLength(41);
    expect(new Set(attempts.map((attempt) => attempt.messageId)).size).toBe(41);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}, 120_000);
