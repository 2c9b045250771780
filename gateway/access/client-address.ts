// Who a request comes from, for the failed-credentials throttle and the logs.
//
// Behind a load balancer every connection comes from the balancer, so the client is found in
// X-Forwarded-For, which only the operator's own proxies may be trusted to write: TRUST_PROXY
// takes Express's `trust proxy` forms, a hop count or the proxies' addresses and CIDR ranges
// (with the names loopback, linklocal and uniquelocal). `true` (trust every hop) is refused: it
// would let any client name its own address and walk out of the throttle.
//
// IPv6 clients are counted per /64: one subscriber or host usually holds a whole /64, and counting
// single addresses would let it rotate through 2^64 of them.
import { isIP } from 'node:net';

/** Express's `trust proxy` setting, in the forms Marquee accepts. */
export type TrustProxy = false | number | readonly string[];

const PRESETS = new Set(['loopback', 'linklocal', 'uniquelocal']);

export type TrustProxyParse = { ok: true; value: TrustProxy } | { ok: false; problem: string };

/** Parses TRUST_PROXY: unset, `false` or `0` (none), a hop count, or a comma-separated list. */
export function parseTrustProxy(text: string | undefined): TrustProxyParse {
  const value = text?.trim() ?? '';
  if (value === '' || value === 'false' || value === '0') return { ok: true, value: false };
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops <= 32 ? { ok: true, value: hops } : { ok: false, problem: `a hop count must be at most 32, got ${value}` };
  }
  if (value === 'true') {
    return { ok: false, problem: "true would trust any client's X-Forwarded-For; give the number of proxies in front of the gateway, or their addresses or CIDR ranges" };
  }
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = entries.filter((entry) => !PRESETS.has(entry) && !isAddressOrRange(entry));
  if (bad.length > 0 || entries.length === 0) {
    return {
      ok: false,
      problem: `expected a hop count or a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal; cannot read ${bad.map((entry) => JSON.stringify(entry)).join(', ') || JSON.stringify(value)}`,
    };
  }
  return { ok: true, value: entries };
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

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
