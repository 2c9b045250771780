import { describe, expect, it } from 'vitest';
import { checkDestination, parseDestination } from '../../../../builder/webhooks/destinations.ts';

const strict = { allowPrivate: false, allowInsecure: false };

describe('checkDestination', () => {
  it.each([
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://10.0.0.1/hook', 'private'],
    ['https://192.168.1.10/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'linkLocal'],
    ['https://100.64.0.1/hook', 'carrierGradeNat'],
    ['https://0.0.0.0/hook', 'unspecified'],
    ['https://[::1]/hook', 'loopback'],
    ['https://[fd00::1]/hook', 'uniqueLocal'],
    ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['https://localhost/hook', 'loopback'],
  ])('refuses %s (%s)', async (url, range) => {
    await expect(checkDestination(url, strict)).rejects.toThrow(`is not a public address (${range})`);
  });

  it('takes a public address, and any address with WEBHOOK_ALLOW_PRIVATE', async () => {
    expect((await checkDestination('https://93.184.215.14/hook?site=1', strict)).href).toBe('https://93.184.215.14/hook?site=1');
    expect((await checkDestination('https://127.0.0.1/hook', { ...strict, allowPrivate: true })).hostname).toBe('127.0.0.1');
  });

  it('wants https (http only with WEBHOOK_ALLOW_INSECURE), no credentials, no fragment', () => {
    expect(() => parseDestination('http://example.com/', strict)).toThrow('url must be https (http only with WEBHOOK_ALLOW_INSECURE=1)');
    expect(parseDestination('http://example.com/', { ...strict, allowInsecure: true }).protocol).toBe('http:');
    expect(() => parseDestination('ftp://example.com/', { ...strict, allowInsecure: true })).toThrow('url must be https');
    expect(() => parseDestination('https://user:pw@example.com/', strict)).toThrow('must not carry credentials');
    expect(() => parseDestination('https://example.com/#x', strict)).toThrow('must not have a fragment');
    expect(() => parseDestination('not a url', strict)).toThrow('url must be an absolute https URL');
  });
});
