// How access control uses the key verdicts (gateway/access/key-verdicts.ts): exactly one of
// settle (the request passed the 403 checks) or release (it did not) after a usable key's
// verdict, neither for an invalid key; and a verdict that cannot judge the key is a 503 with its
// Retry-After, never a 401 and never counted against the client's address. Requests are plain
// objects with what access control reads of an Express request.
import type { Request } from 'express';
import { beforeEach, describe, expect, it } from 'vitest';
import { accessControl } from '../../../../gateway/access/access-control.ts';
import { InMemoryRateLimiter } from '../../../../gateway/access/in-memory-rate-limiter.ts';
import { EmbeddedKeyVerdicts, type KeyVerdict, type KeyVerdicts, type UsableVerdict } from '../../../../gateway/access/key-verdicts.ts';
import { ApiError } from '../../../../gateway/errors.ts';
import type { OrganizationState } from '../../../../snapshot/manifest.ts';
import { CountingKeyStore } from '../../../support/keys.ts';

const NOW = Date.UTC(2026, 4, 1, 9, 0, 0);
const STATES: Record<string, OrganizationState> = { active: 'active', suspended: 'suspended' };
const SITE = 'https://site.example';

/** The embedded verdicts, remembering which of its steps access control took. */
class RecordingVerdicts implements KeyVerdicts {
  readonly steps: string[] = [];
  readonly limit: number;
  readonly windowSeconds: number;

  constructor(
    private readonly inner: KeyVerdicts,
    private readonly answer?: KeyVerdict,
  ) {
    this.limit = inner.limit;
    this.windowSeconds = inner.windowSeconds;
  }

  async verdict(secretHash: string, nowMs: number): Promise<KeyVerdict> {
    this.steps.push('verdict');
    return this.answer ?? this.inner.verdict(secretHash, nowMs);
  }

  async settle(verdict: UsableVerdict, nowMs: number) {
    this.steps.push('settle');
    return this.inner.settle(verdict, nowMs);
  }

  async release(verdict: UsableVerdict) {
    this.steps.push('release');
    return this.inner.release(verdict);
  }
}

function request(headers: Record<string, string>): Request {
  return { headers, rawHeaders: Object.entries(headers).flat(), ip: '10.0.0.1', socket: {} } as unknown as Request;
}

/** The ApiError access control refused with, or undefined when it granted. */
async function outcome(check: () => unknown): Promise<ApiError | undefined> {
  try {
    await check();
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

let store: CountingKeyStore;
let failures: InMemoryRateLimiter;
let secrets: Record<'active' | 'suspended' | 'browser' | 'revoked', string>;

beforeEach(async () => {
  store = new CountingKeyStore();
  failures = new InMemoryRateLimiter({ limit: 1 });
  const issue = (organizationId: string, origins: string[] = []) => store.create({ organizationId, origins, label: null });
  const revoked = await issue('active');
  await store.revoke(revoked.record.id, new Date(NOW));
  secrets = { active: (await issue('active')).secret, suspended: (await issue('suspended')).secret, browser: (await issue('active', [SITE])).secret, revoked: revoked.secret };
});

function accessWith(verdicts: KeyVerdicts) {
  return accessControl({ verdicts, failures, clock: () => NOW, organizationState: (organizationId) => STATES[organizationId] });
}

describe('access control with key verdicts', () => {
  it.each([
    ['a granted request: settle', () => ({ 'x-api-key': secrets.active }), undefined, ['verdict', 'settle']],
    ['a suspended organization: release', () => ({ 'x-api-key': secrets.suspended }), 403, ['verdict', 'release']],
    ['a refused origin: release', () => ({ 'x-api-key': secrets.browser, origin: 'https://evil.example' }), 403, ['verdict', 'release']],
    ['a revoked key: neither', () => ({ 'x-api-key': secrets.revoked }), 401, ['verdict']],
    ['a malformed key: not even a verdict', () => ({ 'x-api-key': 'mqk_short' }), 401, []],
  ] as const)('takes one step after the verdict for %s', async (_case, headers, status, steps) => {
    const verdicts = new RecordingVerdicts(new EmbeddedKeyVerdicts(store, new InMemoryRateLimiter({ limit: 10 })));
    const refused = await outcome(() => accessWith(verdicts).check(request(headers())));
    expect(refused?.status).toBe(status);
    expect(verdicts.steps).toEqual(steps);
  });

  it('answers 503 with the Retry-After of a verdict that cannot judge the key, without counting it against the address', async () => {
    const verdicts = new RecordingVerdicts(new EmbeddedKeyVerdicts(store, new InMemoryRateLimiter({ limit: 10 })), { record: undefined, retryAfterSeconds: 7 });
    const access = accessWith(verdicts);
    for (let i = 0; i < 3; i++) {
      const refused = await outcome(() => access.check(request({ 'x-api-key': secrets.active })));
      expect(refused).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '7' } });
    }
    expect(verdicts.steps).toEqual(['verdict', 'verdict', 'verdict']);
    // The address's one allowed failure is still there: a 401, not the throttle's 429.
    expect((await outcome(() => access.check(request({ 'x-api-key': 'mqk_short' }))))?.status).toBe(401);
  });
});
