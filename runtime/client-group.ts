// The bucket a client address is counted in, for a throttle of failed credentials and for the
// logs: on the ground floor so that every port counts addresses alike (the admin port's failed
// logins, admin/login-throttle.ts; the gateway's invalid credentials, gateway/access/client-address.ts).
//
// IPv6 clients are counted per /64: one subscriber or host usually holds a whole /64, and counting
// single addresses would let it rotate through 2^64 of them.
import { isIP } from 'node:net';

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * The bucket a client address is counted in: an IPv4 address as it is (also when it arrives
 * IPv4-mapped, as on a dual-stack socket), an IPv6 address as its /64 (`2001:db8:1:2::/64`).
 * Anything that is not an address is its own bucket.
 */
export function clientGroup(address: string): string {
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped) return mapped[1]!;
  if (isIP(address) !== 6) return address;
  const hextets = expandIpv6(address.split('%')[0]!);
  if (hextets === undefined) return address;
  return `${hextets
    .slice(0, 4)
    .map((hextet) => hextet.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (with `::` and a trailing dotted quad expanded). */
function expandIpv6(address: string): number[] | undefined {
  let text = address;
  const quad = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (groups: string): number[] => (groups === '' ? [] : groups.split(':').map((group) => parseInt(group, 16)));
  const front = part(head);
  if (tail === undefined) return front.length === 8 ? front : undefined;
  const back = part(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}
