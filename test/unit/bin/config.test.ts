import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../bin/config.ts';

describe('parseConfig', () => {
  it('runs on embedded defaults with nothing set', () => {
    expect(parseConfig({}, '/srv/marquee', false)).toEqual({
      home: '/srv/marquee/var',
      databaseUrl: undefined,
      platformSchema: 'public',
      snapshotStore: '/srv/marquee/var/snapshots',
      port: 8080,
      adminPort: 8081,
      adminToken: undefined,
      platformPublicUrl: 'https://events.example.com',
      buildSchedule: '*/5 * * * *',
      trustProxy: false,
      logFormat: 'json',
      httpTimeouts: { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 },
    });
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
        SNAPSHOT_STORE: 'snaps',
        PORT: '9000',
        ADMIN_PORT: '9001',
        ADMIN_TOKEN: 't',
        PLATFORM_PUBLIC_URL: 'https://events.example.org/',
        BUILD_SCHEDULE: '0 * * * *',
        TRUST_PROXY: '10.0.0.0/8, loopback',
      },
      '/srv',
    );
    expect(config).toMatchObject({
      home: '/data',
      snapshotStore: '/srv/snaps',
      port: 9000,
      adminPort: 9001,
      platformPublicUrl: 'https://events.example.org',
      buildSchedule: '0 * * * *',
      platformSchema: 'platform',
      trustProxy: ['10.0.0.0/8', 'loopback'],
    });
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
        REDIS_URL: 'redis://x',
        TRUST_PROXY: 'true',
        LOG_FORMAT: 'xml',
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const names = (error as ConfigError).problems.map((p) => p.split(' ')[0]);
      expect(names).toEqual(['DATABASE_URL', 'PLATFORM_SCHEMA', 'PLATFORM_PUBLIC_URL', 'BUILD_SCHEDULE', 'TRUST_PROXY:', 'LOG_FORMAT', 'REDIS_URL', 'PORT', 'ADMIN_PORT']);
    }
  });
});
