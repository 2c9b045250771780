// The production backends shared by one run of the `integration-production` project (vitest.config.ts):
// Redis, s3rver (with S3's semantics: test/support/conditional-writes.ts) and nginx in front of it as the CDN, started once by this global setup and handed
// to the test files through `inject`. The gateway suites' harness (gateway-fixtures.ts) then runs
// every suite on S3 through the CDN with keys and rate limits in Redis, each harness on its own
// key prefix and Redis namespace, so the suites stay as independent as on the embedded parts.
import type { TestProject } from 'vitest/node';
import { startConditionalWrites } from './conditional-writes.ts';
import { startHttpCache } from './http-cache.ts';
import { startRedis } from './redis.ts';
import { startS3 } from './s3.ts';

export interface ProductionBackends {
  redisUrl: string;
  s3Endpoint: string;
  bucket: string;
  /** The CDN's URL of the bucket: `${cdnBucketUrl}/${prefix}` maps to a store on that prefix. */
  cdnBucketUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    productionBackends: ProductionBackends | undefined;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [redis, s3] = await Promise.all([startRedis(), startS3()]);
  // S3's semantics in front of s3rver (whole reads during a write, conditional writes): the store and the CDN use it.
  const bucket = await startConditionalWrites(s3);
  const cdn = await startHttpCache(bucket.endpoint);
  project.provide('productionBackends', { redisUrl: redis.url, s3Endpoint: bucket.endpoint, bucket: s3.bucket, cdnBucketUrl: `${cdn.url}/${s3.bucket}` });
  return async () => {
    await cdn.stop();
    await bucket.close();
    await Promise.all([s3.stop(), redis.stop()]);
  };
}
