// Three projects: unit tests of pure logic run in parallel in milliseconds; integration tests run
// against real servers that they start themselves, one file at a time; and the gateway suites run
// once more on the production backends (S3 through an HTTP cache, Redis), which one global setup
// starts for the whole project (test/support/production-backends.ts).
import { defineConfig } from 'vitest/config';

/** The gateway suites that run on both: routes, authentication, security properties, freshness, conditional requests. */
const GATEWAY_SUITES = ['auth-suite', 'routes-happy', 'routes-errors', 'security.property', 'freshness', 'conditional', 'paging'].map(
  (name) => `test/integration/gateway/${name}.test.ts`,
);

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/build-product.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'integration-production',
          include: GATEWAY_SUITES,
          globalSetup: ['test/support/build-product.ts', 'test/support/production-backends.ts'],
          // The S3 store takes its credentials from the AWS SDK's chain, as in production: these are s3rver's.
          env: { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' },
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
