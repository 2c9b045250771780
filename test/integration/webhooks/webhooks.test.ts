// Webhooks through the real program (docs/design.md "Webhooks"): `marquee builder` on PostgreSQL
// beside `marquee serve`, endpoints registered with the CLI and the admin API, receivers that are
// real HTTP servers on loopback (so the tests set WEBHOOK_ALLOW_PRIVATE=1 and
// WEBHOOK_ALLOW_INSECURE=1, and a short WEBHOOK_RETRY_SCHEDULE). Signatures are checked with the
// independent `standardwebhooks` package.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSyntheticPlatform } from '../../../bench/synthetic-platform.ts';
import { openPostgres } from '../../../records/database/postgres.ts';
import { migrate } from '../../../builder/platform/migrations.ts';
import type { SqlClient } from '../../../records/database/sql.ts';
import { launchChromium } from '../../support/chromium.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { adminContractFetch } from '../../support/admin-contract.ts';
import { until } from '../../support/until.ts';

const TOKEN = 'test-admin-token-0123456789abcdef';
/** Parsed JSON, read field by field in assertions. */
// biome-ignore lint/suspicious/noExplicitAny: the assertions themselves check the shapes
type Json = any;
const API = '/api/integration/v1';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

type Behaviour = 'ok' | 'fail' | 'hang' | 'redirect' | 'flood';

/** A receiver on loopback: answers each request as the next behaviour queued says (200 when none is). */
class Receiver {
  readonly received: Received[] = [];
  readonly behaviours: Behaviour[] = [];
  private readonly hanging: ServerResponse[] = [];
  private server!: Server;
  url = '';

