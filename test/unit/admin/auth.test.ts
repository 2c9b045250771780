import { describe, expect, it } from 'vitest';
import { offeredToken } from '../../../admin/auth.ts';

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
