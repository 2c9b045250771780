import { describe, expect, it } from 'vitest';
import { parseTrustProxy } from '../../../../gateway/access/client-address.ts';

describe('parseTrustProxy (TRUST_PROXY)', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['0', false],
    ['1', 1],
    ['2', 2],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 192.168.1.5', ['10.0.0.0/8', '192.168.1.5']],
    ['uniquelocal,2001:db8::/32', ['uniquelocal', '2001:db8::/32']],
  ])('reads %j as %j', (text, value) => {
    expect(parseTrustProxy(text)).toEqual({ ok: true, value });
  });

  it.each(['true', 'yes', '10.0.0.0/33', '2001:db8::/129', '10.0.0.1/8/1', 'loopback,nonsense', '999', '-1', ','])('refuses %j with a reason', (text) => {
    const parsed = parseTrustProxy(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem.length).toBeGreaterThan(10);
  });
});
