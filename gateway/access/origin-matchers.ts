// A key's allowed origins compiled into a matcher (records/keys/origins.ts has the rules), kept
// per key so that a request costs a Set lookup, not a parse of the list.
import { type CacheStats, LruCache } from '../../runtime/lru.ts';
import { compileOrigins, type OriginMatcher } from '../../records/keys/origins.ts';

/**
 * Matchers per key, compiled once: keyed by key id, reused while the key's list has the same
 * contents (a store may hand out fresh records on every lookup). Bounded in bytes, least recently
 * used forgotten first.
 */
export class OriginMatcherCache {
  private readonly byKeyId: LruCache<string, { origins: readonly string[]; matcher: OriginMatcher }>;

  /** Default 1 MB: a few thousand keys with a couple of origins each. */
  constructor(maxBytes = 1024 * 1024) {
    this.byKeyId = new LruCache(maxBytes, ({ origins }, keyId) => weighMatcher(keyId, origins));
  }

  /** Hits, misses, evictions and bytes, for /metrics. */
  get stats(): CacheStats {
    return this.byKeyId;
  }

  matcherFor(keyId: string, origins: readonly string[]): OriginMatcher {
    const cached = this.byKeyId.get(keyId);
    if (cached !== undefined && sameList(cached.origins, origins)) return cached.matcher;
    const matcher = compileOrigins(origins);
    this.byKeyId.set(keyId, { origins: [...origins], matcher });
    return matcher;
  }
}

/**
 * A compiled list's heap bytes: the entry, the copied list and the matcher's closure (MATCHER_BYTES),
 * and per origin the copied string and its parsed form, about three times its length
 * (bench/cache-weights.ts).
 */
function weighMatcher(keyId: string, origins: readonly string[]): number {
  let bytes = MATCHER_BYTES + keyId.length;
  for (const origin of origins) bytes += ORIGIN_BYTES + 3 * origin.length;
  return bytes;
}

const MATCHER_BYTES = 500;
const ORIGIN_BYTES = 150;

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
