// If-None-Match, evaluated by the origin server (RFC 9110 §13.1.2, §13.2.1). The gateway is the
// origin: it answers the precondition whatever the request's Cache-Control or Pragma says.
// `Cache-Control: no-cache` asks caches not to reuse a stored response without revalidating,
// which is exactly what a conditional request to the origin is. Every fetch() (browsers, Node,
// Deno, Bun) adds `Cache-Control: no-cache` and `Pragma: no-cache` to a request that sets
// If-None-Match itself (Fetch standard, "HTTP-network-or-cache fetch"), so a server that honoured
// them, as Express's req.fresh does, would never send a 304 to a fetch() client.
// If-Modified-Since is not evaluated: responses carry no Last-Modified, and RFC 9110 §13.1.3 has
// it ignored whenever If-None-Match is present anyway.

/**
 * One member of a comma-separated list: `[W/]"opaque"`, or nothing (recipients accept empty list
 * elements, RFC 9110 §5.6.1), with optional whitespace. Commas may appear inside the quotes.
 */
const LIST_MEMBER = /[ \t]*(?:(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?[ \t]*(?:,|$)/y;

/**
 * Whether `header` (an If-None-Match value) matches the current representation's opaque tag
 * (unquoted): `*`, or any listed tag by weak comparison (the W/ prefix is ignored). A header that
 * is not a well-formed list matches nothing, so the client gets the full 200 rather than a 304
 * for a guess.
 */
export function ifNoneMatchMatches(header: string, opaqueTag: string): boolean {
  if (header.trim() === '*') return true;
  let matched = false;
  LIST_MEMBER.lastIndex = 0;
  while (LIST_MEMBER.lastIndex < header.length) {
    const start = LIST_MEMBER.lastIndex;
    const member = LIST_MEMBER.exec(header);
    if (member === null) return false;
    if (member[1] === opaqueTag) matched = true;
    // Only the end of the header matches nothing at all; stop there rather than loop.
    if (LIST_MEMBER.lastIndex === start) break;
  }
  return matched;
}
