// The ground floor's client groups (runtime/client-group.ts), which both ports' throttles count
// addresses in: IPv4 as it is, IPv4-mapped as its IPv4, IPv6 per /64.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientGroup } from '../../../runtime/client-group.ts';

describe('clientGroup', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['unknown', 'unknown'],
  ])('%s is counted as %s', (address, group) => {
    expect(clientGroup(address)).toBe(group);
  });

  it('counts an IPv4-mapped address with its IPv4, and the addresses of one /64 together', () => {
    fc.assert(fc.property(fc.ipV4(), (v4) => clientGroup(`::ffff:${v4}`) === clientGroup(v4)));
    fc.assert(fc.property(fc.integer({ min: 0, max: 0xffff }), (last) => clientGroup(`2001:db8:1:2::${last.toString(16)}`) === '2001:db8:1:2::/64'));
  });
});
