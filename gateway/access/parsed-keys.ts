// Presented key text → parseKey's result, for the keys seen recently: a key is sent with every
// request, and its checksum and SHA-256 are the same each time. Bounded in bytes, so arbitrary
// key-shaped input costs memory only up to `maxBytes`.
import { type CacheStats, LruCache } from '../../runtime/lru.ts';
import { parseKey, type ParsedKey } from '../../records/keys/format.ts';

/**
 * An entry's heap bytes besides the presented text: the result object, its 64-character hash, the
 * text's header and the LRU's Map slot (bench/cache-weights.ts).
 */
const PARSED_BYTES = 240;

export class ParsedKeys {
  private readonly recent: LruCache<string, ParsedKey>;

  /** Default 1 MB: about 3,000 keys. */
  constructor(maxBytes = 1024 * 1024) {
    this.recent = new LruCache(maxBytes, (_, text) => PARSED_BYTES + text.length);
  }

  get stats(): CacheStats {
    return this.recent;
  }

  parse(text: string): ParsedKey {
    let parsed = this.recent.get(text);
    if (parsed === undefined) {
      parsed = parseKey(text);
      this.recent.set(text, parsed);
    }
    return parsed;
  }
}
