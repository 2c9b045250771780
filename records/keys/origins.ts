// Browser origins of a key (docs/api.md §5.7, docs/design.md decisions table "origin matching"): normalizing the
// operator's list, and matching a request's `Origin` header against it.
//
// Rules:
// - exact `scheme://host[:port]`, scheme http or https, host case-insensitive (and IDN folded to
//   punycode), default ports folded (http 80, https 443) — i.e. the WHATWG serialized origin;
// - `https://*.example.org` matches subdomains at any depth (a.example.org, a.b.example.org),
//   as CSP source expressions do, but never example.org itself; the port must match as for an
//   exact entry; the wildcard needs at least two labels after it (`*.org` is refused);
// - `Origin: null` (sandboxed frames, file: pages) never matches;
// - an empty list means server-side only: every request carrying `Origin` is refused;
// - a request without `Origin` is not a browser's cross-origin request and is never refused
//   for its origin (the caller skips the matcher).

export type OriginParse = { ok: true; origin: string } | { ok: false; reason: string };

export interface OriginMatcher {
  /** `origin` is the raw `Origin` request header; a request without one is not a browser's. */
  allows(origin: string): boolean;
}

// A label a wildcard may stand for: what URL host parsing leaves of a DNS name (lower case,
// punycode). Anything else (ports, IP literals, empty labels) is not a subdomain.
const SUBDOMAIN_LABELS = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

/**
 * Validates one entry of a key's allowed-origins list and returns its canonical form. For
 * `keys create`: the reason names the bad origin.
 */
export function normalizeAllowedOrigin(text: string): OriginParse {
  const wildcard = wildcardParts(text);
  if (wildcard === undefined) return parseOrigin(text);
  const { scheme, rest } = wildcard;
  // Resolve the rest through the URL parser with a placeholder label, then put the `*` back.
  const parsed = parseOrigin(`${scheme}://wildcard.${rest}`);
  if (!parsed.ok) return { ok: false, reason: parsed.reason.replace(`${scheme}://wildcard.${rest}`, text) };
  // The URL parser already refused IP literals after `wildcard.`; what is left is a DNS name.
  const domain = parsed.origin.slice(`${scheme}://wildcard.`.length).replace(/:\d+$/, '');
  if (!domain.includes('.')) {
    return { ok: false, reason: `"${text}": a wildcard needs a domain of at least two labels after "*.", e.g. https://*.example.org` };
  }
  return { ok: true, origin: parsed.origin.replace('://wildcard.', '://*.') };
}

/** The canonical serialized origin of an exact `scheme://host[:port]`, or why it is not one. */
export function parseOrigin(text: string): OriginParse {
  if (text === 'null') return { ok: false, reason: '"null" is the origin of sandboxed and file pages; it can never be allowed' };
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(text)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') {
    return { ok: false, reason: `"${text}" is not an origin: expected http://host[:port] or https://host[:port]` };
  }
  const authority = text.slice(scheme.length + 3);
  if (authority === '' || /[/?#@\\\s]/.test(authority)) {
    return { ok: false, reason: `"${text}" is not an origin: only scheme://host[:port], without path, query, user or spaces` };
  }
  // The URL parser accepts `*` inside a host; here it is only meaningful as a leading `*.`.
  if (authority.includes('*')) {
    return { ok: false, reason: `"${text}" is not an origin: "*" is only allowed as a whole leading label, as in https://*.example.org` };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: `"${text}" is not an origin: the host or port is invalid` };
  }
  return { ok: true, origin: url.origin };
}

/** Compiles a canonical list (as stored by `keys create`) into a matcher. */
export function compileOrigins(origins: readonly string[]): OriginMatcher {
  if (origins.length === 0) return SERVER_SIDE_ONLY;
  const exact = new Set<string>();
  const wildcards: { prefix: string; suffix: string }[] = [];
  for (const entry of origins) {
    const parsed = normalizeAllowedOrigin(entry);
    // A stored entry that no longer parses matches nothing rather than everything.
    if (!parsed.ok) continue;
    const wildcard = wildcardParts(parsed.origin);
    if (wildcard === undefined) exact.add(parsed.origin);
    // "https://*.example.org:8443" → any origin "https://<labels>.example.org:8443".
    else wildcards.push({ prefix: `${wildcard.scheme}://`, suffix: `.${wildcard.rest}` });
  }
  return {
    allows(origin) {
      // Browsers send the canonical form, so this is the common hit.
      if (exact.has(origin)) return true;
      const parsed = parseOrigin(origin);
      if (!parsed.ok) return false;
      if (exact.has(parsed.origin)) return true;
      for (const { prefix, suffix } of wildcards) {
        const canonical = parsed.origin;
        if (!canonical.startsWith(prefix) || !canonical.endsWith(suffix)) continue;
        const labels = canonical.slice(prefix.length, canonical.length - suffix.length);
        if (SUBDOMAIN_LABELS.test(labels)) return true;
      }
      return false;
    },
  };
}

/** Server-side keys (empty list): no browser origin at all. */
const SERVER_SIDE_ONLY: OriginMatcher = { allows: () => false };

function wildcardParts(text: string): { scheme: string; rest: string } | undefined {
  const match = /^([a-zA-Z]+):\/\/\*\.(.*)$/s.exec(text);
  if (match === null) return undefined;
  return { scheme: match[1]!.toLowerCase(), rest: match[2]! };
}
