// What a new operator tripped on: an endpoint registered with WEBHOOK_ALLOW_* set only in the CLI's
// environment was listed `enabled` while the running builder refused every delivery, and nothing
// said so. Through the real program (`marquee start`, embedded, with no WEBHOOK_ALLOW_*; the CLI
// beside it allowing http on loopback): the registration warns that the running builder refuses
// the URL, and after a test message `webhooks list` (text and --json), the admin API and the
// console show the endpoint's last attempt, that it failed and why, and when the next retry is due.
import { readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminContractFetch } from '../../support/admin-contract.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';
import { migratedHome } from '../../support/migrated-home.ts';

type Process = Awaited<ReturnType<typeof marqueeProcess>>;

let home: string;
let start: Process;
let admin: string;
let token: string;
let receiver: Server;
let url: string;
let received = 0;
beforeAll(async () => {
  // start finds the embedded database migrated (the run's template: test/support/migrated-home.ts) and seeds it.
  home = await migratedHome({ prefix: 'marquee-endpoint-health-' });
  start = await marqueeProcess(['start'], { MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0', LOG_FORMAT: 'json', BUILDER_NAME: 'strict-builder' }, /console: (http:\/\/\S+)\/ \(/);
  admin = start.match[1]!;
  token = (await readFile(join(home, 'admin-token'), 'utf8')).trim();
  receiver = createServer((_req, res) => {
    received++;
    res.end('thanks');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
}, 120_000);
afterAll(async () => {
  await start?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  await rm(home, { recursive: true, force: true });
});

const fetch = adminContractFetch(() => admin);
/** The CLI beside start, with settings the running builder does not share. */
const lenient = () => ({ MARQUEE_HOME: home, WEBHOOK_ALLOW_INSECURE: '1', WEBHOOK_ALLOW_PRIVATE: '1' });

it('warns at registration that the running builder refuses the URL, then shows each endpoint’s last attempt, its reason and the next retry everywhere', async () => {
  const added = await marquee(['webhooks', 'add', '--org', 'nordic-dev', '--url', url, '--json'], lenient());
  expect(added.code, added.stderr).toBe(0);
  const endpoint = JSON.parse(added.stdout) as { id: string; organizationSlug: string; warnings?: string[] };
  const refusal =
    'builder strict-builder is running with other WEBHOOK_ALLOW_* settings and refuses every delivery to this URL: url must be https (http only with WEBHOOK_ALLOW_INSECURE=1)';
  expect(endpoint.organizationSlug).toBe('nordic-dev');
  expect(endpoint.warnings).toEqual([expect.stringContaining(refusal)]);
  expect(added.stderr).toContain(`marquee: warning: ${refusal}`);

  // Before any attempt: nothing tried, nothing waiting.
  const before = JSON.parse((await marquee(['webhooks', 'list', '--org', 'nordic-dev', '--json'], lenient())).stdout) as Array<{ id: string; health: unknown }>;
  expect(before.find((listed) => listed.id === endpoint.id)!.health).toEqual({ lastAttempt: null, waiting: 0, nextRetryAt: null });

  const tested = await marquee(['webhooks', 'test', endpoint.id], lenient());
  expect(tested.code, tested.stderr).toBe(0);
  type Listed = {
    id: string;
    organizationSlug: string;
    enabled: boolean;
    health: { lastAttempt: { delivered: boolean; error: string | null } | null; waiting: number; nextRetryAt: string | null };
  };
  const listed = async () =>
    (JSON.parse((await marquee(['webhooks', 'list', '--org', 'nordic-dev', '--json'], lenient())).stdout) as Listed[]).find((one) => one.id === endpoint.id)!;
  await expect.poll(async () => (await listed()).health.lastAttempt, { timeout: 30_000, interval: 500 }).not.toBeNull();
  const shown = await listed();
  expect(shown).toMatchObject({ organizationSlug: 'nordic-dev', enabled: true, health: { lastAttempt: { delivered: false }, waiting: 1 } });
  expect(shown.health.lastAttempt!.error).toContain('url must be https (http only with WEBHOOK_ALLOW_INSECURE=1)');
  expect(Date.parse(shown.health.nextRetryAt!)).toBeGreaterThan(Date.parse('2026-01-01T00:00:00Z'));
  expect(received).toBe(0);

  // The text: the organization by slug, as keys list names it, and the health on the line below.
  const text = await marquee(['webhooks', 'list', '--org', 'nordic-dev'], lenient());
  expect(text.stdout).toContain(`${endpoint.id} for nordic-dev: ${url}; enabled\n  last attempt `);
  expect(text.stdout).toMatch(/: failed: url must be https \(http only with WEBHOOK_ALLOW_INSECURE=1\), got "[^"]+"; 1 waiting, next retry \d{4}-\d\d-\d\dT/);

  // The admin API answers what --json printed (up to a retry made in between), and the console shows it.
  const api = (await (await fetch(`${admin}/admin/v1/organizations/nordic-dev/webhooks`, { headers: { Authorization: `Bearer ${token}` } })).json()) as Listed[];
  expect(api.find((one) => one.id === endpoint.id)).toMatchObject({
    organizationSlug: 'nordic-dev',
    health: { lastAttempt: { delivered: false, error: shown.health.lastAttempt!.error }, waiting: 1 },
  });
  const page = await (await fetch(`${admin}/webhooks?organization=nordic-dev`, { headers: { Authorization: `Basic ${Buffer.from(`any:${token}`).toString('base64')}` } })).text();
  expect(page).toContain('<span class="result result-failed">failed</span>: url must be https (http only with WEBHOOK_ALLOW_INSECURE=1)');
  expect(page).toMatch(/1 waiting; next retry <time datetime="\d{4}-/);
}, 120_000);
