// The ground floor's client groups (runtime/client-group.ts) count addresses as the gateway's do
// (gateway/access/client-address.ts), so that both ports' throttles agree on who an address is.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientGroup as gatewayGroup } from '../../../gateway/access/client-address.ts';
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

  it("agrees with the gateway's on any IPv4 or IPv6 address", () => {
    fc.assert(fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (address) => clientGroup(address) === gatewayGroup(address)));
  });
});
