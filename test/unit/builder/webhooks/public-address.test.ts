// Webhooks go to global unicast addresses only (builder/webhooks/public-address.ts), whatever form
// an address is written in: every form below as Node's URL parser normalizes a URL's host, then
// judged at registration (checkDestination) and at delivery (checkAddressHost), and as a resolver
// answers it (nonPublicRange).
import { describe, expect, it } from 'vitest';
import { checkAddressHost, checkDestination } from '../../../../builder/webhooks/destinations.ts';
import { nonPublicRange } from '../../../../builder/webhooks/public-address.ts';

const strict = { allowPrivate: false, allowInsecure: false };

/** URL as an operator types it → the host Node's URL parser makes of it → the range that refuses it. */
const REFUSED: ReadonlyArray<readonly [string, string, string]> = [
  // IPv4, and IPv4 written in the forms the URL parser reads as IPv4 (octal, hex, one number, short).
  ['https://127.0.0.1/', '127.0.0.1', 'loopback'],
  ['https://0177.0.0.1/', '127.0.0.1', 'loopback'],
  ['https://0x7f.0.0.1/', '127.0.0.1', 'loopback'],
  ['https://0x7f000001/', '127.0.0.1', 'loopback'],
  ['https://2130706433/', '127.0.0.1', 'loopback'],
  ['https://017700000001/', '127.0.0.1', 'loopback'],
  ['https://127.1/', '127.0.0.1', 'loopback'],
  ['https://0/', '0.0.0.0', 'unspecified'],
  ['https://10.1.2.3/', '10.1.2.3', 'private'],
  ['https://0xa.1.2.3/', '10.1.2.3', 'private'],
  ['https://172.16.0.1/', '172.16.0.1', 'private'],
  ['https://192.168.0.1/', '192.168.0.1', 'private'],
  ['https://169.254.169.254/', '169.254.169.254', 'linkLocal'],
  ['https://100.64.0.1/', '100.64.0.1', 'carrierGradeNat'],
  ['https://192.0.0.8/', '192.0.0.8', 'reserved'],
  ['https://192.0.2.1/', '192.0.2.1', 'reserved'],
  ['https://198.18.0.1/', '198.18.0.1', 'reserved'],
  ['https://198.51.100.1/', '198.51.100.1', 'reserved'],
  ['https://203.0.113.1/', '203.0.113.1', 'reserved'],
  ['https://240.0.0.1/', '240.0.0.1', 'reserved'],
  ['https://224.0.0.1/', '224.0.0.1', 'multicast'],
  ['https://255.255.255.255/', '255.255.255.255', 'broadcast'],
  // IPv6 outside 2000::/3.
  ['https://[::]/', '[::]', 'unspecified'],
  ['https://[::1]/', '[::1]', 'loopback'],
  ['https://[0:0:0:0:0:0:0:1]/', '[::1]', 'loopback'],
  ['https://[fe80::1]/', '[fe80::1]', 'linkLocal'],
  ['https://[fd00::1]/', '[fd00::1]', 'uniqueLocal'],
  ['https://[fc00::1]/', '[fc00::1]', 'uniqueLocal'],
  ['https://[ff02::1]/', '[ff02::1]', 'multicast'],
  ['https://[100::1]/', '[100::1]', 'discard'],
  ['https://[1000::1]/', '[1000::1]', 'notGlobalUnicast'],
  ['https://[4000::1]/', '[4000::1]', 'notGlobalUnicast'],
  // IPv4 in IPv6 syntax: mapped (judged as the IPv4 address), compatible (refused), translated, NAT64.
  ['https://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]', 'loopback'],
  ['https://[0:0:0:0:0:ffff:10.0.0.1]/', '[::ffff:a00:1]', 'private'],
  ['https://[::127.0.0.1]/', '[::7f00:1]', 'ipv4Compatible'],
  ['https://[::8.8.8.8]/', '[::808:808]', 'ipv4Compatible'],
  ['https://[::ffff:0:127.0.0.1]/', '[::ffff:0:7f00:1]', 'rfc6145'],
  ['https://[64:ff9b::127.0.0.1]/', '[64:ff9b::7f00:1]', 'loopback'],
  ['https://[64:ff9b::10.0.0.1]/', '[64:ff9b::a00:1]', 'private'],
  ['https://[64:ff9b:1::1]/', '[64:ff9b:1::1]', 'rfc6052'],
  // Special-purpose ranges inside 2000::/3.
  ['https://[2001::1]/', '[2001::1]', 'teredo'],
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', '[2001:0:4136:e378:8000:63bf:3fff:fdd2]', 'teredo'],
  ['https://[2001:2::1]/', '[2001:2::1]', 'benchmarking'],
  ['https://[2001:db8::1]/', '[2001:db8::1]', 'reserved'],
  ['https://[3fff::1]/', '[3fff::1]', 'reserved'],
  ['https://[2002:c0a8:101::1]/', '[2002:c0a8:101::1]', '6to4'],
  ['https://[2002:808:808::1]/', '[2002:808:808::1]', '6to4'],
  ['https://[5f00::1]/', '[5f00::1]', 'segmentRouting'],
];

