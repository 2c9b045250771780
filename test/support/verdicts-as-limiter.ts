// The key verdicts seen as a RateLimiter, so that the RateLimiter contract runs against the Lua
// that production counts with (RedisKeyVerdicts: lookup and count in one script) instead of a
// limiter class of its own. A bucket is a key, created in the store the first time the bucket is
// used; limiters made from one `buckets` map share their keys, as two gateways share a key store.
import type { KeyVerdicts, UsableVerdict } from '../../gateway/access/key-verdicts.ts';
import type { RateDecision, RateLimiter } from '../../gateway/access/rate-limit.ts';
import type { KeyStore } from '../../records/keys/key-store.ts';

const ORGANIZATION = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';

/** Bucket name → the secret hash of its key. */
export type KeyBuckets = Map<string, Promise<string>>;

export function limiterThroughVerdicts(store: KeyStore, verdicts: KeyVerdicts, buckets: KeyBuckets = new Map()): RateLimiter {
  const keyOf = (bucket: string): Promise<string> => {
    let hash = buckets.get(bucket);
    if (hash === undefined) {
      hash = store.create({ organizationId: ORGANIZATION, label: bucket, origins: [] }).then(({ record }) => record.secretHash);
      buckets.set(bucket, hash);
    }
    return hash;
  };
  return {
    limit: verdicts.limit,
    windowSeconds: verdicts.windowSeconds,
    async consume(bucket: string, nowMs: number): Promise<RateDecision> {
      const verdict = await verdicts.verdict(await keyOf(bucket), nowMs);
      if (verdict.record === undefined) throw new Error(`the key of bucket ${bucket} was not found (${JSON.stringify(verdict)})`);
      return verdicts.settle(verdict as UsableVerdict, nowMs);
    },
  };
}
