// Presented key text → parseKey's result, for the keys seen recently: a key is sent with every
// request, and its checksum and SHA-256 are the same each time. Bounded, so arbitrary key-shaped
// input costs memory only up to `capacity` entries.
import { LruCache } from '../../runtime/lru.ts';
import { parseKey, type ParsedKey } from './format.ts';

export class ParsedKeys {
  private readonly recent: LruCache<string, ParsedKey>;

  constructor(capacity = 4096) {
    this.recent = new LruCache(capacity);
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
