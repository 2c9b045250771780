// The admin port's throttle of failed logins (admin/login-throttle.ts) with the credential check in
// front of it (admin/auth.ts), its clock moved by the test: 401 up to the limit, then 429 with
// Retry-After for further wrong credentials of that address, never for a valid credential nor for
// another address; one log line and one trail report for an address's first failure of a minute and
// one when it is throttled, whatever the count; every failure in the counter.
import type { Request, Response } from 'express';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { requireAdminCredential } from '../../../admin/auth.ts';
import { type FailedLogins, loginThrottle } from '../../../admin/login-throttle.ts';
import { ROOT_ACTOR } from '../../../records/actor.ts';
import { RecordingLog } from '../../support/recording-log.ts';

const TOKEN = 'the-admin-token-1234';
const LIMIT = 5;

function world() {
  let nowMs = Date.parse('2026-12-01T10:00:00Z');
  const log = new RecordingLog();
  const registry = new Registry();
  const recorded: FailedLogins[] = [];
  const failures = loginThrottle({ log, registry, limit: LIMIT, clock: () => nowMs, record: async (report) => void recorded.push(report) });
  const check = requireAdminCredential({ token: TOKEN, failures });
  const login = async (authorization: string | undefined, address = '203.0.113.7') => {
    const res = { locals: { requestId: 'req-1' } as Record<string, unknown> } as unknown as Response;
    const req = { headers: authorization === undefined ? {} : { authorization }, socket: { remoteAddress: address }, path: '/admin/v1/organizations' } as unknown as Request;
    let passed: unknown = 'not called';
    await check(req, res, (error?: unknown) => {
      passed = error;
    });
    return { passed: passed as { status?: number; errorCode?: string; headers?: Record<string, string> } | undefined, actor: res.locals.actor };
  };
  const counted = async () =>
    Object.fromEntries((await registry.getSingleMetric('marquee_admin_login_failures_total')!.get()).values.map((value) => [value.labels.reason, value.value]));
  return { log, recorded, login, counted, advance: (ms: number) => (nowMs += ms) };
}

describe('failed admin logins', () => {
  it('are 401 up to the limit, then 429 with Retry-After; the valid token and other addresses are never refused for them', async () => {
    const { login, advance } = world();
    for (let attempt = 0; attempt < LIMIT; attempt++) expect((await login('Bearer wrong-token')).passed).toMatchObject({ status: 401, errorCode: 'UNAUTHORIZED' });
    const throttled = (await login('Bearer wrong-token')).passed;
    expect(throttled).toMatchObject({ status: 429, errorCode: 'RATE_LIMITED' });
    expect(Number(throttled?.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(await login(`Bearer ${TOKEN}`)).toEqual({ passed: undefined, actor: ROOT_ACTOR });
    expect((await login('Bearer wrong-token', '198.51.100.1')).passed).toMatchObject({ status: 401 });
    // The same /64 is the same client.
    for (let attempt = 0; attempt < LIMIT; attempt++) await login('Bearer wrong-token', `2001:db8:1:2::${attempt + 1}`);
    expect((await login('Bearer wrong-token', '2001:db8:1:2::ff')).passed).toMatchObject({ status: 429 });
    // Once the minute has passed, a wrong credential is a 401 again.
    advance(60_000);
    expect((await login('Bearer wrong-token')).passed).toMatchObject({ status: 401 });
  });

  it('are counted by reason, and told to the log and the trail twice a minute an address at most, with the count', async () => {
    const { log, recorded, login, counted, advance } = world();
    await login(undefined);
    for (let attempt = 0; attempt < 100; attempt++) await login(`Basic ${Buffer.from(`x:guess-${attempt}`).toString('base64')}`);
    expect(await counted()).toEqual({ missing: 1, wrong: LIMIT, throttled: 100 - LIMIT });
    expect(log.lines.map((line) => line.message)).toEqual([expect.stringMatching(/^failed admin login/), expect.stringMatching(/^failed admin logins throttled/)]);
    expect(log.lines[1]!.fields).toMatchObject({ clientAddress: '203.0.113.7', failures: LIMIT + 1, status: 429, door: 'api', requestId: 'req-1' });
    expect(recorded.map(({ answer, failures }) => [answer.status, failures])).toEqual([
      [401, 1],
      [429, LIMIT + 1],
    ]);
    expect(JSON.stringify([log.lines, recorded])).not.toContain('guess-');
    advance(60_000);
    await login('Bearer wrong-token');
    expect(log.lines).toHaveLength(3);
    expect(recorded).toHaveLength(3);
  });
});
