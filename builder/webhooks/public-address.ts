// Which addresses a webhook may be sent to (docs/design.md "Webhooks", Safety; decided in
// docs/design.md "Webhook destinations: global unicast only"): global unicast alone. An IPv4
// address is public unless a special-purpose range holds it (private, loopback, link-local,
// shared 100.64/10, documentation, benchmarking, 0/8, 240/4, multicast, broadcast). An IPv6 address
// must lie in 2000::/3, the global unicast space, and outside its special-purpose ranges: Teredo
// 2001::/32 and the rest of 2001::/23, documentation 2001:db8::/32 and 3fff::/20, 6to4 2002::/16
// (deprecated, RFC 7526, and it embeds any IPv4 address, a private one too), SRv6 5f00::/16. So the
// forms that reach an IPv4 host through IPv6 syntax are judged for what they reach: an
// IPv4-mapped address (::ffff:a.b.c.d) is the IPv4 one it maps, IPv4-compatible ones (::a.b.c.d,
// deprecated by RFC 4291, which a URL writes as [::7f00:1]) lie outside 2000::/3 and are refused,
// and the NAT64 well-known prefix 64:ff9b::/96 (RFC 6052) is judged by the IPv4 address it
// embeds, because DNS64 on an IPv6-only host answers every public name with one. An address with
// a zone (fe80::1%eth0) is scoped to one link, never global.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * undefined when `address` (an IP address as Node's URL parser or resolver writes it) is global
 * unicast, that a webhook may go to; otherwise the name of the range that refuses it, for the
 * operator's message (ipaddr.js's names where it has one: loopback, private, teredo, 6to4 …).
 */
export function nonPublicRange(address: string): string | undefined {
  if (address.includes('%')) return 'scoped';
  if (isIP(address) === 0) return 'invalid';
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? ipv4Range(parsed as ipaddr.IPv4) : ipv6Range(parsed as ipaddr.IPv6);
}

function ipv4Range(address: ipaddr.IPv4): string | undefined {
  const range = address.range();
  return range === 'unicast' ? undefined : range;
}

function ipv6Range(address: ipaddr.IPv6): string | undefined {
  if (address.isIPv4MappedAddress()) return ipv4Range(address.toIPv4Address());
  if (address.match(NAT64_WELL_KNOWN)) return ipv4Range(embeddedIpv4(address));
  const range = address.range();
  if (!address.match(GLOBAL_UNICAST)) {
    if (range !== 'unicast') return range;
    return address.match(IPV4_COMPATIBLE) ? 'ipv4Compatible' : 'notGlobalUnicast';
  }
  return range === 'unicast' ? undefined : range;
}

/** The IPv4 address in an IPv6 address's last 32 bits. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = address.toByteArray();
  return new ipaddr.IPv4(bytes.slice(12));
}
