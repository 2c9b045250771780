// examples/webhook-receiver as a site runs it, exactly as its README says (`node receiver.mjs`,
// configured by the environment), with every Node line at hand: the machine's own (20 here, which
// has no type stripping: the example is plain JavaScript so that it runs there) and the suite's.
// Beside `marquee start` as README's quick start runs it (embedded database, sample data, the demo
// key), each receiver is registered with the CLI and told of one change made with `db sql`: it
// verifies the signature and refetches the listed path with its key, getting the gateway's new
// ETag; a forged message is refused with 401, and a redelivered one is handled once.
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { marquee, marqueeProcess } from '../../support/cli.ts';
import { nodeLines } from '../../support/node-lines.ts';
import { freePort } from '../../support/ports.ts';
import { migratedHome } from '../../support/migrated-home.ts';

const API = '/api/integration/v1';
const EXAMPLE = fileURLToPath(new URL('../../../examples/webhook-receiver/', import.meta.url));

type Process = Awaited<ReturnType<typeof marqueeProcess>>;

let home: string;
let env: Record<string, string>;
let start: Process;

beforeAll(async () => {
  // start finds the embedded database migrated (the run's template: test/support/migrated-home.ts) and seeds it.
  home = await migratedHome({ prefix: 'marquee-example-receiver-' });
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

/** The lines a receiver printed that begin with `prefix`. */
const lines = (receiver: Process, prefix: string) =>
  receiver
    .output()
    .split('\n')
    .filter((line) => line.startsWith(prefix));

it('runs on every Node line at hand: refetches what changed with the key, refuses a forged message, handles a redelivery once', async () => {
  const output = start.output();
  const key = /demo key for nordic-dev: (mqk_\w+)/.exec(output)![1]!;
  const gateway = /gateway listening on (http:\/\/\S+)/.exec(output)![1]!;
  const nodes = nodeLines();
  // On this machine: Node 20 and the suite's 26 (one line when the suite runs on the machine's own).
  expect(nodes.length).toBeGreaterThanOrEqual(1);
  const receivers: Array<{ node: string; url: string; endpoint: { id: string }; running: Process }> = [];
  try {
    for (const { command, version } of nodes) {
      // As the README: register the URL, then run the receiver with the secret printed once.
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/marquee`;
      const endpoint = JSON.parse(await cli(['webhooks', 'add', '--org', 'nordic-dev', '--url', url, '--json'])) as { id: string; secret: string };
      const receiverEnv = { MARQUEE_WEBHOOK_SECRET: endpoint.secret, MARQUEE_KEY: key, MARQUEE_API: gateway, PORT: String(port), HOST: '127.0.0.1' };
      const running = await marqueeProcess(['receiver.mjs'], receiverEnv, /receiving webhooks on 127\.0\.0\.1:\d+\n/, { command, cwd: EXAMPLE, readyTimeoutMs: 15_000 });
      receivers.push({ node: version, url, endpoint, running });
    }

    await cli(['db', 'sql', "UPDATE team_members SET show_on_website = false WHERE full_name = 'Astrid Lindqvist'"]);
    for (const { node, running } of receivers) {
      await expect.poll(() => lines(running, 'refetched '), { timeout: 15_000, interval: 50, message: `the receiver on Node ${node}` }).not.toEqual([]);
    }
    const team = await fetch(`${gateway}${API}/team`, { headers: { authorization: `Bearer ${key}` } });
    expect(JSON.stringify(await team.json())).not.toContain('Astrid Lindqvist');
    const etag = team.headers.get('etag');
    for (const { node, running } of receivers) expect({ node, refetched: lines(running, 'refetched ') }).toEqual({ node, refetched: [`refetched ${API}/team: ${etag}`] });

    for (const { node, url, endpoint, running } of receivers) {
      // Forged: signed with another secret.
      const forged = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
        body: '{"type":"snapshot.published","data":{"changed":[{"path":"/api/integration/v1/team","etag":null}]}}',
      });
      expect({ node, status: forged.status }).toEqual({ node, status: 401 });
      // What it printed reaches this process after its answer.
      await expect.poll(() => lines(running, 'refused a message: '), { timeout: 5_000, interval: 20 }).toEqual(['refused a message: no valid signature']);

      // The same message again (an operator's redelivery): received, verified, not handled twice.
      const attempts = JSON.parse(await cli(['webhooks', 'attempts', endpoint.id, '--json'])) as Array<{ messageId: string; status: number }>;
      expect(attempts.map((attempt) => attempt.status)).toEqual([204]);
      await cli(['webhooks', 'redeliver', endpoint.id, attempts[0]!.messageId]);
      await expect
        .poll(() => lines(running, 'message '), { timeout: 15_000, interval: 50, message: `the redelivery to the receiver on Node ${node}` })
        .toEqual([`message ${attempts[0]!.messageId} received again: handled already`]);
      expect(lines(running, 'refetched ')).toHaveLength(1);
    }
  } finally {
    await Promise.all(receivers.map(({ running }) => running.stop()));
  }
}, 90_000);
