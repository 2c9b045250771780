// No secret reaches a Marquee process's output: the real program (`marquee start`) is sent keys
// (valid, revoked, malformed, from an origin the key does not allow) in every place a client
// might put one — X-Api-Key, Authorization: Bearer, the query string, the path, a cookie, a header
// of its own — and the admin token, to the gateway and to the admin port; then its storage is
// damaged so that the gateway fails requests (500) and logs them while they carry a key
// everywhere. Its complete stdout and stderr must contain none of the secrets, and must contain
// the failed requests' ids (so the log is there and the test can fail).
import { randomBytes } from 'node:crypto';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { marquee, marqueeProcess } from '../../support/cli.ts';
import { migratedHome } from '../../support/migrated-home.ts';

let home: string;
beforeAll(async () => {
  // start finds the embedded database migrated (the run's template: test/support/migrated-home.ts) and seeds it.
  home = await migratedHome({ prefix: 'marquee-secrets-' });
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const API = '/api/integration/v1';
const ALLOWED_ORIGIN = 'https://site.example';

async function createKey(env: Record<string, string>, origins: string[] = []): Promise<{ key: string; id: string }> {
  const run = await marquee(['keys', 'create', '--org', 'nordic-dev', ...origins.flatMap((origin) => ['--origin', origin]), '--json'], env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { key: string; id: string };
}

/** Every place a client might put `secret`, one request each; the statuses and X-Request-Ids answered. */
async function sendEverywhere(base: string, secret: string, extra: Record<string, string> = {}): Promise<Array<{ status: number; id: string }>> {
  const attempts: Array<[string, Record<string, string>]> = [
    [`${API}/events`, { 'x-api-key': secret }],
    [`${API}/events`, { authorization: `Bearer ${secret}` }],
    [`${API}/events`, { authorization: secret }],
    [`${API}/events?key=${secret}&api_key=${secret}&access_token=${secret}`, {}],
    [`${API}/events`, { 'x-garbage': secret, cookie: `key=${secret}`, 'x-request-id': secret }],
    [`${API}/${secret}`, { 'x-api-key': secret }],
    [`/healthz?token=${secret}`, { authorization: `Bearer ${secret}` }],
  ];
  const answers = [];
  for (const [path, headers] of attempts) {
    const response = await fetch(base + path, { headers: { ...headers, ...extra } });
    await response.arrayBuffer();
    answers.push({ status: response.status, id: response.headers.get('x-request-id') ?? '' });
  }
  return answers;
}

/** Every stored object of every organization replaced by bytes that do not match their hash. */
async function damageObjects(dir: string): Promise<number> {
  let damaged = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && path.includes('/objects/')) {
      await writeFile(path, '{"damaged":true}');
      damaged++;
    }
  }
  return damaged;
}

it('writes no key and no admin token to its output, even for requests that fail and are logged', async () => {
  const adminToken = `admin-${randomBytes(24).toString('hex')}`;
  const env = { MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0', ADMIN_TOKEN: adminToken };
  const start = await marqueeProcess(['start'], env, /console: (http:\/\/\S+)\//);
  let output = start.output();
  // Everything from here on, so that the whole output is read, not only the last part kept.
  expect(output.length).toBeLessThan(64 * 1024);
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  start.child.stdout!.on('data', collect);
  start.child.stderr!.on('data', collect);
  const secrets: Record<string, string> = { adminToken };
  const failed: string[] = [];
  try {
    const gateway = /gateway listening on (http:\/\/\S+)/.exec(output)![1]!;
    const admin = start.match[1]!;
    const cli = { MARQUEE_HOME: home, ADMIN_TOKEN: adminToken };

    const valid = await createKey(cli);
    const browser = await createKey(cli, [ALLOWED_ORIGIN]);
    const revoked = await createKey(cli);
    expect((await marquee(['keys', 'revoke', revoked.id], cli)).code).toBe(0);
    // A key with its last character changed: its checksum fails, but it is still someone's key, nearly.
    const malformed = valid.key.slice(0, -1) + (valid.key.endsWith('a') ? 'b' : 'a');
    Object.assign(secrets, { valid: valid.key, browser: browser.key, revoked: revoked.key, malformed });

    // The valid key works where it should: otherwise nothing below would reach the routes.
    await expect.poll(async () => (await fetch(`${gateway}${API}/events`, { headers: { 'x-api-key': valid.key } })).status, { timeout: 5_000, interval: 100 }).toBe(200);
    const statuses = [
      ...(await sendEverywhere(gateway, valid.key)),
      ...(await sendEverywhere(gateway, browser.key, { origin: 'https://elsewhere.example' })),
      ...(await sendEverywhere(gateway, revoked.key)),
      ...(await sendEverywhere(gateway, malformed)),
      ...(await sendEverywhere(gateway, adminToken)),
    ].map(({ status }) => status);
    expect(statuses).toEqual(expect.arrayContaining([200, 401, 403, 404]));
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    for (const token of [adminToken, valid.key]) {
      for (const path of ['/metrics', '/api/keys', '/']) {
        const response = await fetch(`${admin}${path}?token=${token}`, { headers: { authorization: `Bearer ${token}`, 'x-api-key': token } });
        await response.arrayBuffer();
      }
    }

    // Now storage fails under the gateway: each resource not yet in its memory answers 500 and is logged.
    expect(await damageObjects(join(home, 'snapshots'))).toBeGreaterThan(0);
    for (const path of ['/organization', '/team', '/speakers', '/sponsors']) {
      const response = await fetch(`${gateway}${API}${path}?key=${valid.key}`, {
        headers: { 'x-api-key': valid.key, authorization: `Bearer ${valid.key}`, 'x-garbage': valid.key, cookie: `session=${adminToken}`, 'x-request-id': valid.key },
      });
      await response.arrayBuffer();
      expect(response.status).toBe(500);
      failed.push(response.headers.get('x-request-id')!);
    }
  } finally {
    await start.stop();
  }

  expect(output).toContain('"status":500');
  for (const id of failed) expect(output).toContain(id);
  for (const [name, secret] of Object.entries(secrets)) {
    expect(output.includes(secret), `the output contains the ${name} secret`).toBe(false);
    // Nor the random part alone (a key printed without its prefix, or the token cut short).
    expect(output.includes(secret.slice(4, -4)), `the output contains part of the ${name} secret`).toBe(false);
  }
});
