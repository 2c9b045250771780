// Where webhooks may be sent (docs/design.md "Webhooks", safety): an https URL (http only with
// WEBHOOK_ALLOW_INSECURE=1) whose host is a global unicast address (public-address.ts). A
// registration naming a loopback, private, link-local or otherwise non-public address, in any of
// its written forms (Node's URL parser writes 0177.0.0.1 and 2130706433 as 127.0.0.1, [::127.0.0.1]
// as [::7f00:1]), or a name resolving to one, is refused; so
// is each delivery, since DNS can change after registration: the connection itself resolves
// through `publicLookup`, so the address checked is the address connected to (no window for a
// name to be rebound between check and connect). WEBHOOK_ALLOW_PRIVATE=1 lifts the address rule,
// for development and tests.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { OperatorError } from '../../runtime/errors.ts';
import { nonPublicRange } from './public-address.ts';

export interface DestinationPolicy {
  allowPrivate: boolean;
  allowInsecure: boolean;
}

/** A destination refused, saying why in words an operator can act on. */
class DestinationError extends OperatorError {
  override name = 'DestinationError';
}

/** The URL, checked in form; throws DestinationError naming what is wrong. */
export function parseDestination(text: string, policy: DestinationPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DestinationError(`url must be an absolute https URL, got ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowInsecure)) throw new DestinationError(insecure(text));
  if (url.username !== '' || url.password !== '') throw new DestinationError('url must not carry credentials: the signature authenticates each message');
  if (url.hash !== '') throw new DestinationError('url must not have a fragment');
  return url;
}

/**
 * The URL checked in form and by where its host resolves now (registration). A plain http URL is
 * judged by its address too, so that one refused for both (http://127.0.0.1:…, as when trying
 * webhooks on one machine) names both settings it needs at once, not one after the other.
 */
export async function checkDestination(text: string, policy: DestinationPolicy): Promise<URL> {
  const url = parseDestination(text, { ...policy, allowInsecure: true });
  const refusals = url.protocol === 'http:' && !policy.allowInsecure ? [insecure(text)] : [];
  const address = policy.allowPrivate ? undefined : await addressRefusal(url);
  if (address !== undefined) refusals.push(address);
  if (refusals.length === 2) {
    throw new DestinationError(`${refusals.join('; and ')}. This URL needs both WEBHOOK_ALLOW_INSECURE=1 and WEBHOOK_ALLOW_PRIVATE=1 (development and tests)`);
  }
  if (refusals.length === 1) throw new DestinationError(refusals[0]!);
  return url;
}

/** Why the URL's host may not be sent to: it does not resolve, or to a non-public address; undefined when public. */
async function addressRefusal(url: URL): Promise<string | undefined> {
  const host = hostOf(url);
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true }).catch(() => []);
  if (addresses.length === 0) return `url's host ${host} does not resolve`;
  for (const { address } of addresses) {
    const range = nonPublicRange(address);
    if (range !== undefined) return refusal(host, address, range);
  }
  return undefined;
}

/** A `lookup` for the delivery's connection: resolves as usual and fails on any non-public address. */
export function publicLookup(policy: DestinationPolicy) {
  return (hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void => {
    lookup(hostname, { ...options, all: true, verbatim: true }).then(
      (addresses) => {
        const refused = policy.allowPrivate ? undefined : addresses.find(({ address }) => nonPublicRange(address) !== undefined);
        if (refused) return callback(new DestinationError(refusal(hostname, refused.address, nonPublicRange(refused.address)!)), []);
        if (options.all) return callback(null, addresses);
        const first = addresses[0];
        if (!first) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), []);
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

/** A host given as an address is connected to without a lookup: checked here instead (delivery). */
export function checkAddressHost(url: URL, policy: DestinationPolicy): void {
  const host = hostOf(url);
  if (policy.allowPrivate || !isIP(host)) return;
  const range = nonPublicRange(host);
  if (range !== undefined) throw new DestinationError(refusal(host, host, range));
}

function hostOf(url: URL): string {
  // URL keeps the brackets of an IPv6 literal.
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function insecure(text: string): string {
  return `url must be https (http only with WEBHOOK_ALLOW_INSECURE=1), got ${JSON.stringify(text)}`;
}

function refusal(host: string, address: string, range: string): string {
  const where = host === address ? address : `${host} (${address})`;
  return `url's host ${where} is not a public address (${range}); webhooks go to public addresses only, unless WEBHOOK_ALLOW_PRIVATE=1`;
}
