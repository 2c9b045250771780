// examples/webhook-receiver as a site runs it, beside `marquee start` as README's quick start runs
// it (embedded database, sample data, the demo key): registered with the CLI, told of a change
// made with `db sql`, it verifies the signature, refetches the listed path with its key and caches
// the new body; a forged message is refused with 401, and a redelivered one is handled once.
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebhookReceiver } from '../../../examples/webhook-receiver/receiver.ts';
import { marquee, marqueeProcess } from '../../support/cli.ts';

const API = '/api/integration/v1';

let home: string;
let env: Record<string, string>;
let start: Awaited<ReturnType<typeof marqueeProcess>>;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-example-receiver-'));
  env = { MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0', WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_ALLOW_INSECURE: '1', LOG_FORMAT: 'json' };
  start = await marqueeProcess(['start'], env, /try: (curl .*)\n/, { readyTimeoutMs: 90_000 });
}, 120_000);

afterAll(async () => {
  await start?.stop();
  await rm(home, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<string> {
  const run = await marquee(args, env);
  if (run.code !== 0) throw new Error(`marquee ${args.join(' ')} failed (${run.code}): ${run.stderr}`);
  return run.stdout;
}

it('refetches what changed with the key, refuses a forged message, handles a redelivery once', async () => {
  const output = start.output();
  const key = /demo key for nordic-dev: (mqk_\w+)/.exec(output)![1]!;
  const gateway = /gateway listening on (http:\/\/\S+)/.exec(output)![1]!;
  const changes: string[] = [];
  let server: Server | undefined;
  try {
    // The secret is only known once registered, and the URL only once listening: a receiver started with a placeholder, then given both.
    const options = { secret: 'whsec_', key, api: gateway, onChange: (path: string) => changes.push(path) };
    const receiver = new WebhookReceiver(options);
    server = await receiver.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/marquee`;
    const endpoint = JSON.parse(await cli(['webhooks', 'add', '--org', 'nordic-dev', '--url', url, '--json'])) as { id: string; secret: string };
    options.secret = endpoint.secret;

    await cli(['db', 'sql', "UPDATE team_members SET show_on_website = false WHERE full_name = 'Astrid Lindqvist'"]);
    const deadline = Date.now() + 15_000;
    while (!changes.includes(`${API}/team`) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await receiver.settled();
    expect(changes).toEqual([`${API}/team`]);
    const team = JSON.stringify(receiver.cache.get(`${API}/team`)!.body);
    expect(team).toContain('Mikko Virtanen');
    expect(team).not.toContain('Astrid Lindqvist');

    // Forged: signed with another secret.
    const forged = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
      body: '{"type":"snapshot.published","data":{"changed":[{"path":"/api/integration/v1/team","etag":null}]}}',
    });
    expect(forged.status).toBe(401);

    // The same message again (an operator's redelivery): received, verified, not handled twice.
    const attempts = JSON.parse(await cli(['webhooks', 'attempts', endpoint.id, '--json'])) as Array<{ messageId: string; status: number }>;
    expect(attempts.map((attempt) => attempt.status)).toEqual([204]);
    await cli(['webhooks', 'redeliver', endpoint.id, attempts[0]!.messageId]);
    const again = Date.now() + 15_000;
    let seen = attempts;
    while (seen.length < 2 && Date.now() < again) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      seen = JSON.parse(await cli(['webhooks', 'attempts', endpoint.id, '--json'])) as typeof attempts;
    }
    expect(seen.map((attempt) => attempt.status)).toEqual([204, 204]);
    await receiver.settled();
    expect(changes).toEqual([`${API}/team`]);
  } finally {
    server?.closeAllConnections();
    server?.close();
  }
}, 90_000);
