// Who a request comes from, for the failed-credentials throttle and the logs.
//
// Behind a load balancer every connection comes from the balancer, so the client is found in
// X-Forwarded-For, which only the operator's own proxies may be trusted to write: TRUST_PROXY
// takes Express's `trust proxy` forms, a hop count or the proxies' addresses and CIDR ranges
// (with the names loopback, linklocal and uniquelocal). `true` (trust every hop) is refused: it
// would let any client name its own address and walk out of the throttle.
//
// Which bucket an address is counted in (IPv6 per /64) is the ground floor's, shared with the admin
// port's login throttle: runtime/client-group.ts.
import { isIP } from 'node:net';

export { clientGroup } from '../../runtime/client-group.ts';

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
