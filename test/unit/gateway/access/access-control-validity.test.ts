// Access control on a key's validity in time: a scheduled revocation (keys roll) and an expiry
// refuse from their instant on with 401 API_KEY_INVALID, as an unknown or revoked key; an outright
// revocation refuses whatever the clock says; every accepted request's key is noted for last use.
import type { Request } from 'express';
import { beforeEach, describe, expect, it } from 'vitest';
import { accessControl } from '../../../../gateway/access/access-control.ts';
import { InMemoryRateLimiter } from '../../../../gateway/access/in-memory-rate-limiter.ts';
import { ApiError } from '../../../../gateway/errors.ts';
import { InMemoryKeyStore } from '../../../../records/keys/memory-store.ts';
import { standingAt } from '../../../../records/keys/key-validity.ts';

const ORG = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
const T0 = Date.UTC(2026, 4, 1, 9, 0, 0);

let store: InMemoryKeyStore;
let now: number;
let noted: Array<[string, number]>;

const requestWith = (secret: string): Request => ({ headers: { 'x-api-key': secret }, rawHeaders: ['X-Api-Key', secret], ip: '192.0.2.1', socket: {} }) as unknown as Request;

function access() {
  return accessControl({
    keys: store,
    limiter: new InMemoryRateLimiter({ limit: 100, windowSeconds: 60 }),
    failures: new InMemoryRateLimiter({ limit: 100, windowSeconds: 60 }),
    clock: () => now,
    organizationState: () => 'active',
    uses: { note: (keyId, nowMs) => noted.push([keyId, nowMs]) },
  });
}

/** The status the check ends with: 200 when granted. */
async function statusOf(secret: string): Promise<number> {
  try {
    await access().check(requestWith(secret));
    return 200;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    expect(error.status === 401 ? error.errorCode : 'other').toBe('API_KEY_INVALID');
    return error.status;
  }
}

beforeEach(() => {
  store = new InMemoryKeyStore(() => new Date(T0));
  now = T0;
  noted = [];
});

describe('standingAt', () => {
  const base = { revokedAt: null, revocationScheduled: false, expiresAt: null };
  it('is usable before a scheduled revocation or an expiry, revoked or expired from its instant on', () => {
    const at = new Date(T0 + 1_000).toISOString();
    expect(standingAt(base, T0)).toBe('usable');
    expect(standingAt({ ...base, revokedAt: at, revocationScheduled: true }, T0 + 999)).toBe('usable');
    expect(standingAt({ ...base, revokedAt: at, revocationScheduled: true }, T0 + 1_000)).toBe('revoked');
    expect(standingAt({ ...base, expiresAt: at }, T0 + 999)).toBe('usable');
    expect(standingAt({ ...base, expiresAt: at }, T0 + 1_000)).toBe('expired');
    // Revoked outright: whatever the clock says (another machine's clock may be ahead).
    expect(standingAt({ ...base, revokedAt: at }, T0)).toBe('revoked');
    expect(standingAt({ ...base, revokedAt: at, expiresAt: at }, T0 + 1_000)).toBe('revoked');
  });
});

describe('access control in time', () => {
  it('accepts a key until its scheduled revocation, then refuses it with 401', async () => {
    const { record, secret } = await store.create({ organizationId: ORG, label: null, origins: [] });
    await store.scheduleRevocation(record.id, new Date(T0 + 2_000));
    now = T0 + 1_999;
    expect(await statusOf(secret)).toBe(200);
    now = T0 + 2_000;
    expect(await statusOf(secret)).toBe(401);
  });

  it('accepts a key until it expires, then refuses it with 401', async () => {
    const { secret } = await store.create({ organizationId: ORG, label: null, origins: [], expiresAt: new Date(T0 + 60_000) });
    now = T0 + 59_999;
    expect(await statusOf(secret)).toBe(200);
    now = T0 + 60_000;
    expect(await statusOf(secret)).toBe(401);
  });

  it('refuses a key revoked outright even if the revocation instant is ahead of the gateway clock', async () => {
    const { record, secret } = await store.create({ organizationId: ORG, label: null, origins: [] });
    await store.revoke(record.id, new Date(T0 + 3_600_000));
    expect(await statusOf(secret)).toBe(401);
  });

  it('notes the key of every accepted request, and of no refused one', async () => {
    const good = await store.create({ organizationId: ORG, label: null, origins: [] });
    const gone = await store.create({ organizationId: ORG, label: null, origins: [] });
    await store.revoke(gone.record.id, new Date(T0));
    expect(await statusOf(good.secret)).toBe(200);
    expect(await statusOf(gone.secret)).toBe(401);
    expect(noted).toEqual([[good.record.id, T0]]);
  });
});
