import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { ROOT_ACTOR } from '../../../records/actor.ts';
import { offeredToken, requireAdminCredential } from '../../../admin/auth.ts';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('the admin token offered by an Authorization header', () => {
  it('reads a Bearer token and the password of Basic auth, whatever the user name', () => {
    expect(offeredToken('Bearer abc123')).toBe('abc123');
    expect(offeredToken('bearer abc123')).toBe('abc123');
    expect(offeredToken(basic('any', 'secret:with:colons'))).toBe('secret:with:colons');
    expect(offeredToken(basic('', 'p'))).toBe('p');
  });

  it('offers nothing for no header, another scheme, or Basic credentials without a colon', () => {
    expect(offeredToken(undefined)).toBeUndefined();
    expect(offeredToken('Digest abc')).toBeUndefined();
    expect(offeredToken('Bearer')).toBeUndefined();
    expect(offeredToken(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeUndefined();
  });
});

describe('the admin port credential check', () => {
  const TOKEN = 'the-admin-token-1234';
  const SECRET = 'mqa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  /** The named credentials a process keeps: one auditor; every look-up recorded. */
  const looked: string[] = [];
  const named = async (secret: string) => {
    looked.push(secret);
    return secret === SECRET ? ({ name: 'audrey', role: 'auditor' } as const) : undefined;
  };

  async function check(authorization: string | undefined, withNamed = true) {
    const res = { locals: {} as Record<string, unknown> } as unknown as Response;
    let passed: unknown = 'not called';
    const handler = requireAdminCredential({ token: TOKEN, ...(withNamed ? { named } : {}) });
    await handler({ headers: authorization === undefined ? {} : { authorization } } as Request, res, (error?: unknown) => {
      passed = error;
    });
    return { passed, actor: res.locals.actor };
  }

  it('lets ADMIN_TOKEN in as root without a look-up, and a named credential as its actor, either scheme', async () => {
    looked.length = 0;
    expect(await check(`Bearer ${TOKEN}`)).toEqual({ passed: undefined, actor: ROOT_ACTOR });
    expect(await check(basic('x', TOKEN))).toEqual({ passed: undefined, actor: ROOT_ACTOR });
    expect(looked).toEqual([]);
    expect(await check(`Bearer ${SECRET}`)).toEqual({ passed: undefined, actor: { name: 'audrey', role: 'auditor' } });
    expect(await check(basic('audrey', SECRET))).toEqual({ passed: undefined, actor: { name: 'audrey', role: 'auditor' } });
  });

  it('refuses anything else with 401 UNAUTHORIZED and both challenges, and a named credential where none are kept (serve)', async () => {
    for (const authorization of [undefined, 'Bearer nope', `Bearer ${TOKEN}x`, basic('x', 'mqa_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB')]) {
      const { passed, actor } = await check(authorization);
      expect(passed).toMatchObject({ status: 401, errorCode: 'UNAUTHORIZED' });
      expect(actor).toBeUndefined();
    }
    expect((await check(`Bearer ${SECRET}`, false)).passed).toMatchObject({ status: 401 });
  });
});
