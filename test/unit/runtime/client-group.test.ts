// The ground floor's client groups (runtime/client-group.ts), which both ports' throttles count
// addresses in (the gateway's invalid credentials, the admin port's failed logins): IPv4 as it is,
// IPv4-mapped as its IPv4, IPv6 per /64.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientGroup } from '../../../runtime/client-group.ts';

describe('clientGroup', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:198.51.100.1', '198.51.100.1'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['2001:db8:1:2::ffff:192.0.2.1', '2001:db8:1:2::/64'],
    ['unknown', 'unknown'],
  ])('%s is counted as %s', (address, group) => {
    expect(clientGroup(address)).toBe(group);
  });

  it('puts every address of one /64 in one group, and addresses of different /64s in different groups', () => {
    const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
    const half = fc.tuple(hextet, hextet, hextet, hextet);
    fc.assert(
      fc.property(half, half, half, half, (prefixA, prefixB, hostA, hostB) => {
        const a = clientGroup([...prefixA, ...hostA].join(':'));
        const b = clientGroup([...prefixA, ...hostB].join(':'));
        const c = clientGroup([...prefixB, ...hostA].join(':'));
        expect(a).toBe(b);
        expect(a === c).toBe(prefixA.map((h) => parseInt(h, 16)).join() === prefixB.map((h) => parseInt(h, 16)).join());
      }),
    );
  });

  it('counts an IPv4-mapped address with its IPv4', () => {
    fc.assert(fc.property(fc.ipV4(), (v4) => clientGroup(`::ffff:${v4}`) === clientGroup(v4)));
  });
});
