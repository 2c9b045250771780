// Configuration (docs/design.md "Process model and configuration"): read from the environment once at
// start-up, validated, and refused with one message that names every bad variable.
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import cron from 'node-cron';
import { DEFAULT_MARQUEE_SCHEMA, DEFAULT_PLATFORM_SCHEMA, DEFAULT_PUBLIC_BASE_URL } from '../builder/defaults.ts';
import { DEFAULT_KEEP, DEFAULT_RETENTION_DAYS } from '../builder/retention.ts';
import { parseTrustProxy, type TrustProxy } from '../gateway/access/client-address.ts';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from '../gateway/http-timeouts.ts';
import { EXIT_USAGE, OperatorError } from '../runtime/errors.ts';
import type { StoreLocation } from '../snapshot/store.ts';
import { parseStoreSetting } from '../snapshot/stores/registry.ts';
import { isHttpUrl } from '../runtime/http-url.ts';
import { DEFAULT_DISABLE_AFTER_MS, DEFAULT_RETRY_DELAYS_MS, type WebhookPolicy } from '../builder/webhooks/webhook-policy.ts';

export interface Config {
  home: string;
  databaseUrl: string | undefined;
  platformSchema: string;
  /** MARQUEE_SCHEMA: where Marquee keeps its own relations in the platform database (builder/platform/marquee-schema/). */
  marqueeSchema: string;
  /** Where snapshots are published and read from (SNAPSHOT_STORE and its backend's variables: snapshot/stores/registry.ts). */
  snapshotStore: StoreLocation;
  /** SNAPSHOT_CDN_URL: gateways read manifests and objects through this HTTP base. */
  snapshotCdnUrl: string | undefined;
  /** CLOUDFRONT_DISTRIBUTION_ID: each publish invalidates the changed pointers there. */
  cloudFrontDistributionId: string | undefined;
  /** REDIS_URL: keys, rate limits, the publish channel and build locks shared by every process. */
  redisUrl: string | undefined;
  port: number;
  /** ADMIN_PORT: the admin API and console (builder, start); /healthz and /metrics only (serve). */
  adminPort: number;
  /** ADMIN_HOST: the admin port's address; loopback unless the operator says otherwise. */
  adminHost: string;
  /** ADMIN_TOKEN: required on every admin path but /healthz; start generates one when unset. */
  adminToken: string | undefined;
  /** Applied after every build (SNAPSHOT_RETENTION, SNAPSHOT_RETENTION_DAYS): keep every snapshot younger than `days`, and at least the newest `keep`. */
  retention: { keep: number; days: number };
  platformPublicUrl: string;
  buildSchedule: string;
  /** FULL_BUILD_EVERY: every organization is built in full at least this often, whatever its source version says (default 24h). */
  fullBuildEveryMs: number;
  /** BUILDER_NAME: how this builder names itself where builders share work (which one ran a scheduled build); default host name and process id. */
  builderName: string;
  /** Proxies whose X-Forwarded-For names the client (Express `trust proxy`); false: none. */
  trustProxy: TrustProxy;
  /** How start, serve and builder write their log (bin/log.ts). */
  logFormat: LogFormat;
  /** The gateway's HTTP timeouts (HTTP_HEADERS_TIMEOUT, HTTP_REQUEST_TIMEOUT, HTTP_KEEP_ALIVE_TIMEOUT, in seconds). */
  httpTimeouts: HttpTimeouts;
  /** WEBHOOK_ALLOW_PRIVATE, WEBHOOK_ALLOW_INSECURE, WEBHOOK_RETRY_SCHEDULE, WEBHOOK_DISABLE_AFTER. */
  webhooks: WebhookPolicy;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const DURATION_UNITS_MS = { s: 1000, m: 60 * 1000, h: 60 * 60 * 1000, d: DAY_MS };

/** LOG_FORMAT: JSON lines, or readable lines for a person; unset: readable on a terminal. */
export type LogFormat = 'json' | 'pretty';
const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

/** Exit status 2, like a wrong command line: nothing was attempted. */
export class ConfigError extends OperatorError {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`, { exitCode: EXIT_USAGE });
  }
}

// CloudFront distribution ids are upper-case letters and digits (e.g. E2QWRUHAPOMQZL).
const DISTRIBUTION_ID = /^[A-Z0-9]{6,32}$/;

/** `terminal`: whether stdout is one, which decides the log's format when LOG_FORMAT is unset. */
export function parseConfig(env: NodeJS.ProcessEnv, cwd = process.cwd(), terminal = process.stdout.isTTY === true): Config {
  const problems: string[] = [];
  const text = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const port = (name: string, fallback: number): number => {
    const value = text(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!/^\d+$/.test(value) || n > 65535) {
      problems.push(`${name} must be a TCP port number (0-65535), got ${JSON.stringify(value)}`);
      return fallback;
    }
    return n;
  };

  const seconds = (name: string, fallbackMs: number): number => {
    const value = text(name);
    if (value === undefined) return fallbackMs;
    if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0 || Number(value) > 3600) {
      problems.push(`${name} must be a number of seconds above 0 and at most 3600, got ${JSON.stringify(value)}`);
      return fallbackMs;
    }
    return Math.round(Number(value) * 1000);
  };

  /** A length of time as a whole number and a unit, `90s`, `30m`, `24h`, `7d`: at least a second, at most 365 days. */
  const durationMs = (value: string): number | undefined => {
    const match = /^(\d+)(s|m|h|d)$/.exec(value);
    const ms = match ? Number(match[1]) * DURATION_UNITS_MS[match[2] as keyof typeof DURATION_UNITS_MS] : 0;
    return ms < 1000 || ms > 365 * DAY_MS ? undefined : ms;
  };
  const duration = (name: string, fallbackMs: number): number => {
    const value = text(name);
    if (value === undefined) return fallbackMs;
    const ms = durationMs(value);
    if (ms === undefined) {
      problems.push(`${name} must be a whole number followed by s, m, h or d (e.g. 24h), from 1s to 365d, got ${JSON.stringify(value)}`);
      return fallbackMs;
    }
    return ms;
  };
  /** `1`: on; unset, empty or `0`: off. */
  const flag = (name: string): boolean => {
    const value = text(name);
    if (value === undefined || value === '0') return false;
    if (value !== '1') problems.push(`${name} must be 1 (on) or 0 (off), got ${JSON.stringify(value)}`);
    return value === '1';
  };
  /** Durations separated by commas (WEBHOOK_RETRY_SCHEDULE): the delay before each retry. */
  const durations = (name: string, fallback: readonly number[]): readonly number[] => {
    const value = text(name);
    if (value === undefined) return fallback;
    const items = value.split(',').map((item) => durationMs(item.trim()));
    if (items.length > 20 || items.some((ms) => ms === undefined)) {
      problems.push(`${name} must be up to 20 durations separated by commas, each a whole number followed by s, m, h or d (e.g. 5s,5m,30m), got ${JSON.stringify(value)}`);
      return fallback;
    }
    return items as number[];
  };

  const home = resolve(cwd, text('MARQUEE_HOME') ?? 'var');

  const databaseUrl = text('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }

  const platformSchema = text('PLATFORM_SCHEMA') ?? DEFAULT_PLATFORM_SCHEMA;
  if (!/^[a-z_][a-z0-9_]*$/.test(platformSchema)) {
    problems.push(`PLATFORM_SCHEMA must be a plain lower-case identifier, got ${JSON.stringify(platformSchema)}`);
  }
  // PostgreSQL keeps pg_* schema names for itself, and 63 bytes is its longest name.
  const marqueeSchema = text('MARQUEE_SCHEMA') ?? DEFAULT_MARQUEE_SCHEMA;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(marqueeSchema) || marqueeSchema.startsWith('pg_')) {
    problems.push(`MARQUEE_SCHEMA must be a plain lower-case identifier of up to 63 characters, not starting with pg_, got ${JSON.stringify(marqueeSchema)}`);
  }

  const { location: snapshotStore, problems: storeProblems } = parseStoreSetting(text('SNAPSHOT_STORE'), resolve(home, 'snapshots'), { env, cwd });
  problems.push(...storeProblems);

  const snapshotCdnUrl = text('SNAPSHOT_CDN_URL')?.replace(/\/+$/, '');
  if (snapshotCdnUrl !== undefined && !isHttpUrl(snapshotCdnUrl)) problems.push(`SNAPSHOT_CDN_URL must be an absolute http(s) URL, got ${JSON.stringify(snapshotCdnUrl)}`);

  const cloudFrontDistributionId = text('CLOUDFRONT_DISTRIBUTION_ID');
  if (cloudFrontDistributionId !== undefined) {
    if (!DISTRIBUTION_ID.test(cloudFrontDistributionId)) {
      problems.push(`CLOUDFRONT_DISTRIBUTION_ID must be a distribution id (upper-case letters and digits), got ${JSON.stringify(cloudFrontDistributionId)}`);
    }
    // CloudFront fronts a bucket: only a store with a CDN prefix can have its paths invalidated.
    if (snapshotStore !== undefined && snapshotStore.cdnPrefix === undefined) problems.push('CLOUDFRONT_DISTRIBUTION_ID is set, but SNAPSHOT_STORE is not an s3:// store');
  }

  const redisUrl = text('REDIS_URL');
  if (redisUrl !== undefined && !isRedisUrl(redisUrl)) problems.push('REDIS_URL must be a redis:// or rediss:// URL');

  const platformPublicUrl = (text('PLATFORM_PUBLIC_URL') ?? DEFAULT_PUBLIC_BASE_URL).replace(/\/+$/, '');
  if (!isHttpUrl(platformPublicUrl)) {
    problems.push(`PLATFORM_PUBLIC_URL must be an absolute http(s) URL, got ${JSON.stringify(env.PLATFORM_PUBLIC_URL)}`);
  }

  const buildSchedule = text('BUILD_SCHEDULE') ?? '*/5 * * * *';
  if (!cron.validate(buildSchedule)) {
    problems.push(`BUILD_SCHEDULE must be a cron expression (e.g. "*/5 * * * *"), got ${JSON.stringify(buildSchedule)}`);
  }

  const fullBuildEveryMs = duration('FULL_BUILD_EVERY', DAY_MS);

  const webhooks: WebhookPolicy = {
    allowPrivate: flag('WEBHOOK_ALLOW_PRIVATE'),
    allowInsecure: flag('WEBHOOK_ALLOW_INSECURE'),
    retryDelaysMs: durations('WEBHOOK_RETRY_SCHEDULE', DEFAULT_RETRY_DELAYS_MS),
    disableAfterMs: duration('WEBHOOK_DISABLE_AFTER', DEFAULT_DISABLE_AFTER_MS),
  };

  const builderName = text('BUILDER_NAME') ?? `${hostname()}:${process.pid}`;

  const httpTimeouts: HttpTimeouts = {
    headersMs: seconds('HTTP_HEADERS_TIMEOUT', DEFAULT_HTTP_TIMEOUTS.headersMs),
    requestMs: seconds('HTTP_REQUEST_TIMEOUT', DEFAULT_HTTP_TIMEOUTS.requestMs),
    keepAliveMs: seconds('HTTP_KEEP_ALIVE_TIMEOUT', DEFAULT_HTTP_TIMEOUTS.keepAliveMs),
  };
  // Node refuses a headers timeout longer than the request timeout.
  if (httpTimeouts.headersMs > httpTimeouts.requestMs) problems.push('HTTP_HEADERS_TIMEOUT must not be longer than HTTP_REQUEST_TIMEOUT');

  const wholeNumber = (name: string, fallback: number, min: number): number => {
    const value = text(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > 1_000_000) {
      problems.push(`${name} must be a whole number from ${min} to 1000000, got ${JSON.stringify(value)}`);
      return fallback;
    }
    return Number(value);
  };
  const retention = { keep: wholeNumber('SNAPSHOT_RETENTION', DEFAULT_KEEP, 1), days: wholeNumber('SNAPSHOT_RETENTION_DAYS', DEFAULT_RETENTION_DAYS, 0) };

  const adminHost = text('ADMIN_HOST') ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:-]+$/.test(adminHost)) problems.push(`ADMIN_HOST must be a host name or an IP address, got ${JSON.stringify(adminHost)}`);
  const adminToken = text('ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 16) problems.push('ADMIN_TOKEN must be at least 16 characters (e.g. openssl rand -hex 32)');

  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  if (!trustProxy.ok) problems.push(`TRUST_PROXY: ${trustProxy.problem}`);

  let logFormat: LogFormat = terminal ? 'pretty' : 'json';
  const logFormatSetting = text('LOG_FORMAT');
  if (logFormatSetting !== undefined) {
    const known = LOG_FORMATS.find((format) => format === logFormatSetting);
    if (known) logFormat = known;
    else problems.push(`LOG_FORMAT must be json or pretty, got ${JSON.stringify(logFormatSetting)}`);
  }

  const ports = { port: port('PORT', 8080), adminPort: port('ADMIN_PORT', 8081) };
  // No store without a problem naming SNAPSHOT_STORE.
  if (problems.length > 0 || snapshotStore === undefined) throw new ConfigError(problems);
  return {
    home,
    databaseUrl,
    platformSchema,
    marqueeSchema,
    snapshotStore,
    snapshotCdnUrl,
    cloudFrontDistributionId,
    redisUrl,
    ...ports,
    adminHost,
    adminToken,
    retention,
    platformPublicUrl,
    buildSchedule,
    fullBuildEveryMs,
    builderName,
    trustProxy: trustProxy.ok ? trustProxy.value : false,
    httpTimeouts,
    logFormat,
    webhooks,
  };
}

function isRedisUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
  } catch {
    return false;
  }
}
