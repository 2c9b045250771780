// The gateway's memory for what it keeps per organization and per key: one budget in bytes
// (GATEWAY_CACHE_MB, bin/config.ts), split among its caches by fixed shares, so that its memory is
// bounded whatever the platform's size (docs/design.md "Gateway memory").
//
// One total rather than a variable per cache: an operator sizes a gateway by the memory its
// machine or container has, and knows that number; how it should be divided depends on how many
// bytes a manifest, a parsed event index or a remembered key takes in this release's heap, which
// the shares below encode and the operator cannot know. Each cache's hits, misses, evictions and
// bytes are on /metrics (gateway/metrics.ts): a cache that evicts while its hit rate falls says
// the total is too small for the working set, and the remedy is the same knob.

/** The caches, as /metrics labels them (cache="…"). */
export const CACHE_NAMES = ['snapshots', 'pinned', 'objects', 'views', 'changes', 'verdicts', 'key_rates', 'address_failures', 'parsed_keys', 'origins', 'usage'] as const;
export type CacheName = (typeof CACHE_NAMES)[number];

/**
 * Shares of the total, in hundredths. Pointers and manifests (one per organization served, and those
 * of earlier snapshots that pinned reads name) and the stored objects take most, parsed event views next (indexes and details share theirs: an index
 * of 5,000 events weighs 3.6 MB parsed, 5.4 MB with every upcoming page of 100 rendered, against
 * 13.4 MB at the default total; bench/cache-weights.ts); what is kept per key is small. verdicts and key_rates are used only with Redis
 * (the keys seen recently, and counts while Redis is away) or only without it (the per-key counts),
 * so a gateway never fills all of them at once.
 */
const SHARES: Readonly<Record<CacheName, number>> = {
  snapshots: 25,
  // Manifests of earlier snapshots that pinned reads name (gateway/snapshot-cache/pinned-snapshots.ts):
  // nothing for organizations nobody is crawling, and room for the largest organization's (a 5,000-
  // event manifest weighs about 4 MB) while a site's build reads it pinned.
  pinned: 10,
  objects: 17,
  views: 28,
  // Answers of GET /changes, kept until the clock can change them (gateway/changes.ts), and which
  // earlier snapshots the store keeps (snapshot-cache/retained-snapshots.ts), a quarter of it.
  changes: 2,
  verdicts: 5,
  key_rates: 5,
  address_failures: 3,
  parsed_keys: 1.5,
  origins: 1.5,
  // Usage counts per key not yet moved to the shared place, and the batches moved but not yet
  // counted (gateway/usage/): ten seconds of a busy gateway's keys weigh a few hundred KB. Taken
  // from verdicts and key_rates, which hold what they hold while Redis is away (or without it).
  usage: 2,
};

const MB = 1024 * 1024;

/**
 * 48 MB, for ≤ 256 MB RSS serving 100,000 organizations round-robin (docs/performance.md: 211 MB
 * at 20,000 and at 100,000, a 222 MB peak). Its resident memory is about 70 MB of code and buffers outside the heap,
 * some 45 MB of heap that is not cache, and the caches with the garbage their churn leaves: at 96
 * MB, serving 20,000 organizations round-robin (every request a miss) took the heap to 180 MB and
 * the RSS to 271 MB, 338 MB at its peak.
 */
export const DEFAULT_CACHE_BYTES = 48 * MB;

/** The smallest total GATEWAY_CACHE_MB accepts: below it an index of a few hundred events would not fit. */
export const MIN_CACHE_MB = 16;

export type CacheBudgets = Readonly<Record<CacheName, number>>;

/** Each cache's budget in bytes, from the total. */
export function cacheBudgets(totalBytes: number): CacheBudgets {
  return Object.fromEntries(CACHE_NAMES.map((name) => [name, Math.floor((totalBytes * SHARES[name]) / 100)])) as Record<CacheName, number>;
}
