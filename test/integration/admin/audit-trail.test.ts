// The audit trail through the real program (docs/operation.md "The audit trail"): `marquee
// builder` on PostgreSQL with ADMIN_TOKEN, the console's forms and the CLI beside it. Each
// state-changing route of the admin API (listed from its declarations, so a new route cannot be
// left out), each console form and each CLI command leaves exactly one entry naming its actor,
// door, action, target and outcome, and so does each refused attempt; no entry holds a secret.
// `audit-log verify` passes, then names the entry an owner's UPDATE or DELETE broke, and catches a
// consistent rewrite of the relation against the head kept in the snapshot store; the newest
// entries deleted are caught against the head, and once something is appended after them, as
// entries missing (their numbers are never handed out again). Two builders and the CLI appending
// at once make one chain without a fork or a gap. `--until` and `?until=` end the window, exclusive.
import { readdir } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../records/trail/audit-entry.ts';
import { entryHash } from '../../../records/trail/audit-entry.ts';
import { ADMIN_API_BASE, ADMIN_ROUTES } from '../../../admin/api-routes.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { adminContractFetch } from '../../support/admin-contract.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';
import { createDatabase, startPostgres, type TestPostgres } from '../../support/postgres.ts';

const TOKEN = 'test-admin-token-audit-0123456789abcdef';
const NORDIC = SAMPLE.organizations.nordic.id;
const SECRETS = /mqk_|mqa_|whsec_/;
const ADMIN_READY = /admin API and console on (http:\/\/[^"\s]+)/;

let postgres: TestPostgres;
let home: string;
let env: Record<string, string>;
let builder: Awaited<ReturnType<typeof marqueeProcess>>;
let admin: string;
let api: ReturnType<typeof adminContractFetch>;
const bearer = { Authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  postgres = await startPostgres();
  home = await mkdtemp(join(tmpdir(), 'marquee-audit-'));
  env = { MARQUEE_HOME: home, DATABASE_URL: postgres.url, LOG_FORMAT: 'json', BUILD_SCHEDULE: '0 0 1 1 *', WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_ALLOW_INSECURE: '1' };
  expect((await marquee(['db', 'migrate'], env)).code).toBe(0);
  expect((await marquee(['db', 'seed', '--sample'], env)).code).toBe(0);
  builder = await marqueeProcess(['builder'], { ...env, ADMIN_TOKEN: TOKEN, ADMIN_PORT: '0', BUILDER_NAME: 'first' }, ADMIN_READY);
  admin = builder.match[1]!;
  // Every answer of the admin API, the audit log's included, is checked against its OpenAPI document.
  api = adminContractFetch(() => admin);
}, 120_000);

afterAll(async () => {
  await builder?.stop();
  await postgres?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

async function newestSeq(): Promise<number> {
  return (await auditPage('?limit=1')).entries[0]?.seq ?? 0;
}

async function auditPage(query: string): Promise<{ entries: AuditEntry[]; next: number | null }> {
  const response = await api(`${admin}${ADMIN_API_BASE}/audit-log${query}`, { headers: bearer });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as { entries: AuditEntry[]; next: number | null };
}

/** The entries appended by `act`, oldest first: it must leave exactly one. */
async function onlyEntryOf(act: () => Promise<unknown>): Promise<AuditEntry> {
  const before = await newestSeq();
  await act();
  const entries = (await auditPage('?limit=20')).entries.filter((entry) => entry.seq > before);
  expect(entries, JSON.stringify(entries)).toHaveLength(1);
  expect(JSON.stringify(entries[0])).not.toMatch(SECRETS);
  return entries[0]!;
}

interface ApiCall {
  path: string;
  body?: unknown;
}

interface ApiCase {
  /** The call that does it, given what earlier cases made. */
  call: (made: Made) => ApiCall;
  /** What its entry says beside the route's action: its target, from the answer or what was made. */
  target: (answer: Record<string, unknown>, made: Made) => string;
  /** When the operation records another action than the route's declared one. */
  action?: string;
  /** What later cases need from its answer. */
  keep?: (answer: Record<string, unknown>, made: Made) => void;
  /** A call the operation refuses (an unknown key, endpoint or organization); absent when it refuses none (starting a verification). */
  refused?: ApiCall;
  /** How it is refused, when not as not found. */
  refusedAs?: { status: number; code: string };
  /** The organization its entry names, when not nordic-dev's (admin credentials belong to none). */
  organizationId?: null;
}

type Made = Record<string, string>;

/** One case per state-changing route, in the order they can run; the test checks it names every one the table declares. */
const API_CASES: Record<string, ApiCase> = {
  startBuild: {
    call: () => ({ path: '/builds', body: { organizations: ['nordic-dev'] } }),
    target: (run) => run.id as string,
    refused: { path: '/builds', body: { organizations: ['no-such-organization'] } },
  },
  createKey: {
    call: () => ({ path: '/keys', body: { organization: 'nordic-dev', label: 'audited', origins: ['https://nordic.example'] } }),
    target: (key) => key.id as string,
    keep: (key, made) => {
      made.key = key.id as string;
    },
    refused: { path: '/keys', body: { organization: 'no-such-organization' } },
  },
  updateKey: {
    call: (made) => ({ path: `/keys/${made.key}`, body: { label: 'relabelled' } }),
    target: (_key, made) => made.key!,
    refused: { path: '/keys/key_nosuchkey', body: { label: 'x' } },
  },
  rollKey: {
    call: (made) => ({ path: `/keys/${made.key}/roll`, body: { graceSeconds: 0 } }),
    target: (_replacement, made) => made.key!,
    keep: (replacement, made) => {
      made.replacement = replacement.id as string;
    },
    refused: { path: '/keys/key_nosuchkey/roll', body: {} },
  },
  startVerification: {
    call: () => ({ path: '/verifications' }),
    target: (job) => job.id as string,
    organizationId: null,
  },
  revokeKey: {
    call: (made) => ({ path: `/keys/${made.replacement}/revoke` }),
    target: (_key, made) => made.replacement!,
    refused: { path: '/keys/key_nosuchkey/revoke' },
  },
  addWebhook: {
    call: () => ({ path: '/organizations/nordic-dev/webhooks', body: { url: 'http://127.0.0.1:9/hook', description: 'audited' } }),
    target: (endpoint) => endpoint.id as string,
    keep: (endpoint, made) => {
      made.webhook = endpoint.id as string;
    },
    refused: { path: '/organizations/no-such-organization/webhooks', body: { url: 'http://127.0.0.1:9/hook' } },
  },
  updateWebhook: {
    call: (made) => ({ path: `/webhooks/${made.webhook}`, body: { description: 'changed' } }),
    target: (_endpoint, made) => made.webhook!,
    refused: { path: '/webhooks/no-such-endpoint', body: { description: 'x' } },
  },
  rotateWebhookSecret: {
    call: (made) => ({ path: `/webhooks/${made.webhook}/rotate-secret` }),
    target: (_endpoint, made) => made.webhook!,
    refused: { path: '/webhooks/no-such-endpoint/rotate-secret' },
  },
  testWebhook: {
    call: (made) => ({ path: `/webhooks/${made.webhook}/test` }),
    target: (_queued, made) => made.webhook!,
    keep: (queued, made) => {
      made.message = queued.messageId as string;
    },
    refused: { path: '/webhooks/no-such-endpoint/test' },
  },
  redeliverWebhookMessage: {
    call: (made) => ({ path: `/webhooks/${made.webhook}/messages/${made.message}/redeliver` }),
    target: (_queued, made) => made.webhook!,
    refused: { path: '/webhooks/no-such-endpoint/messages/no-such-message/redeliver' },
  },
  removeWebhook: {
    call: (made) => ({ path: `/webhooks/${made.webhook}` }),
    target: (_none, made) => made.webhook!,
    refused: { path: '/webhooks/no-such-endpoint' },
  },
  createAdmin: {
    call: () => ({ path: '/admins', body: { name: 'audited-auditor', role: 'auditor' } }),
    target: (credential) => credential.name as string,
    refused: { path: '/admins', body: { name: 'audited-auditor', role: 'auditor' } },
    refusedAs: { status: 409, code: 'ADMIN_NAME_TAKEN' },
    organizationId: null,
  },
  revokeAdmin: {
    call: () => ({ path: '/admins/audited-auditor/revoke' }),
    target: () => 'audited-auditor',
    refused: { path: '/admins/no-such-admin/revoke' },
    organizationId: null,
  },
};

const STATE_CHANGING = ADMIN_ROUTES.filter((route) => route.method !== 'get');

async function send(method: string, { path, body }: ApiCall, contentType = 'application/json'): Promise<Response> {
  return api(`${admin}${ADMIN_API_BASE}${path}`, {
    method: method.toUpperCase(),
    headers: { ...bearer, 'Content-Type': contentType },
    body: contentType === 'application/json' ? JSON.stringify(body ?? {}) : 'not json',
  });
}

describe('the admin API', () => {
  it('has a case for every state-changing route it declares', () => {
    expect(Object.keys(API_CASES).sort()).toEqual(STATE_CHANGING.map((route) => route.name).sort());
  });

  it('leaves exactly one entry for each state-changing request, done or refused, with its actor, door, action, target and outcome', async () => {
    const made: Made = {};
    // In the cases' order: a key is created before it is rolled, an endpoint before it is removed.
    for (const [name, audited] of Object.entries(API_CASES)) {
      const route = STATE_CHANGING.find((candidate) => candidate.name === name)!;
      let response: Response | undefined;
      const entry = await onlyEntryOf(async () => {
        response = await send(route.method, audited.call(made));
      });
      expect(response!.status, `${route.name}: ${await response!.clone().text()}`).toBe(route.status);
      const answer = route.status === 204 ? {} : ((await response!.json()) as Record<string, unknown>);
      audited.keep?.(answer, made);
      expect(entry, route.name).toMatchObject({
        actor: 'root',
        actorRole: 'owner',
        door: 'api',
        action: audited.action ?? route.action,
        organizationId: audited.organizationId === undefined ? NORDIC : audited.organizationId,
        targetId: audited.target(answer, made),
        outcome: 'ok',
        reason: null,
        requestId: response!.headers.get('x-request-id'),
        clientAddress: expect.stringMatching(/127\.0\.0\.1|::1/),
      });

      // Refused by the operation: not found.
      if (audited.refused !== undefined) {
        const refused = audited.refused;
        const refusedEntry = await onlyEntryOf(async () => {
          response = await send(route.method, refused);
        });
        expect(response!.status, route.name).toBe(audited.refusedAs?.status ?? 404);
        expect(refusedEntry, route.name).toMatchObject({
          door: 'api',
          action: route.action,
          outcome: 'refused',
          reason: audited.refusedAs ? expect.stringContaining(`${audited.refusedAs.code}: `) : expect.stringMatching(/_NOT_FOUND: /),
        });
      }

      // Refused before the operation runs: the body is not JSON.
      const unreadEntry = await onlyEntryOf(async () => {
        response = await send(route.method, audited.call(made), 'text/plain');
      });
      expect(response!.status, route.name).toBe(415);
      expect(unreadEntry, route.name).toMatchObject({
        actor: 'root',
        door: 'api',
        action: route.action,
        outcome: 'refused',
        reason: expect.stringContaining('UNSUPPORTED_MEDIA_TYPE'),
      });
    }
  });

  it('leaves one refused entry, under the credential, for a change its role may not make', async () => {
    const made = await send('post', { path: '/admins', body: { name: 'audit-reader', role: 'auditor' } });
    expect(made.status).toBe(201);
    const { secret } = (await made.json()) as { secret: string };
    let response: Response | undefined;
    const entry = await onlyEntryOf(async () => {
      response = await api(`${admin}${ADMIN_API_BASE}/keys`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ organization: 'nordic-dev' }),
      });
    });
    expect(response!.status).toBe(403);
    expect(entry).toMatchObject({
      actor: 'audit-reader',
      actorRole: 'auditor',
      door: 'api',
      action: 'key.created',
      outcome: 'refused',
      reason: expect.stringContaining('ADMIN_FORBIDDEN: '),
    });
  });

  it('filters by organization, actor, action and time, and pages newest first', async () => {
    const revoked = await auditPage('?action=key.revoked&organization=nordic-dev&actor=root');
    expect(revoked.entries.length).toBeGreaterThan(0);
    expect(revoked.entries.every((entry) => entry.action === 'key.revoked' && entry.actor === 'root' && entry.organizationId === NORDIC)).toBe(true);
    expect((await auditPage('?since=2999-01-01T00:00:00Z')).entries).toEqual([]);
    expect((await auditPage('?since=1h')).entries.length).toBeGreaterThan(0);
    const first = await auditPage('?limit=2');
    expect(first.entries.map((entry) => entry.seq)).toEqual([first.entries[0]!.seq, first.entries[0]!.seq - 1]);
    const second = await auditPage(`?limit=2&before=${first.next}`);
    expect(second.entries[0]!.seq).toBe(first.entries[1]!.seq - 1);
    const bad = await api(`${admin}${ADMIN_API_BASE}/audit-log?since=yesterday`, { headers: bearer });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ errorCode: 'BAD_REQUEST', detail: expect.stringContaining('since') });
  });
});