/** Global unicast: IPv4 public, IPv6 in 2000::/3 outside its special ranges, and their mapped and NAT64 forms. */
const ACCEPTED: ReadonlyArray<readonly [string, string]> = [
  ['https://93.184.215.14/hook', '93.184.215.14'],
  ['https://8.8.8.8/', '8.8.8.8'],
  ['https://0x8.0x8.0x8.0x8/', '8.8.8.8'],
  ['https://134744072/', '8.8.8.8'],
  ['https://1.1.1.1./', '1.1.1.1'],
  ['https://[2606:4700:4700::1111]/', '[2606:4700:4700::1111]'],
  ['https://[2001:4860:4860::8888]/', '[2001:4860:4860::8888]'],
  ['https://[2a00:1450:4001:80e::200e]/', '[2a00:1450:4001:80e::200e]'],
  ['https://[::ffff:8.8.8.8]/', '[::ffff:808:808]'],
  ['https://[64:ff9b::8.8.8.8]/', '[64:ff9b::808:808]'],
];

describe('a URL host in every form', () => {
  it.each(REFUSED)('%s (%s) is refused at registration and at delivery: %s', async (text, host, range) => {
    const url = new URL(text);
    expect(url.host).toBe(host);
    const message = `is not a public address (${range})`;
    await expect(checkDestination(text, strict)).rejects.toThrow(message);
    expect(() => checkAddressHost(url, strict)).toThrow(message);
    // WEBHOOK_ALLOW_PRIVATE=1 lifts the rule, for development and tests.
    expect((await checkDestination(text, { ...strict, allowPrivate: true })).host).toBe(host);
    expect(() => checkAddressHost(url, { ...strict, allowPrivate: true })).not.toThrow();
  });

  it.each(ACCEPTED)('%s (%s) is accepted', async (text, host) => {
    expect((await checkDestination(text, strict)).host).toBe(host);
    expect(() => checkAddressHost(new URL(text), strict)).not.toThrow();
  });

  it('a zone id is no URL host at all (WHATWG URL), and scoped wherever a resolver answers one', async () => {
    await expect(checkDestination('https://[fe80::1%25eth0]/', strict)).rejects.toThrow('url must be an absolute https URL');
    expect(nonPublicRange('fe80::1%eth0')).toBe('scoped');
    expect(nonPublicRange('2606:4700:4700::1111%eth0')).toBe('scoped');
  });
});

describe('nonPublicRange of what a resolver answers', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:a00:1::1', '6to4'],
    ['not an address', 'invalid'],
    ['0177.0.0.1', 'invalid'],
  ])('%s: %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  it.each(['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])('%s is global unicast', (address) => {
    expect(nonPublicRange(address)).toBeUndefined();
  });
});