  async start(path = '/hooks'): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        const behaviour = this.behaviours.shift() ?? 'ok';
        if (behaviour === 'ok') res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
        else if (behaviour === 'fail') res.writeHead(500).end('receiver broke');
        else if (behaviour === 'redirect') res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' }).end();
        else if (behaviour === 'hang') this.hanging.push(res);
        else flood(res);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
    return this;
  }

  /** The messages received of a type, parsed. */
  messages(type?: string): Array<{ id: string; body: Json; raw: Received }> {
    return this.received
      .map((raw) => ({ id: String(raw.headers['webhook-id']), body: JSON.parse(raw.body) as Json, raw }))
      .filter((message) => type === undefined || message.body.type === type);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** 100 MB of answer, written as fast as the reader takes it. */
function flood(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  const chunk = Buffer.alloc(1 << 20, 120);
  let sent = 0;
  const write = () => {
    while (sent < 100) {
      sent++;
      if (!res.write(chunk)) return void res.once('drain', write);
    }
    res.end();
  };
  res.on('error', () => {});
  write();
}

/** What a delivery, a build or an answer may take here (`until`'s bound unless a test says otherwise). */
const WITHIN = { timeoutMs: 20_000 };

let postgres: TestPostgres;
let db: SqlClient;
let home: string;
let env: Record<string, string>;
let builder: Awaited<ReturnType<typeof marqueeProcess>>;
let admin: string;
let orgs: Array<{ id: string; slug: string }>;
/** The output of builders stopped along the way (the secrets test reads every line written). */
const pastOutput: string[] = [];

/** The CLI with --json; fails the test with its stderr unless it succeeded. */
async function cli<T = Json>(args: string[], extraEnv: Record<string, string> = {}): Promise<T> {
  const run = await marquee([...args, '--json'], { ...env, ...extraEnv });
  if (run.code !== 0) throw new Error(`marquee ${args.join(' ')} failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

async function adminRequest(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  // Every state-changing admin request says it is JSON (the admin port's guard against cross-site forms).
  const sends = method !== 'GET';
  const response = await adminContractFetch(() => admin)(admin + path, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, ...(sends ? { 'Content-Type': 'application/json' } : {}) },
    ...(sends ? { body: JSON.stringify(body ?? {}) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

function startBuilder(name: string): Promise<Awaited<ReturnType<typeof marqueeProcess>>> {
  return marqueeProcess(['builder'], { ...env, ADMIN_TOKEN: TOKEN, ADMIN_PORT: '0', BUILDER_NAME: name }, /builder running/, { readyTimeoutMs: 60_000 });
}

beforeAll(async () => {
  postgres = await startPostgres();
  home = await mkdtemp(join(tmpdir(), 'marquee-webhooks-'));
  db = await openPostgres(postgres.url);
  await migrate(db);
  await generateSyntheticPlatform(db, { organizations: 4, eventsPerOrganization: 2, sessionsPerEvent: 2 });
  orgs = await db.query<{ id: string; slug: string }>(`SELECT id, slug FROM organizations WHERE status = 'active' ORDER BY slug`);
  env = {
    MARQUEE_HOME: home,
    DATABASE_URL: postgres.url,
    LOG_FORMAT: 'json',
    BUILD_SCHEDULE: '0 0 1 1 *',
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_ALLOW_INSECURE: '1',
    WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
  };
  builder = await startBuilder('builder-a');
  admin = /admin API and console on (http:\/\/[^"\s]+)/.exec(builder.output())![1]!;
}, 120_000);

afterAll(async () => {
  await builder?.stop();
  await db?.close();
  await postgres?.stop();
  await rm(home, { recursive: true, force: true });
});

describe('a change made with SQL reaches a receiver, signed', () => {
  it('lists the changed API paths with the ETag the gateway then answers; an unchanged build sends nothing', async () => {
    const org = orgs[0]!;
    const receiver = await new Receiver().start();
    const serve = await marqueeProcess(['serve'], { ...env, PORT: '0', ADMIN_PORT: '0' }, /gateway listening on (http:\/\/\S+),/);
    try {
      const endpoint = await cli(['webhooks', 'add', '--org', org.slug, '--url', receiver.url, '--description', 'site rebuild']);
      expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      const key = (await cli(['keys', 'create', '--org', org.slug])).key as string;

      await db.query(`UPDATE team_members SET title = 'Chief webhook officer' WHERE id = (SELECT id FROM team_members WHERE organization_id = $1 ORDER BY id LIMIT 1)`, [org.id]);
      const [message] = await until(
        'a snapshot.published message',
        () => {
          const found = receiver.messages('snapshot.published');
          return found.length > 0 ? found : undefined;
        },
        WITHIN,
      );
      // Verified by the independent implementation of the specification, with the secret shown once.
      const verified = new Webhook(endpoint.secret).verify(message!.raw.body, message!.raw.headers as Record<string, string>) as Json;
      expect(verified.type).toBe('snapshot.published');
      expect(message!.id).toMatch(/^msg_/);
      expect(message!.raw.headers['content-type']).toBe('application/json');
      const data = message!.body.data;
      expect(data).toMatchObject({ organizationId: org.id, organizationSlug: org.slug, state: 'active', removed: [] });
      const team = (data.changed as Array<{ path: string; etag: string | null }>).find((change) => change.path === `${API}/team`);
      expect(team, JSON.stringify(data.changed)).toBeDefined();
      // Only what changed: the team, not the events.
      expect((data.changed as Array<{ path: string }>).map((change) => change.path)).toEqual([`${API}/team`]);

      const gateway = serve.match[1]!;
      const answer = await until(
        'the gateway to serve the new team',
        async () => {
          const response = await fetch(`${gateway}${API}/team`, { headers: { Authorization: `Bearer ${key}` } });
          const body = await response.text();
          return body.includes('Chief webhook officer') ? response : undefined;
        },
        WITHIN,
      );
      expect(answer.headers.get('etag')).toBe(team!.etag);
      // What a site does next: refetch with the ETag it was told, and get a 304.
      const again = await fetch(`${gateway}${API}/team`, { headers: { Authorization: `Bearer ${key}`, 'If-None-Match': team!.etag! } });
      expect(again.status).toBe(304);
      // Neither the key nor an e-mail address is part of a message.
      expect(message!.raw.body).not.toContain(key);
      expect(message!.raw.body).not.toMatch(/@/);

      // The events list and each event's detail, which the clock changes: a message carries the
      // ETag the gateway answers for them. Their events move a month on, so that no start or end
      // falls between the publish and the requests below.
      await db.query(
        `UPDATE events SET starts_at = starts_at + interval '30 days', ends_at = ends_at + interval '30 days', description = 'Moved a month on' WHERE organization_id = $1`,
        [org.id],
      );
      const moved = await until(
        'a message naming the events list',
        () => receiver.messages('snapshot.published').find((found) => (found.body.data.changed as Array<{ path: string }>).some((change) => change.path === `${API}/events`)),
        WITHIN,
      );
      const clockDependent = (moved.body.data.changed as Array<{ path: string; etag: string }>).filter((change) => /^\/api\/integration\/v1\/events(\/[^/]+)?$/.test(change.path));
      // The list and every event of the organization (two each in the synthetic platform).
      expect(clockDependent.length, JSON.stringify(moved.body.data.changed)).toBe(3);
      for (const { path, etag } of clockDependent) {
        const answer = await until(
          `the gateway to serve the moved ${path}`,
          async () => {
            const response = await fetch(`${gateway}${path}`, { headers: { Authorization: `Bearer ${key}` } });
            return (await response.text()).includes('Moved a month on') ? response : undefined;
          },
          WITHIN,
        );
        expect(etag, path).toMatch(/^"[0-9a-f]{64}"$/);
        expect(answer.headers.get('etag'), path).toBe(etag);
        const revalidated = await fetch(`${gateway}${path}`, { headers: { Authorization: `Bearer ${key}`, 'If-None-Match': etag } });
        expect(revalidated.status, path).toBe(304);
      }

      // A build with nothing changed publishes nothing and sends nothing.
      const before = receiver.received.length;
      const run = await adminRequest('POST', '/admin/v1/builds', { organizations: [org.slug] });
      expect(run.status).toBe(202);
      await until('the build to finish', async () => (await adminRequest('GET', `/admin/v1/builds/${run.body.id}`)).body.state === 'finished', WITHIN);

      // Suspension is a state change: one message saying so.
      await db.query(`UPDATE organizations SET status = 'suspended' WHERE id = $1`, [org.id]);
      const suspended = await until('organization.state_changed', () => receiver.messages('organization.state_changed')[0], WITHIN);
      expect(suspended.body.data).toMatchObject({ organizationId: org.id, state: 'suspended', previousState: 'active' });
      // An endpoint's messages are delivered one at a time, in the order they were queued: had the
      // build with nothing changed queued one, it would have come before this one.
      const sinceTheBuild = receiver.messages().slice(before);
      expect(sinceTheBuild.map((message) => message.id)).toEqual([suspended.id]);
      await db.query(`UPDATE organizations SET status = 'active' WHERE id = $1`, [org.id]);
      await until('reactivation', () => receiver.messages('organization.state_changed').find((m) => m.body.data.state === 'active'), WITHIN);
    } finally {
      await serve.stop();
      await receiver.close();
    }
  }, 90_000);
});

describe('delivery', () => {
  it('retries a receiver that fails, then times out, then answers, with the same webhook-id on the schedule', async () => {
    const org = orgs[1]!;
    const receiver = await new Receiver().start();
    try {
      receiver.behaviours.push('fail', 'hang');
      const endpoint = await cli(['webhooks', 'add', '--org', org.id, '--url', receiver.url]);
      const queued = await cli(['webhooks', 'test', endpoint.id]);
      await until('three attempts', () => (receiver.received.length >= 3 ? true : undefined), { timeoutMs: 40_000 });
      const ids = receiver.received.map((received) => received.headers['webhook-id']);
      expect(new Set(ids)).toEqual(new Set([queued.messageId]));
      // 1 s (± 10 %) after the failure; the hang took the 10 s timeout, then 1 s more.
      const [first, second, third] = receiver.received;
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(850);
      expect(third!.at - second!.at).toBeGreaterThanOrEqual(10_000);
      const attempts = await until(
        'the delivered attempt',
        async () => {
          const found = await cli<Array<Json>>(['webhooks', 'attempts', endpoint.id]);
          return found.length >= 3 ? found : undefined;
        },
        WITHIN,
      );
      expect(attempts.map((attempt) => attempt.status)).toEqual([200, null, 500]);
      expect(attempts[1]!.error).toMatch(/no complete answer within 10 s/);
      expect(attempts[0]).toMatchObject({ messageId: queued.messageId, type: 'webhook.test', response: 'thanks' });
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it('follows no redirect, and cuts a 100 MB answer off', async () => {
    const org = orgs[2]!;
    const receiver = await new Receiver().start();
    try {
      receiver.behaviours.push('redirect', 'flood');
      const endpoint = await cli(['webhooks', 'add', '--org', org.id, '--url', receiver.url]);
      await cli(['webhooks', 'test', endpoint.id]);
      const attempts = await until(
        'two attempts',
        async () => {
          const found = await cli<Array<Json>>(['webhooks', 'attempts', endpoint.id]);
          return found.length >= 2 ? found : undefined;
        },
        WITHIN,
      );
      expect(attempts[1]).toMatchObject({ status: 302, error: 'answered 302 (redirects are not followed)' });
      // The flood answered 200 and was read only to 64 KiB; 1 KiB of it is kept.
      expect(attempts[0]).toMatchObject({ status: 200 });
      expect(attempts[0]!.response.length).toBe(1024);
      expect(attempts[0]!.durationMs).toBeLessThan(5_000);
    } finally {
      await receiver.close();
    }
  }, 40_000);

  it('delivers what a builder killed with SIGKILL left undelivered, after its restart', async () => {
    const org = orgs[3]!;
    const receiver = await new Receiver().start();
    try {
      // The first attempt hangs: the builder is killed holding the delivery.
      receiver.behaviours.push('hang');
      const endpoint = await cli(['webhooks', 'add', '--org', org.id, '--url', receiver.url]);
      await db.query(`UPDATE organizations SET name = name || ' (renamed)' WHERE id = $1`, [org.id]);
      await until('the first attempt', () => (receiver.received.length >= 1 ? true : undefined), WITHIN);
      pastOutput.push(builder.output());
      builder.child.kill('SIGKILL');
      await new Promise((resolve) => builder.child.once('exit', resolve));
      builder = await startBuilder('builder-b');
      admin = /admin API and console on (http:\/\/[^"\s]+)/.exec(builder.output())![1]!;
      // Its claim is taken over once its lease ends (30 s).
      await until('the message again', () => (receiver.received.length >= 2 ? true : undefined), { timeoutMs: 45_000 });
      const ids = new Set(receiver.received.map((received) => received.headers['webhook-id']));
      expect(ids.size).toBe(1);
      expect(JSON.parse(receiver.received[1]!.body).type).toBe('snapshot.published');
      const attempts = await cli<Array<Json>>(['webhooks', 'attempts', endpoint.id]);
      expect(attempts[0]).toMatchObject({ status: 200 });
    } finally {
      await receiver.close();
    }
  }, 90_000);
});

describe('safety', () => {
  it('refuses non-public destinations and plain http unless allowed', async () => {
    const strict = { WEBHOOK_ALLOW_PRIVATE: '0', WEBHOOK_ALLOW_INSECURE: '0' };
    for (const url of ['https://127.0.0.1/hook', 'https://10.0.0.1/hook', 'https://169.254.169.254/latest', 'https://[::1]/hook', 'https://localhost/hook']) {
      const run = await marquee(['webhooks', 'add', '--org', orgs[0]!.slug, '--url', url], { ...env, ...strict });
      expect(run.code, url).not.toBe(0);
      expect(run.stderr, url).toMatch(/is not a public address \((loopback|private|linkLocal)\).*WEBHOOK_ALLOW_PRIVATE=1/);
    }
    const insecure = await marquee(['webhooks', 'add', '--org', orgs[0]!.slug, '--url', 'http://example.com/hook'], { ...env, ...strict });
    expect(insecure.stderr).toMatch(/url must be https \(http only with WEBHOOK_ALLOW_INSECURE=1\)/);
    // The admin API answers the same refusal as a problem.
    const refused = await fetch(`${admin}/admin/v1/organizations/${orgs[0]!.slug}/webhooks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: 'ftp://example.com/' }),
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  it('writes no secret to any log line', async () => {
    const rows = await db.query<{ secret: string; previous_secret: string | null }>(`SELECT secret, previous_secret FROM marquee_webhook_endpoints`);
    const output = [...pastOutput, builder.output()].join('\n');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(output).not.toContain(row.secret);
      expect(output).not.toContain(row.secret.slice('whsec_'.length));
    }
  });
});

