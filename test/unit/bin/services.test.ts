// The wiring of a build (bin/services.ts openBuildServices): with CLOUDFRONT_DISTRIBUTION_ID set,
// the changed organizations' pointer paths below the store's prefix go to that distribution; the
// CloudFront API cannot run here, so its client is mocked (aws-sdk-client-mock), as docs/production.md says.
import { CloudFrontClient, CreateInvalidationCommand } from '@aws-sdk/client-cloudfront';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../bin/config.ts';
import { openBuildServices } from '../../../bin/services.ts';
import type { PlatformSource } from '../../../builder/platform/rows.ts';
import { RecordingLog } from '../../support/recording-log.ts';

const cloudFront = mockClient(CloudFrontClient);
afterAll(() => cloudFront.restore());

const noPlatform: PlatformSource = {
  listOrganizations: async () => [],
  readOrganization: async () => undefined,
  close: async () => {},
};

describe('openBuildServices', () => {
  it('applies SNAPSHOT_RETENTION and SNAPSHOT_RETENTION_DAYS after every publish, and logs a failed retention as a warning', async () => {
    const log = new RecordingLog();
    const services = openBuildServices(
      parseConfig({ MARQUEE_HOME: '/tmp/marquee-unused', SNAPSHOT_RETENTION: '7', SNAPSHOT_RETENTION_DAYS: '3', SNAPSHOT_SIGNING_KEY: 'none' }, '/srv', false),
      log,
    );
    try {
      const { retention } = services.context(noPlatform);
      expect(retention).toMatchObject({ keep: 7, days: 3 });
      retention?.onError?.('00000000-0000-4000-8000-000000000001', new Error('disk full'));
      expect(log.lines).toMatchObject([{ level: 'warn', message: 'retention of 00000000-0000-4000-8000-000000000001 failed; the next build tries again' }]);
    } finally {
      await services.close();
    }
  });

  it("invalidates the changed pointers on the configured distribution, below the store's prefix", async () => {
    cloudFront.on(CreateInvalidationCommand).resolves({});
    const config = parseConfig(
      {
        SNAPSHOT_STORE: 's3://snapshots/prod/api',
        S3_ENDPOINT: 'http://127.0.0.1:1',
        CLOUDFRONT_DISTRIBUTION_ID: 'E2QWRUHAPOMQZL',
        AWS_REGION: 'us-east-1',
        SNAPSHOT_SIGNING_KEY: 'none',
      },
      '/srv',
      false,
    );
    const services = openBuildServices(config, new RecordingLog());
    try {
      const context = services.context(noPlatform);
      await context.onPointersChanged?.(['00000000-0000-4000-8000-000000000001']);
      const [call] = cloudFront.commandCalls(CreateInvalidationCommand);
      expect(call?.args[0].input).toMatchObject({
        DistributionId: 'E2QWRUHAPOMQZL',
        InvalidationBatch: { Paths: { Quantity: 1, Items: ['/prod/api/orgs/00000000-0000-4000-8000-000000000001/current.json'] } },
      });
    } finally {
      await services.close();
    }
  });

  it('gives every publish the coded forms SNAPSHOT_CODINGS names', async () => {
    for (const [setting, codings] of [
      [undefined, ['gzip']],
      ['br,gzip', ['br', 'gzip']],
      ['gzip', ['gzip']],
      ['none', []],
    ] as const) {
      const env = { MARQUEE_HOME: '/tmp/marquee-unused', SNAPSHOT_SIGNING_KEY: 'none', ...(setting === undefined ? {} : { SNAPSHOT_CODINGS: setting }) };
      const services = openBuildServices(parseConfig(env, '/srv', false), new RecordingLog());
      try {
        expect(services.context(noPlatform).codings).toEqual(codings);
      } finally {
        await services.close();
      }
    }
  });

  it('invalidates nothing without a distribution', () => {
    const services = openBuildServices(parseConfig({ SNAPSHOT_STORE: 's3://snapshots/prod', SNAPSHOT_SIGNING_KEY: 'none' }, '/srv', false), new RecordingLog());
    expect(services.context(noPlatform).onPointersChanged).toBeUndefined();
  });

  it('refuses to start a build on an s3:// store without SNAPSHOT_SIGNING_KEY, naming the variable, as a configuration error', () => {
    // The commands that build find this when they read their configuration (config.test.ts); this is any other caller's refusal.
    const build = () => openBuildServices(parseConfig({ SNAPSHOT_STORE: 's3://snapshots/prod' }, '/srv', false), new RecordingLog());
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/^invalid configuration:\n {2}- SNAPSHOT_SIGNING_KEY is not set/);
  });
});
