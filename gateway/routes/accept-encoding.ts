// Accept-Encoding (RFC 9110 §12.5.3), read into the order in which the gateway tries its codings
// for one request. Clients send a handful of distinct values (every fetch() the same one, every
// Chromium the same one), so each value is parsed once and kept.
import { CODINGS, type Coding } from '../../snapshot/codings.ts';

/** What a request accepts: the codings to try in order, and `identity` where it stands among them. */
type Choice = Coding | 'identity';

export interface AcceptedCodings {
  /** Most preferred first; a coding or identity the request refuses (q=0) is not listed. */
  readonly order: readonly Choice[];
  /** Whether identity (the JSON as it is) is acceptable at all. */
  readonly identity: boolean;
}

/**
 * No Accept-Encoding: identity. RFC 9110 lets a server pick any coding then, but the clients that
 * send none (Python's urllib, plain HTTP libraries) are exactly those that do not decode.
 */
const IDENTITY_ONLY: AcceptedCodings = { order: ['identity'], identity: true };

/** Preference on equal q-values: the smaller coding first, identity last (it is the largest). */
const TIE_ORDER: readonly Choice[] = [...CODINGS, 'identity'];

const parsed = new Map<string, AcceptedCodings>();
/** Bounded like every cache: a client inventing values only makes them parsed again. */
const MOST_KEPT = 256;

export function acceptedCodings(header: string | string[] | undefined): AcceptedCodings {
  if (header === undefined) return IDENTITY_ONLY;
  const value = typeof header === 'string' ? header : header.join(', ');
  let accepted = parsed.get(value);
  if (accepted === undefined) {
    if (parsed.size >= MOST_KEPT) parsed.clear();
    accepted = parseAcceptEncoding(value);
    parsed.set(value, accepted);
  }
  return accepted;
}

/**
 * Each member is `coding[;q=value]`, case-insensitive. A coding not listed takes `*`'s weight when
 * `*` is listed, and is refused otherwise; identity is acceptable unless refused by name or by `*;q=0`
 * without a weight of its own, and comes after every coding accepted unless it is weighed itself. `x-gzip` is gzip (§8.4.1.3). A member that is not well formed is
 * ignored, as an unknown coding is; an empty value accepts identity alone.
 */
export function parseAcceptEncoding(value: string): AcceptedCodings {
  const weights = new Map<string, number>();
  for (const member of value.split(',')) {
    const [name = '', ...parameters] = member.split(';').map((part) => part.trim().toLowerCase());
    if (name === '') continue;
    const weight = weightOf(parameters);
    if (weight === undefined) continue;
    const coding = name === 'x-gzip' ? 'gzip' : name;
    // A coding listed twice keeps its higher weight: no reading of a repeated member is more plausible.
    weights.set(coding, Math.max(weight, weights.get(coding) ?? 0));
  }
  const star = weights.get('*');
  // Identity not named is acceptable but the least preferred: a client listing `gzip;q=0.8` alone
  // wants gzip, whatever weight RFC 9110 leaves unsaid for identity.
  const weightOfChoice = (choice: Choice): number => weights.get(choice) ?? (choice === 'identity' ? (star ?? Number.MIN_VALUE) : (star ?? 0));
  const order = TIE_ORDER.filter((choice) => weightOfChoice(choice) > 0).sort((a, b) => weightOfChoice(b) - weightOfChoice(a));
  return { order, identity: weightOfChoice('identity') > 0 };
}

/** The member's q (1 when it has none); undefined for a q that is not a qvalue (0–1, three decimals at most). */
function weightOf(parameters: readonly string[]): number | undefined {
  let weight = 1;
  for (const parameter of parameters) {
    const [name, raw] = parameter.split('=').map((part) => part.trim());
    if (name !== 'q') continue;
    if (raw === undefined || !/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(raw)) return undefined;
    weight = Number(raw);
  }
  return weight;
}