describe('admin API and CLI', () => {
  it('does every operation: add, list, update, rotate (both signatures verify in the grace), test, attempts, redeliver, disable, remove', async () => {
    const org = orgs[0]!;
    const receiver = await new Receiver().start();
    try {
      const created = await adminRequest('POST', `/admin/v1/organizations/${org.slug}/webhooks`, { url: receiver.url, description: 'from the API' });
      expect(created.status).toBe(201);
      expect(Object.keys(created.body).sort()).toEqual(['createdAt', 'description', 'disabledReason', 'enabled', 'id', 'organizationId', 'organizationSlug', 'secret', 'url']);
      const id = created.body.id as string;
      const listed = await adminRequest('GET', `/admin/v1/organizations/${org.slug}/webhooks`);
      const shown = listed.body.find((endpoint: { id: string }) => endpoint.id === id);
      expect(shown).toEqual({
        ...created.body,
        secret: undefined,
        description: 'from the API',
        health: { lastAttempt: null, waiting: 0, nextRetryAt: null },
      });
      expect(shown.secret).toBeUndefined();
      // The CLI's --json is the API's shape.
      expect((await cli<Array<Json>>(['webhooks', 'list', '--org', org.id])).find((endpoint) => endpoint.id === id)).toEqual(shown);

      const rotated = await adminRequest('POST', `/admin/v1/webhooks/${id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).not.toBe(created.body.secret);
      const tested = await adminRequest('POST', `/admin/v1/webhooks/${id}/test`);
      expect(tested.status).toBe(202);
      const test = await until('the test message', () => receiver.messages('webhook.test').find((m) => m.id === tested.body.messageId), WITHIN);
      expect(test.raw.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
      const headers = test.raw.headers as Record<string, string>;
      expect(() => new Webhook(rotated.body.secret).verify(test.raw.body, headers)).not.toThrow();
      expect(() => new Webhook(created.body.secret).verify(test.raw.body, headers)).not.toThrow();
      expect(test.body.data).toEqual({ organizationId: org.id, organizationSlug: org.slug, endpointId: id });

      const redelivered = await adminRequest('POST', `/admin/v1/webhooks/${id}/messages/${tested.body.messageId}/redeliver`);
      expect(redelivered.status).toBe(202);
      await until('the redelivery', () => (receiver.messages('webhook.test').filter((m) => m.id === tested.body.messageId).length === 2 ? true : undefined), WITHIN);
      const cliRedelivered = await cli(['webhooks', 'redeliver', id, tested.body.messageId]);
      expect(cliRedelivered).toEqual({ messageId: tested.body.messageId });
      await until('the CLI redelivery', () => (receiver.messages('webhook.test').filter((m) => m.id === tested.body.messageId).length === 3 ? true : undefined), WITHIN);
      // The deliverer records an attempt once the receiver has answered: the third is written just
      // after the receiver saw the message, not before.
      const attempts = await until(
        'the third attempt recorded',
        async () => {
          const listed = await adminRequest('GET', `/admin/v1/webhooks/${id}/attempts`);
          return listed.body.length >= 3 ? listed : undefined;
        },
        WITHIN,
      );
      expect(attempts.body).toHaveLength(3);
      expect(await cli(['webhooks', 'attempts', id])).toEqual(attempts.body);
      expect((await adminRequest('POST', `/admin/v1/webhooks/${id}/messages/msg_unknown/redeliver`)).body.errorCode).toBe('MESSAGE_NOT_FOUND');

      const disabled = await adminRequest('PATCH', `/admin/v1/webhooks/${id}`, { enabled: false, description: 'paused' });
      expect(disabled.body).toMatchObject({ enabled: false, description: 'paused', disabledReason: null });
      const cliEnabled = await cli(['webhooks', 'update', id, '--enable', '--url', `${receiver.url}?v=2`]);
      expect(cliEnabled).toMatchObject({ enabled: true, url: `${receiver.url}?v=2` });
      const cliRotated = await cli(['webhooks', 'rotate', id]);
      expect(cliRotated.secret).toMatch(/^whsec_/);

      // The builder's /metrics counts what its deliverer did.
      const metrics = await (await fetch(`${admin}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
      expect(Number(/marquee_webhook_deliveries_total\{event="delivered"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);
      expect(metrics).toMatch(/marquee_webhook_deliveries_total\{event="retried"\} \d+/);
      expect(Number(/marquee_webhook_delivery_latency_seconds_count (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);

      expect((await adminRequest('DELETE', `/admin/v1/webhooks/${id}`)).status).toBe(204);
      const gone = await adminRequest('GET', `/admin/v1/webhooks/${id}/attempts`);
      expect(gone.status).toBe(404);
      expect(gone.body.errorCode).toBe('WEBHOOK_NOT_FOUND');
      const cliGone = await marquee(['webhooks', 'remove', id], env);
      expect(cliGone.code).toBe(1);
      expect(cliGone.stderr).toContain(`no webhook endpoint has the id "${id}"`);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});

describe('console', () => {
  it('adds an endpoint (its secret shown once), sends a test, redelivers, rotates, disables and removes, in Chromium', async () => {
    const org = orgs[1]!;
    const receiver = await new Receiver().start('/console');
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ httpCredentials: { username: 'operator', password: TOKEN } });
      const page = await context.newPage();
      await page.goto(`${admin}/organizations`);
      await page.getByRole('link', { name: `Webhooks of`, exact: false }).first().click();
      await page.goto(`${admin}/webhooks?organization=${org.slug}`);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toMatch(/^Webhooks of /);
      await page.getByLabel('URL (https, a public address)').fill(receiver.url);
      await page.getByLabel('Description').fill('console endpoint');
      await page.getByRole('button', { name: 'Add the endpoint' }).click();
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Endpoint added');
      const secret = await page.locator('#webhook-secret').innerText();
      expect(secret).toMatch(/^whsec_/);
      await page.reload();
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Secret no longer shown');

      await page.goto(`${admin}/webhooks?organization=${org.slug}`);
      const rowOf = () => page.getByRole('row').filter({ hasText: receiver.url });
      expect(await rowOf().innerText()).toContain('console endpoint');
      await rowOf()
        .getByRole('button', { name: /Send a test/ })
        .click();
      expect(await page.getByRole('status').innerText()).toContain('A test message is queued');
      const test = await until('the test message', () => receiver.messages('webhook.test')[0], WITHIN);
      expect(() => new Webhook(secret).verify(test.raw.body, test.raw.headers as Record<string, string>)).not.toThrow();
      await until(
        'the attempt on the page',
        async () => {
          await page.reload();
          return (await page.getByRole('row').filter({ hasText: test.id }).count()) > 0 ? true : undefined;
        },
        WITHIN,
      );
      await page
        .getByRole('row')
        .filter({ hasText: test.id })
        .first()
        .getByRole('button', { name: /Redeliver/ })
        .click();
      await until('the redelivery', () => (receiver.messages('webhook.test').filter((m) => m.id === test.id).length === 2 ? true : undefined), WITHIN);

      await page.goto(`${admin}/webhooks?organization=${org.slug}`);
      await rowOf()
        .getByRole('button', { name: /Rotate secret/ })
        .click();
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Signing secret rotated');
      expect(await page.locator('#webhook-secret').innerText()).not.toBe(secret);

      await page.goto(`${admin}/webhooks?organization=${org.slug}`);
      await rowOf()
        .getByRole('button', { name: /Disable/ })
        .click();
      expect(await rowOf().innerText()).toContain('disabled');
      await rowOf()
        .getByRole('link', { name: /Remove/ })
        .click();
      await page.getByRole('button', { name: 'Remove the endpoint' }).click();
      expect(await page.getByRole('row').filter({ hasText: receiver.url }).count()).toBe(0);

      // A refused destination is said on the form, nothing added.
      await page.getByLabel('URL (https, a public address)').fill('ftp://example.com/');
      await page.getByRole('button', { name: 'Add the endpoint' }).click();
      expect(await page.getByRole('alert').innerText()).toContain('url must be https');
      await context.close();
    } finally {
      await browser.close();
      await receiver.close();
    }
  }, 90_000);
});