describe('the console', () => {
  const basic = `Basic ${Buffer.from(`auditor-test:${TOKEN}`).toString('base64')}`;
  let csrf: string;

  async function post(path: string, fields: Record<string, string>): Promise<Response> {
    return fetch(`${admin}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Authorization: basic, Origin: new URL(admin).origin, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    });
  }

  it('leaves exactly one entry for each form that changes something, done or refused', async () => {
    const page = await (await fetch(`${admin}/builds`, { headers: { Authorization: basic } })).text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
    const form = async (path: string, fields: Record<string, string> = {}) => onlyEntryOf(async () => expect((await post(path, fields)).status).toBeLessThan(400));
    const console = { actor: 'root', door: 'console', outcome: 'ok', organizationId: NORDIC };

    expect(await form('/builds', { organization: NORDIC })).toMatchObject({ ...console, action: 'build.requested' });
    const created = await form('/keys', { organization: NORDIC, label: 'from the console', origins: '' });
    expect(created).toMatchObject({ ...console, action: 'key.created', targetId: expect.stringMatching(/^key_/) });
    const key = created.targetId!;
    expect(await form(`/keys/${key}`, { label: 'renamed', origins: 'https://a.example' })).toMatchObject({
      ...console,
      action: 'key.updated',
      targetId: key,
      changes: { label: 'renamed' },
    });
    expect(await form(`/keys/${key}/roll`, { graceMinutes: '0' })).toMatchObject({ ...console, action: 'key.rolled', targetId: key });
    expect(await form(`/keys/${key}/revoke`)).toMatchObject({ ...console, action: 'key.revoked', targetId: key });
    const added = await form('/webhooks', { organization: NORDIC, url: 'http://127.0.0.1:9/console-hook', description: '' });
    expect(added).toMatchObject({ ...console, action: 'webhook.created' });
    const webhook = added.targetId!;
    expect(await form(`/webhooks/${webhook}/enabled`, { enabled: 'false' })).toMatchObject({ ...console, action: 'webhook.disabled', targetId: webhook });
    expect(await form(`/webhooks/${webhook}/enabled`, { enabled: 'true' })).toMatchObject({ ...console, action: 'webhook.enabled', targetId: webhook });
    expect(await form(`/webhooks/${webhook}/rotate`)).toMatchObject({ ...console, action: 'webhook.rotated', targetId: webhook });
    expect(await form(`/webhooks/${webhook}/test`)).toMatchObject({ ...console, action: 'webhook.tested', targetId: webhook });
    expect(await form(`/webhooks/${webhook}/remove`)).toMatchObject({ ...console, action: 'webhook.deleted', targetId: webhook });
    const credential = { ...console, organizationId: null, targetId: 'console-auditor' };
    expect(await form('/admins', { name: 'console-auditor', role: 'auditor', expires: '' })).toMatchObject({
      ...credential,
      action: 'admin.created',
      changes: { role: 'auditor' },
    });
    expect(await form('/admins/console-auditor/revoke')).toMatchObject({ ...credential, action: 'admin.revoked' });

    const refused = await onlyEntryOf(async () => expect((await post('/keys/key_nosuchkey/revoke', {})).status).toBe(404));
    expect(refused).toMatchObject({ actor: 'root', door: 'console', action: 'key.revoked', targetId: 'key_nosuchkey', outcome: 'refused' });

    // Refused before any operation ran (a form without its token, one without its organization):
    // recorded once the page is answered.
    const refusedForm = async (path: string, fields: Record<string, string>, status: number) => {
      const before = await newestSeq();
      expect((await post(path, fields)).status).toBe(status);
      await expect.poll(async () => (await auditPage('?limit=5')).entries.filter((entry) => entry.seq > before).length).toBe(1);
      const [entry] = (await auditPage('?limit=1')).entries;
      expect(JSON.stringify(entry)).not.toMatch(SECRETS);
      return entry!;
    };
    expect(await refusedForm(`/keys/${key}/revoke`, { _csrf: 'forged' }, 403)).toMatchObject({
      door: 'console',
      action: 'key.revoked',
      targetId: key,
      outcome: 'refused',
      reason: 'FORM_REFUSED: Nothing was changed: the form has no valid CSRF token (open the page again and resubmit).',
    });
    expect(await refusedForm('/keys', { organization: '', label: 'no organization' }, 400)).toMatchObject({
      door: 'console',
      action: 'key.created',
      outcome: 'refused',
      changes: { label: 'no organization' },
    });
    // A refused form's token is never recorded.
    expect(JSON.stringify((await auditPage('?limit=5')).entries)).not.toContain(csrf);
  });

  it('shows the trail filtered, each entry linked to what it acted on', async () => {
    const html = await (await fetch(`${admin}/audit-log?organization=${NORDIC}&action=key.revoked&actor=root&since=1h`, { headers: { Authorization: basic } })).text();
    expect(html).toMatch(/<a href="\/keys#key_[^"]+">key_/);
    expect(html).toContain('href="/organizations/nordic-dev/history"');
    expect(html).toContain('<td>key.revoked</td>');
    expect(html).not.toContain('<td>webhook.created</td>');
    const builds = await (await fetch(`${admin}/audit-log?action=build.requested`, { headers: { Authorization: basic } })).text();
    expect(builds).toMatch(/<a href="\/builds\/[^"]+">/);
  });
});

describe('the CLI', () => {
  const cli = async (...args: string[]) => {
    const run = await marquee(args, env);
    return run;
  };
  const cliEntry = async (args: string[], code = 0) =>
    onlyEntryOf(async () => {
      const run = await cli(...args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(code);
    });
  const byCli = { actor: expect.stringMatching(/^cli:.+@.+/), actorRole: 'owner', door: 'cli', requestId: null, clientAddress: null };

  it('leaves exactly one entry for each command that changes something, done or refused, with `db sql` its statement and never a secret', async () => {
    const created = await cliEntry(['keys', 'create', '--org', 'nordic-dev', '--label', 'cli', '--expires', '90d']);
    expect(created).toMatchObject({ ...byCli, action: 'key.created', organizationId: NORDIC, outcome: 'ok', changes: { label: 'cli', expiresAt: expect.any(String) } });
    const key = created.targetId!;
    expect(await cliEntry(['keys', 'update', key, '--label', 'cli-renamed'])).toMatchObject({ ...byCli, action: 'key.updated', targetId: key });
    expect(await cliEntry(['keys', 'roll', key, '--grace', '0'])).toMatchObject({ ...byCli, action: 'key.rolled', targetId: key });
    expect(await cliEntry(['keys', 'revoke', key])).toMatchObject({ ...byCli, action: 'key.revoked', targetId: key, organizationId: NORDIC });
    expect(await cliEntry(['keys', 'revoke', 'key_nosuchkey'], 1)).toMatchObject({ ...byCli, action: 'key.revoked', targetId: 'key_nosuchkey', outcome: 'refused' });
    const added = await cliEntry(['webhooks', 'add', '--org', 'nordic-dev', '--url', 'http://127.0.0.1:9/cli-hook']);
    expect(added).toMatchObject({ ...byCli, action: 'webhook.created', organizationId: NORDIC });
    const webhook = added.targetId!;
    expect(await cliEntry(['webhooks', 'update', webhook, '--disable'])).toMatchObject({ ...byCli, action: 'webhook.disabled', targetId: webhook });
    expect(await cliEntry(['webhooks', 'rotate', webhook])).toMatchObject({ ...byCli, action: 'webhook.rotated', targetId: webhook });
    expect(await cliEntry(['webhooks', 'test', webhook])).toMatchObject({ ...byCli, action: 'webhook.tested', targetId: webhook });
    expect(await cliEntry(['webhooks', 'remove', webhook])).toMatchObject({ ...byCli, action: 'webhook.deleted', targetId: webhook, organizationId: NORDIC });
    const credential = { ...byCli, organizationId: null, targetId: 'cli-operator' };
    expect(await cliEntry(['admins', 'create', '--name', 'cli-operator', '--role', 'operator'])).toMatchObject({ ...credential, action: 'admin.created', outcome: 'ok' });
    expect(await cliEntry(['admins', 'revoke', 'cli-operator'])).toMatchObject({ ...credential, action: 'admin.revoked', outcome: 'ok' });
    expect(await cliEntry(['admins', 'create', '--name', 'cli-operator', '--role', 'operator'], 1)).toMatchObject({ ...credential, action: 'admin.created', outcome: 'refused' });
    expect(await cliEntry(['build', '--org', 'nordic-dev'])).toMatchObject({ ...byCli, action: 'build.requested', organizationId: NORDIC, outcome: 'ok' });
    expect(await cliEntry(['db', 'migrate'])).toMatchObject({ ...byCli, action: 'db.migrated', outcome: 'ok' });
    const statement = `UPDATE organizations SET name = name WHERE slug = 'mqk_notakey'`;
    expect(await cliEntry(['db', 'sql', statement])).toMatchObject({
      ...byCli,
      action: 'db.sql',
      outcome: 'ok',
      changes: { statement: "UPDATE organizations SET name = name WHERE slug = '[redacted secret]'" },
    });
    expect(await cliEntry(['db', 'sql', 'SELECT * FROM no_such_relation'], 1)).toMatchObject({
      ...byCli,
      action: 'db.sql',
      outcome: 'failed',
      reason: expect.stringContaining('no_such_relation'),
    });

    // Reading changes nothing and records nothing.
    const before = await newestSeq();
    expect((await cli('keys', 'list')).code).toBe(0);
    expect((await cli('audit-log', '--org', 'nordic-dev')).code).toBe(0);
    expect(await newestSeq()).toBe(before);
  });

  it('reads the trail with filters, as JSON and as JSON lines, never with a secret', async () => {
    const text = await cli('audit-log', '--org', 'nordic-dev', '--action', 'key.revoked');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^#\d+ {2}\S+Z {2}root \(owner\) {2}api {2}key\.revoked {2}nordic-dev {2}key_/m);
    const json = JSON.parse((await cli('audit-log', '--actor', 'root', '--since', '1h', '--json')).stdout) as AuditEntry[];
    expect(json.length).toBeGreaterThan(0);
    expect(json.every((entry) => entry.actor === 'root')).toBe(true);
    const exported = await cli('audit-log', '--jsonl');
    const lines = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditEntry);
    expect(lines.map((entry) => entry.seq)).toEqual(lines.map((_entry, index) => index + 1));
    expect(exported.stdout).not.toMatch(SECRETS);
    const bad = await cli('audit-log', '--since', 'yesterday');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Usage: marquee audit-log/);
    expect(bad.stderr).toMatch(/^marquee: --since "yesterday" is neither/);
    const swapped = await cli('audit-log', '--since', '1h', '--until', '2h');
    expect(swapped.code).toBe(2);
    expect(swapped.stderr).toMatch(/^marquee: --until "2h" \(\S+\) is not after --since "1h"/);
  });

  it('ends the window with --until and ?until=, exclusive: windows end to end hold each entry once', async () => {
    const all = (await auditPage('?limit=1000')).entries;
    // An instant an entry was appended at: the entries before it, then those from it on.
    const middle = all[Math.floor(all.length / 2)]!.at;
    const before = JSON.parse((await cli('audit-log', '--until', middle, '--limit', '1000', '--json')).stdout) as AuditEntry[];
    const after = JSON.parse((await cli('audit-log', '--since', middle, '--limit', '1000', '--json')).stdout) as AuditEntry[];
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((entry) => entry.at < middle)).toBe(true);
    expect([...after, ...before].map((entry) => entry.seq)).toEqual(all.map((entry) => entry.seq));
    expect((await auditPage(`?until=${encodeURIComponent(middle)}&limit=1000`)).entries.map((entry) => entry.seq)).toEqual(before.map((entry) => entry.seq));
    expect((await auditPage('?until=1h')).entries).toEqual([]);
    const swapped = await api(`${admin}${ADMIN_API_BASE}/audit-log?since=1h&until=2h`, { headers: bearer });
    expect(swapped.status).toBe(400);
  });
});

describe('tampering', () => {
  const owner = () => new pg.Client({ connectionString: postgres.url });
  async function asOwner<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = owner();
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }
  const verify = () => marquee(['audit-log', 'verify'], env);
  const headsKept = async () => (await readdir(join(home, 'snapshots', 'audit', 'heads')).catch(() => [])).map((name) => Number(name.slice(0, 12)));

  it('verify passes, then names the entry an UPDATE or a DELETE broke; the relation refuses both but to an owner who drops its triggers', async () => {
    const passed = await verify();
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stdout).toMatch(/^the audit trail holds together: \d+ entries up to #\d+/);

    const refused = await marquee(['db', 'sql', 'UPDATE marquee_audit_trail SET actor = $$someone$$ WHERE seq = 3'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the audit trail is append-only: UPDATE refused');
    expect((await marquee(['db', 'sql', 'DELETE FROM marquee_audit_trail WHERE seq = 3'], env)).stderr).toContain('DELETE refused');
    expect((await verify()).code).toBe(0);

    await asOwner(async (client) => {
      const [row] = (await client.query('SELECT actor FROM marquee.marquee_audit_trail WHERE seq = 3')).rows as Array<{ actor: string }>;
      await client.query('ALTER TABLE marquee.marquee_audit_trail DISABLE TRIGGER USER');
      try {
        await client.query(`UPDATE marquee.marquee_audit_trail SET actor = 'someone-else' WHERE seq = 3`);
        const edited = await verify();
        expect(edited.code).toBe(1);
        expect(edited.stderr).toMatch(/^marquee: the audit trail is broken at entry 3: entry 3 was changed/);
        await client.query('UPDATE marquee.marquee_audit_trail SET actor = $1 WHERE seq = 3', [row!.actor]);
        expect((await verify()).code).toBe(0);

        const [saved] = (await client.query('SELECT * FROM marquee.marquee_audit_trail WHERE seq = 5')).rows as Array<Record<string, unknown>>;
        await client.query('DELETE FROM marquee.marquee_audit_trail WHERE seq = 5');
        const removed = await verify();
        expect(removed.code).toBe(1);
        expect(removed.stderr).toMatch(/^marquee: the audit trail is broken at entry 5: entry 5 missing: entry 6 follows entry 4/);
        const columns = Object.keys(saved!);
        await client.query(
          `INSERT INTO marquee.marquee_audit_trail (${columns.join(', ')}) VALUES (${columns.map((_c, index) => `$${index + 1}`).join(', ')})`,
          columns.map((column) => (column === 'changes' ? JSON.stringify(saved![column]) : saved![column])),
        );
        expect((await verify()).code).toBe(0);
      } finally {
        await client.query('ALTER TABLE marquee.marquee_audit_trail ENABLE TRIGGER USER');
      }
    });
  });

  it('catches a trail rewritten consistently in the database alone, against the head kept in the snapshot store', async () => {
    const latest = await newestSeq();
    // The builder keeps the head at least once a minute (every 10 s).
    await expect.poll(async () => Math.max(0, ...(await headsKept())), { timeout: 30_000, interval: 500 }).toBeGreaterThanOrEqual(latest);

    await asOwner(async (client) => {
      await client.query('ALTER TABLE marquee.marquee_audit_trail DISABLE TRIGGER USER');
      try {
        // Entry 4 given to someone else, and every hash after it recomputed: the chain holds together again.
        const page = await auditPage('?limit=1000');
        const entries = page.entries.reverse().filter((entry) => entry.seq >= 4);
        let previous = (await auditPage('?limit=1&before=4')).entries[0]!.hash;
        await client.query('BEGIN');
        // Unique hashes: move them all aside first.
        await client.query(`UPDATE marquee.marquee_audit_trail SET previous_hash = 'x' || seq, hash = 'y' || seq WHERE seq >= 4`);
        for (const entry of entries) {
          const { hash: _old, ...rest } = { ...entry, ...(entry.seq === 4 ? { actor: 'someone-else' } : {}), previousHash: previous };
          const hash = entryHash(rest);
          await client.query('UPDATE marquee.marquee_audit_trail SET actor = $1, previous_hash = $2, hash = $3 WHERE seq = $4', [rest.actor, rest.previousHash, hash, entry.seq]);
          previous = hash;
        }
        await client.query('COMMIT');
      } finally {
        await client.query('ALTER TABLE marquee.marquee_audit_trail ENABLE TRIGGER USER');
      }
    });
    const rewritten = await verify();
    expect(rewritten.code).toBe(1);
    expect(rewritten.stderr).toMatch(
      /^marquee: the audit trail is broken at entry \d+: entry \d+ is not the one the snapshot store kept \(audit\/heads\/\d{12}-[0-9a-f]{64}\.json\): the trail was rewritten after entry \d+ and at or before entry \d+/,
    );
  });
});

describe('the newest entries deleted', () => {
  it('are caught against the head kept in the store, and once more is appended, as entries missing: their numbers are not handed out again', async () => {
    // A trail of its own, on another database and store: the shared one was rewritten above.
    const own = await createDatabase(postgres.url, 'newest_deleted');
    const ownHome = await mkdtemp(join(tmpdir(), 'marquee-audit-newest-'));
    const ownEnv = { ...env, MARQUEE_HOME: ownHome, DATABASE_URL: own };
    const ownVerify = () => marquee(['audit-log', 'verify'], ownEnv);
    const ownHeads = async () => (await readdir(join(ownHome, 'snapshots', 'audit', 'heads')).catch(() => [])).map((name) => Number(name.slice(0, 12)));
    expect((await marquee(['db', 'migrate'], ownEnv)).code).toBe(0);
    expect((await marquee(['db', 'seed', '--sample'], ownEnv)).code).toBe(0);
    const other = await marqueeProcess(['builder'], { ...ownEnv, ADMIN_TOKEN: TOKEN, ADMIN_PORT: '0', BUILDER_NAME: 'newest' }, ADMIN_READY);
    try {
      for (const label of ['one', 'two', 'three']) expect((await marquee(['keys', 'create', '--org', 'nordic-dev', '--label', label], ownEnv)).code).toBe(0);
      const newest = Number(/up to #(\d+)/.exec((await ownVerify()).stdout)?.[1]);
      await expect.poll(async () => Math.max(0, ...(await ownHeads())), { timeout: 30_000, interval: 500 }).toBe(newest);
      // Stopped: it keeps no head of what follows.
      await other.stop();

      const client = new pg.Client({ connectionString: own });
      await client.connect();
      try {
        await client.query('ALTER TABLE marquee.marquee_audit_trail DISABLE TRIGGER USER');
        await client.query('DELETE FROM marquee.marquee_audit_trail WHERE seq >= $1', [newest - 1]);
        await client.query('ALTER TABLE marquee.marquee_audit_trail ENABLE TRIGGER USER');
      } finally {
        await client.end();
      }
      const truncated = await ownVerify();
      expect(truncated.code).toBe(1);
      expect(truncated.stderr).toMatch(
        new RegExp(
          `^marquee: the audit trail is broken at entry ${newest - 1}: entries ${newest - 1}\\.\\.${newest} missing: the trail ends at entry ${newest - 2}, but the snapshot store kept a head at entry ${newest}`,
        ),
      );

      // The next entry takes the number after the deleted ones, not theirs: the gap stays, whatever the store kept.
      expect((await marquee(['keys', 'create', '--org', 'nordic-dev', '--label', 'after'], ownEnv)).code).toBe(0);
      const listed = JSON.parse((await marquee(['audit-log', '--limit', '1', '--json'], ownEnv)).stdout) as AuditEntry[];
      expect(listed[0]!.seq).toBe(newest + 1);
      const gap = new RegExp(
        `^marquee: the audit trail is broken at entry ${newest - 1}: entries ${newest - 1}\\.\\.${newest} missing: entry ${newest + 1} follows entry ${newest - 2}`,
      );
      expect((await ownVerify()).stderr).toMatch(gap);
      await rm(join(ownHome, 'snapshots', 'audit'), { recursive: true, force: true });
      const withoutHeads = await ownVerify();
      expect(withoutHeads.code).toBe(1);
      expect(withoutHeads.stderr).toMatch(gap);
    } finally {
      await other.stop();
      await rm(ownHome, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('appending at once', () => {
  it('two builders and the CLI make one chain: no fork, no gap', async () => {
    const second = await marqueeProcess(['builder'], { ...env, ADMIN_TOKEN: TOKEN, ADMIN_PORT: '0', BUILDER_NAME: 'second' }, ADMIN_READY);
    try {
      const admins = [admin, second.match[1]!];
      const before = await asSeqs();
      const PER_BUILDER = 15;
      const CLI = 4;
      const calls = admins.flatMap((url) =>
        Array.from({ length: PER_BUILDER }, (_, index) =>
          fetch(`${url}${ADMIN_API_BASE}/keys`, {
            method: 'POST',
            headers: { ...bearer, 'Content-Type': 'application/json' },
            body: JSON.stringify({ organization: 'pacific-oss', label: `concurrent ${index}` }),
          }).then((response) => expect(response.status).toBe(201)),
        ),
      );
      const commands = Array.from({ length: CLI }, (_, index) =>
        marquee(['keys', 'create', '--org', 'pacific-oss', '--label', `cli ${index}`], env).then((run) => expect(run.code, run.stderr).toBe(0)),
      );
      await Promise.all([...calls, ...commands]);
      const after = await asSeqs();
      expect(after.length - before.length).toBe(2 * PER_BUILDER + CLI);
      // Numbered 1..n without a gap, each naming the one before: one chain.
      expect(after.map((row) => row.seq)).toEqual(after.map((_row, index) => index + 1));
      for (let index = 1; index < after.length; index++) expect(after[index]!.previous_hash).toBe(after[index - 1]!.hash);
    } finally {
      await second.stop();
    }
  }, 120_000);

  async function asSeqs(): Promise<Array<{ seq: number; previous_hash: string; hash: string }>> {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      return (await client.query('SELECT seq::int4 AS seq, previous_hash, hash FROM marquee.marquee_audit_trail ORDER BY seq')).rows as Array<{
        seq: number;
        previous_hash: string;
        hash: string;
      }>;
    } finally {
      await client.end();
    }
  }
});
