import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../bin/config.ts';
import { newSigningKeyPem } from '../../../snapshot/signing.ts';
import { S3Store } from '../../../snapshot/stores/s3.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';

describe('parseConfig', () => {
  it('runs on embedded defaults with nothing set', () => {
    expect(parseConfig({}, '/srv/marquee', false)).toEqual({
      home: '/srv/marquee/var',
      databaseUrl: undefined,
      platformSchema: 'public',
      marqueeSchema: 'marquee',
      snapshotStore: expect.objectContaining({ backend: 'directory', description: '/srv/marquee/var/snapshots', settings: { path: '/srv/marquee/var/snapshots' } }),
      snapshotCdnUrl: undefined,
      signingKey: { file: '/srv/marquee/var/signing-key.pem', generate: true },
      snapshotCodings: ['gzip'],
      publicationLogOrigin: '/srv/marquee/var/snapshots/publication-log',
      cloudFrontDistributionId: undefined,
      redisUrl: undefined,
      port: 8080,
      adminPort: 8081,
      adminHost: '127.0.0.1',
      adminToken: undefined,
      retention: { keep: 50, days: 90 },
      platformPublicUrl: 'https://events.example.com',
      buildSchedule: '*/5 * * * *',
      fullBuildEveryMs: 24 * 60 * 60 * 1000,
      builderName: `${hostname()}:${process.pid}`,
      trustProxy: false,
      logFormat: 'json',
      embeddedTimeouts: { statementMs: 30_000, idleInTransactionMs: 10_000 },
      httpTimeouts: { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 },
      gatewayCacheBytes: 48 * 1024 * 1024,
      snapshotPinMs: 600_000,
      webhooks: {
        allowPrivate: false,
        allowInsecure: false,
        retryDelaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
        disableAfterMs: 432_000_000,
      },
      usageRetentionDays: 90,
      usageMoveMs: 10_000,
      shutdownDrainMs: 5_000,
      snapshotStaleAfterMs: undefined,
    });
  });

  it('signs with a key made under MARQUEE_HOME for a directory store, with SNAPSHOT_SIGNING_KEY when set, with none when it says none, and finds it missing for an s3:// store', () => {
    expect(parseConfig({ SNAPSHOT_SIGNING_KEY: 'keys/signing.pem' }, '/srv', false).signingKey).toEqual({ file: '/srv/keys/signing.pem', generate: false });
    expect(parseConfig({ SNAPSHOT_SIGNING_KEY: 'none' }, '/srv', false).signingKey).toBe('none');
    expect(parseConfig({ SNAPSHOT_STORE: 's3://snapshots/prod' }, '/srv', false).signingKey).toBe('missing');
  });

  it('stores the coded forms SNAPSHOT_CODINGS names: br,gzip, gzip or none, and refuses anything else naming the variable', () => {
    expect(parseConfig({ SNAPSHOT_CODINGS: 'br, gzip' }, '/srv', false).snapshotCodings).toEqual(['br', 'gzip']);
    expect(parseConfig({ SNAPSHOT_CODINGS: 'gzip' }, '/srv', false).snapshotCodings).toEqual(['gzip']);
    expect(parseConfig({ SNAPSHOT_CODINGS: 'none' }, '/srv', false).snapshotCodings).toEqual([]);
    for (const value of ['br', 'gzip,br', 'zstd', 'br,gzip,gzip', 'off']) {
      expect(() => parseConfig({ SNAPSHOT_CODINGS: value }, '/srv', false)).toThrow(
        new ConfigError([`SNAPSHOT_CODINGS must be "br,gzip", "gzip" or "none" (the compressed forms a build stores beside each object), got ${JSON.stringify(value)}`]),
      );
    }
  });

  it('names the publication log as PUBLICATION_LOG_ORIGIN says, or after the CDN or the store, and says why not when neither can', () => {
    expect(parseConfig({ PUBLICATION_LOG_ORIGIN: 'events.example.com/log' }, '/srv', false).publicationLogOrigin).toBe('events.example.com/log');
    expect(parseConfig({ SNAPSHOT_CDN_URL: 'https://cdn.example.com/marquee/' }, '/srv', false).publicationLogOrigin).toBe('cdn.example.com/marquee/publication-log');
    expect(parseConfig({ SNAPSHOT_STORE: 's3://snapshots/prod', SNAPSHOT_SIGNING_KEY: 'none' }, '/srv', false).publicationLogOrigin).toBe('snapshots/prod/publication-log');
    expect(parseConfig({ MARQUEE_HOME: '/srv/my home' }, '/srv', false).publicationLogOrigin).toEqual({ problem: expect.stringMatching(/set PUBLICATION_LOG_ORIGIN$/) });
    expect(() => parseConfig({ PUBLICATION_LOG_ORIGIN: 'events example/log' }, '/srv', false)).toThrow(/PUBLICATION_LOG_ORIGIN must hold no space/);
  });

  it('finds, for the commands that build, a signing key they cannot sign with, with every other bad variable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'marquee-config-'));
    try {
      const key = join(dir, 'signing.pem');
      await writeFile(key, newSigningKeyPem());
      const garbage = join(dir, 'garbage.pem');
      await writeFile(garbage, 'not a key');
      const builds = { builds: true };
      // Only what builds signs: the other commands take the same environment.
      expect(parseConfig({ SNAPSHOT_STORE: 's3://snapshots/prod' }, dir, false).signingKey).toBe('missing');
      const refused = () => parseConfig({ SNAPSHOT_STORE: 's3://snapshots/prod', LOG_FORMAT: 'text' }, dir, false, builds);
      expect(refused).toThrow(ConfigError);
      expect(refused).toThrow(
        /- SNAPSHOT_SIGNING_KEY is not set: builders publishing to an s3:\/\/ store sign history with one key they all share[^\n]*\n {2}- LOG_FORMAT must be json or pretty/,
      );
      expect(() => parseConfig({ SNAPSHOT_SIGNING_KEY: 'missing.pem' }, dir, false, builds)).toThrow(`SNAPSHOT_SIGNING_KEY (${join(dir, 'missing.pem')}) does not exist`);
      expect(() => parseConfig({ SNAPSHOT_SIGNING_KEY: garbage }, dir, false, builds)).toThrow(`SNAPSHOT_SIGNING_KEY (${garbage}) does not hold a PEM private key`);
      expect(parseConfig({ SNAPSHOT_STORE: 's3://snapshots/prod', SNAPSHOT_SIGNING_KEY: key }, dir, false, builds).signingKey).toEqual({ file: key, generate: false });
      expect(parseConfig({ SNAPSHOT_STORE: 's3://snapshots/prod', SNAPSHOT_SIGNING_KEY: 'none' }, dir, false, builds).signingKey).toBe('none');
      // A directory store's key is made at its first build.
      expect(parseConfig({}, dir, false, builds).signingKey).toEqual({ file: join(dir, 'var', 'signing-key.pem'), generate: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('finds, for the commands that serve the gateway beside the admin port, one port given to both', () => {
    const serves = { serves: true };
    expect(() => parseConfig({ PORT: '9000', ADMIN_PORT: '9000' }, '/srv', false, serves)).toThrow('PORT and ADMIN_PORT must be two ports, both are 9000');
    expect(() => parseConfig({ ADMIN_PORT: '8080' }, '/srv', false, serves)).toThrow('PORT and ADMIN_PORT must be two ports, both are 8080');
    expect(parseConfig({ PORT: '0', ADMIN_PORT: '0' }, '/srv', false, serves)).toMatchObject({ port: 0, adminPort: 0 });
    // builder serves no gateway.
    expect(parseConfig({ PORT: '9000', ADMIN_PORT: '9000' }, '/srv', false)).toMatchObject({ port: 9000, adminPort: 9000 });
    // A bad PORT stands in as its default: named for what it is, not as a clash with ADMIN_PORT.
    expect(() => parseConfig({ PORT: 'eighty', ADMIN_PORT: '8080' }, '/srv', false, serves)).toThrow(
      /^invalid configuration:\n {2}- PORT must be a TCP port number \(0-65535\), got "eighty"$/,
    );
  });

  it('reads the HTTP timeouts in seconds and refuses a headers timeout longer than the request timeout', () => {
    expect(parseConfig({ HTTP_HEADERS_TIMEOUT: '2.5', HTTP_REQUEST_TIMEOUT: '20', HTTP_KEEP_ALIVE_TIMEOUT: '65' }, '/srv', false).httpTimeouts).toEqual({
      headersMs: 2_500,
      requestMs: 20_000,
      keepAliveMs: 65_000,
    });
    expect(() => parseConfig({ HTTP_HEADERS_TIMEOUT: '40' }, '/srv', false)).toThrow('HTTP_HEADERS_TIMEOUT must not be longer than HTTP_REQUEST_TIMEOUT');
    expect(() => parseConfig({ HTTP_KEEP_ALIVE_TIMEOUT: '0' }, '/srv', false)).toThrow('HTTP_KEEP_ALIVE_TIMEOUT must be a number of seconds');
  });

  it("reads start's embedded database timeouts in seconds, naming the variable of a bad one", () => {
    expect(parseConfig({ EMBEDDED_STATEMENT_TIMEOUT: '120', EMBEDDED_IDLE_TRANSACTION_TIMEOUT: '2.5' }, '/srv', false).embeddedTimeouts).toEqual({
      statementMs: 120_000,
      idleInTransactionMs: 2_500,
    });
    expect(() => parseConfig({ EMBEDDED_STATEMENT_TIMEOUT: '0' }, '/srv', false)).toThrow('EMBEDDED_STATEMENT_TIMEOUT must be a number of seconds');
    expect(() => parseConfig({ EMBEDDED_IDLE_TRANSACTION_TIMEOUT: '10s' }, '/srv', false)).toThrow('EMBEDDED_IDLE_TRANSACTION_TIMEOUT must be a number of seconds');
  });

  it('reads GATEWAY_CACHE_MB as whole megabytes, at least 16, and refuses anything else naming the variable', () => {
    expect(parseConfig({ GATEWAY_CACHE_MB: '64' }, '/srv', false).gatewayCacheBytes).toBe(64 * 1024 * 1024);
    expect(parseConfig({ GATEWAY_CACHE_MB: ' 16 ' }, '/srv', false).gatewayCacheBytes).toBe(16 * 1024 * 1024);
    for (const value of ['15', '0', '-64', '64MB', '1.5', 'lots', '1000001']) {
      expect(() => parseConfig({ GATEWAY_CACHE_MB: value }, '/srv', false)).toThrow(
        `GATEWAY_CACHE_MB must be a whole number of megabytes from 16 to 1000000, got ${JSON.stringify(value)}`,
      );
    }
  });

  it('reads SNAPSHOT_PIN_SECONDS as whole seconds, 0 turning pins off, and refuses anything else naming the variable', () => {
    expect(parseConfig({ SNAPSHOT_PIN_SECONDS: '60' }, '/srv', false).snapshotPinMs).toBe(60_000);
    expect(parseConfig({ SNAPSHOT_PIN_SECONDS: '0' }, '/srv', false).snapshotPinMs).toBe(0);
    for (const value of ['-1', '1.5', '10m', 'off']) {
      expect(() => parseConfig({ SNAPSHOT_PIN_SECONDS: value }, '/srv', false)).toThrow(
        `SNAPSHOT_PIN_SECONDS must be a whole number from 0 to 1000000, got ${JSON.stringify(value)}`,
      );
    }
  });

  it('reads USAGE_RETENTION_DAYS (at least a day) and USAGE_MOVE_SECONDS (1 to 10), naming the variable of a bad value', () => {
    expect(parseConfig({ USAGE_RETENTION_DAYS: '30', USAGE_MOVE_SECONDS: '1' }, '/srv', false)).toMatchObject({ usageRetentionDays: 30, usageMoveMs: 1_000 });
    expect(() => parseConfig({ USAGE_RETENTION_DAYS: '0' }, '/srv', false)).toThrow('USAGE_RETENTION_DAYS must be a whole number from 1 to 1000000, got "0"');
    expect(() => parseConfig({ USAGE_MOVE_SECONDS: '0' }, '/srv', false)).toThrow('USAGE_MOVE_SECONDS must be a whole number from 1 to 1000000, got "0"');
    expect(() => parseConfig({ USAGE_MOVE_SECONDS: '60' }, '/srv', false)).toThrow('USAGE_MOVE_SECONDS must be at most 10, got 60');
  });

  it('reads SHUTDOWN_DRAIN_SECONDS (0 to 300) and SNAPSHOT_STALE_AFTER (a duration), naming the variable of each bad value at once', () => {
    expect(parseConfig({ SHUTDOWN_DRAIN_SECONDS: '0', SNAPSHOT_STALE_AFTER: '15m' }, '/srv', false)).toMatchObject({ shutdownDrainMs: 0, snapshotStaleAfterMs: 900_000 });
    expect(parseConfig({ SHUTDOWN_DRAIN_SECONDS: '30' }, '/srv', false).shutdownDrainMs).toBe(30_000);
    expect(() => parseConfig({ SHUTDOWN_DRAIN_SECONDS: '301', SNAPSHOT_STALE_AFTER: 'soon' }, '/srv', false)).toThrow(
      new ConfigError([
        'SHUTDOWN_DRAIN_SECONDS must be at most 300, got 301',
        'SNAPSHOT_STALE_AFTER must be a whole number followed by s, m, h or d (e.g. 24h), from 1s to 365d, got "soon"',
      ]),
    );
    expect(() => parseConfig({ SHUTDOWN_DRAIN_SECONDS: '5s' }, '/srv', false)).toThrow('SHUTDOWN_DRAIN_SECONDS must be a whole number from 0 to 1000000, got "5s"');
  });

  it('logs JSON lines by default, readable lines on a terminal, and as LOG_FORMAT says', () => {
    expect(parseConfig({}, '/srv', false).logFormat).toBe('json');
    expect(parseConfig({}, '/srv', true).logFormat).toBe('pretty');
    expect(parseConfig({ LOG_FORMAT: 'json' }, '/srv', true).logFormat).toBe('json');
    expect(parseConfig({ LOG_FORMAT: 'pretty' }, '/srv', false).logFormat).toBe('pretty');
    expect(() => parseConfig({ LOG_FORMAT: 'text' }, '/srv', false)).toThrow('LOG_FORMAT must be json or pretty, got "text"');
  });

  it('reads every variable', () => {
    const config = parseConfig(
      {
        MARQUEE_HOME: '/data',
        DATABASE_URL: 'postgres://u:p@db/platform',
        PLATFORM_SCHEMA: 'platform',
        MARQUEE_SCHEMA: 'marquee_api',
        SNAPSHOT_STORE: 'snaps',
        PORT: '9000',
        ADMIN_PORT: '9001',
        ADMIN_HOST: '0.0.0.0',
        ADMIN_TOKEN: 'an-admin-token-of-some-length',
        SNAPSHOT_RETENTION: '10',
        SNAPSHOT_RETENTION_DAYS: '0',
        PLATFORM_PUBLIC_URL: 'https://events.example.org/',
        BUILD_SCHEDULE: '0 * * * *',
        FULL_BUILD_EVERY: '7d',
        BUILDER_NAME: 'builder-eu-1',
        TRUST_PROXY: '10.0.0.0/8, loopback',
      },
      '/srv',
    );
    expect(config).toMatchObject({
      home: '/data',
      snapshotStore: { backend: 'directory', settings: { path: '/srv/snaps' } },
      port: 9000,
      adminPort: 9001,
      adminHost: '0.0.0.0',
      adminToken: 'an-admin-token-of-some-length',
      retention: { keep: 10, days: 0 },
      platformPublicUrl: 'https://events.example.org',
      buildSchedule: '0 * * * *',
      fullBuildEveryMs: 7 * 24 * 60 * 60 * 1000,
      builderName: 'builder-eu-1',
      platformSchema: 'platform',
      marqueeSchema: 'marquee_api',
      trustProxy: ['10.0.0.0/8', 'loopback'],
    });
  });

  it('refuses a short ADMIN_TOKEN and retention that is not a whole number', () => {
    expect(() => parseConfig({ ADMIN_TOKEN: 'short' }, '/srv', false)).toThrow('ADMIN_TOKEN must be at least 16 characters');
    expect(() => parseConfig({ SNAPSHOT_RETENTION: '0' }, '/srv', false)).toThrow('SNAPSHOT_RETENTION must be a whole number from 1 to 1000000, got "0"');
    expect(() => parseConfig({ SNAPSHOT_RETENTION_DAYS: '-3' }, '/srv', false)).toThrow('SNAPSHOT_RETENTION_DAYS must be a whole number from 0 to 1000000, got "-3"');
  });

  it('reads GATEWAY_HOST as an IP address or a host name, unset by default (each command has its own), and names it when it is neither', () => {
    expect(parseConfig({}, '/srv', false).gatewayHost).toBeUndefined();
    for (const host of ['127.0.0.1', '0.0.0.0', '::1', '::', 'fe80::1%eth0', 'localhost', 'gateway.internal', 'api-1.example.org.']) {
      expect(parseConfig({ GATEWAY_HOST: host }, '/srv', false).gatewayHost).toBe(host);
    }
    expect(parseConfig({ GATEWAY_HOST: '[::1]' }, '/srv', false).gatewayHost).toBe('::1');
    expect(parseConfig({ GATEWAY_HOST: ' 127.0.0.1 ' }, '/srv', false).gatewayHost).toBe('127.0.0.1');
    for (const bad of ['http://127.0.0.1', '127.0.0.1:8080', 'my host', '-gateway', '[::1', 'a..b', '*']) {
      expect(() => parseConfig({ GATEWAY_HOST: bad }, '/srv', false)).toThrow(
        `GATEWAY_HOST must be an IP address or a host name (127.0.0.1, 0.0.0.0, ::1, ::, localhost), got ${JSON.stringify(bad)}`,
      );
    }
  });

  it('reads FULL_BUILD_EVERY as a whole number of seconds, minutes, hours or days', () => {
    expect(parseConfig({ FULL_BUILD_EVERY: '90s' }, '/srv').fullBuildEveryMs).toBe(90_000);
    expect(parseConfig({ FULL_BUILD_EVERY: '30m' }, '/srv').fullBuildEveryMs).toBe(1_800_000);
    expect(parseConfig({ FULL_BUILD_EVERY: '12h' }, '/srv').fullBuildEveryMs).toBe(43_200_000);
    for (const bad of ['24', '1.5h', '0s', '400d', 'daily']) {
      expect(() => parseConfig({ FULL_BUILD_EVERY: bad }, '/srv', false)).toThrow(
        `FULL_BUILD_EVERY must be a whole number followed by s, m, h or d (e.g. 24h), from 1s to 365d, got ${JSON.stringify(bad)}`,
      );
    }
  });

  it('reads the webhook settings: flags, a retry schedule of durations, how long failing lasts before disabling', () => {
    expect(parseConfig({ WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_ALLOW_INSECURE: '0', WEBHOOK_RETRY_SCHEDULE: '1s, 2m,3h', WEBHOOK_DISABLE_AFTER: '2d' }, '/srv').webhooks).toEqual({
      allowPrivate: true,
      allowInsecure: false,
      retryDelaysMs: [1_000, 120_000, 10_800_000],
      disableAfterMs: 172_800_000,
    });
    expect(() => parseConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes', WEBHOOK_RETRY_SCHEDULE: '5s,soon' }, '/srv', false)).toThrow(
      /WEBHOOK_ALLOW_PRIVATE must be 1 \(on\) or 0 \(off\), got "yes"\n {2}- WEBHOOK_RETRY_SCHEDULE must be up to 20 durations separated by commas/,
    );
  });

  it('refuses a MARQUEE_SCHEMA PostgreSQL would not create, naming the variable', () => {
    for (const bad of ['Marquee', 'marquee-api', 'pg_marquee', '1marquee', 'm'.repeat(64)]) {
      expect(() => parseConfig({ MARQUEE_SCHEMA: bad }, '/srv', false)).toThrow(
        `MARQUEE_SCHEMA must be a plain lower-case identifier of up to 63 characters, not starting with pg_, got ${JSON.stringify(bad)}`,
      );
    }
  });

  it('reads TRUST_PROXY as a hop count', () => {
    expect(parseConfig({ TRUST_PROXY: '2' }, '/srv').trustProxy).toBe(2);
  });

  it('names every bad variable in one message', () => {
    const attempt = () =>
      parseConfig({
        PORT: 'eighty',
        ADMIN_PORT: '70000',
        DATABASE_URL: 'mysql://x',
        PLATFORM_PUBLIC_URL: 'events',
        BUILD_SCHEDULE: 'often',
        PLATFORM_SCHEMA: 'Robert"); DROP',
        MARQUEE_SCHEMA: 'pg_marquee',
        REDIS_URL: 'http://x',
        SNAPSHOT_STORE: 's3://Bad_Bucket/p',
        S3_ENDPOINT: 'localhost:9000',
        SNAPSHOT_CDN_URL: 'cdn.example',
        CLOUDFRONT_DISTRIBUTION_ID: 'e-1',
        TRUST_PROXY: 'true',
        LOG_FORMAT: 'xml',
        GATEWAY_CACHE_MB: '8',
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const names = (error as ConfigError).problems.map((p) => p.split(' ')[0]);
      expect(names).toEqual([
        'DATABASE_URL',
        'PLATFORM_SCHEMA',
        'MARQUEE_SCHEMA',
        'S3_ENDPOINT',
        'SNAPSHOT_STORE:',
        'SNAPSHOT_CDN_URL',
        'CLOUDFRONT_DISTRIBUTION_ID',
        'REDIS_URL',
        'PLATFORM_PUBLIC_URL',
        'BUILD_SCHEDULE',
        'GATEWAY_CACHE_MB',
        'TRUST_PROXY:',
        'LOG_FORMAT',
        'PORT',
        'ADMIN_PORT',
      ]);
    }
  });

  it('reads the production backends: an S3 store with its endpoint, the CDN, CloudFront and Redis', () => {
    const config = parseConfig(
      {
        SNAPSHOT_STORE: 's3://marquee-snapshots/prod/api/',
        S3_ENDPOINT: 'http://127.0.0.1:9000',
        SNAPSHOT_CDN_URL: 'https://cdn.example.org/prod/api/',
        CLOUDFRONT_DISTRIBUTION_ID: 'E2QWRUHAPOMQZL',
        REDIS_URL: 'rediss://:secret@redis.internal:6380/2',
      },
      '/srv',
      false,
    );
    expect(config).toMatchObject({
      snapshotStore: { backend: 's3', cdnPrefix: 'prod/api', settings: { bucket: 'marquee-snapshots', prefix: 'prod/api', endpoint: 'http://127.0.0.1:9000' } },
      snapshotCdnUrl: 'https://cdn.example.org/prod/api',
      cloudFrontDistributionId: 'E2QWRUHAPOMQZL',
      redisUrl: 'rediss://:secret@redis.internal:6380/2',
    });
    expect(config.snapshotStore.description).toBe('s3://marquee-snapshots/prod/api');
    expect(config.snapshotStore.open()).toBeInstanceOf(S3Store);
    expect(config.snapshotStore.open().description).toBe('s3://marquee-snapshots/prod/api');
    expect(parseConfig({ SNAPSHOT_STORE: 's3://bucket' }, '/srv', false).snapshotStore).toMatchObject({
      backend: 's3',
      description: 's3://bucket',
      cdnPrefix: '',
      settings: { bucket: 'bucket', prefix: '', endpoint: undefined },
    });
    expect(parseConfig({}, '/srv', false).snapshotStore.open()).toBeInstanceOf(DirectoryStore);
  });

  it('refuses backend settings that cannot go together', () => {
    expect(() => parseConfig({ S3_ENDPOINT: 'http://127.0.0.1:9000' }, '/srv', false)).toThrow('S3_ENDPOINT is set, but SNAPSHOT_STORE is not an s3:// store');
    expect(() => parseConfig({ CLOUDFRONT_DISTRIBUTION_ID: 'E2QWRUHAPOMQZL' }, '/srv', false)).toThrow(
      'CLOUDFRONT_DISTRIBUTION_ID is set, but SNAPSHOT_STORE is not an s3:// store',
    );
    expect(() => parseConfig({ SNAPSHOT_STORE: 'gs://bucket/p' }, '/srv', false)).toThrow('SNAPSHOT_STORE must be a directory path or s3://bucket/prefix');
    expect(() => parseConfig({ SNAPSHOT_STORE: 's3://bucket/a//b' }, '/srv', false)).toThrow('has an empty, "." or ".." segment');
  });
});
