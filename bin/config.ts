// Configuration (docs/design.md "Process model and configuration"): read from the environment once at
// start-up, validated, and refused with one message that names every bad variable.
import { resolve } from 'node:path';
import cron from 'node-cron';
import { DEFAULT_PLATFORM_SCHEMA, DEFAULT_PUBLIC_BASE_URL } from '../builder/defaults.ts';
import { parseTrustProxy, type TrustProxy } from '../gateway/access/client-address.ts';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from '../gateway/http-timeouts.ts';
import { EXIT_USAGE, OperatorError } from '../snapshot/errors.ts';

export interface Config {
  home: string;
  databaseUrl: string | undefined;
  platformSchema: string;
  /** A directory path. */
  snapshotStore: string;
  port: number;
  adminPort: number;
  adminToken: string | undefined;
  platformPublicUrl: string;
  buildSchedule: string;
  /** Proxies whose X-Forwarded-For names the client (Express `trust proxy`); false: none. */
  trustProxy: TrustProxy;
  /** How start, serve and builder write their log (bin/log.ts). */
  logFormat: LogFormat;
  /** The gateway's HTTP timeouts (HTTP_HEADERS_TIMEOUT, HTTP_REQUEST_TIMEOUT, HTTP_KEEP_ALIVE_TIMEOUT, in seconds). */
  httpTimeouts: HttpTimeouts;
}

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

/** Variables of later production backends: refused rather than silently ignored. */
const NOT_YET_SUPPORTED = ['REDIS_URL', 'S3_ENDPOINT', 'CLOUDFRONT_DISTRIBUTION_ID', 'SNAPSHOT_CDN_URL'] as const;

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

  const home = resolve(cwd, text('MARQUEE_HOME') ?? 'var');

  const databaseUrl = text('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }

  const platformSchema = text('PLATFORM_SCHEMA') ?? DEFAULT_PLATFORM_SCHEMA;
  if (!/^[a-z_][a-z0-9_]*$/.test(platformSchema)) {
    problems.push(`PLATFORM_SCHEMA must be a plain lower-case identifier, got ${JSON.stringify(platformSchema)}`);
  }

  const storeSetting = text('SNAPSHOT_STORE');
  if (storeSetting?.startsWith('s3://')) {
    problems.push('SNAPSHOT_STORE: s3:// stores are not available in this version; use a directory path');
  }
  const snapshotStore = resolve(cwd, storeSetting ?? resolve(home, 'snapshots'));

  const platformPublicUrl = (text('PLATFORM_PUBLIC_URL') ?? DEFAULT_PUBLIC_BASE_URL).replace(/\/+$/, '');
  if (!isHttpUrl(platformPublicUrl)) {
    problems.push(`PLATFORM_PUBLIC_URL must be an absolute http(s) URL, got ${JSON.stringify(env.PLATFORM_PUBLIC_URL)}`);
  }

  const buildSchedule = text('BUILD_SCHEDULE') ?? '*/5 * * * *';
  if (!cron.validate(buildSchedule)) {
    problems.push(`BUILD_SCHEDULE must be a cron expression (e.g. "*/5 * * * *"), got ${JSON.stringify(buildSchedule)}`);
  }

  const httpTimeouts: HttpTimeouts = {
    headersMs: seconds('HTTP_HEADERS_TIMEOUT', DEFAULT_HTTP_TIMEOUTS.headersMs),
    requestMs: seconds('HTTP_REQUEST_TIMEOUT', DEFAULT_HTTP_TIMEOUTS.requestMs),
    keepAliveMs: seconds('HTTP_KEEP_ALIVE_TIMEOUT', DEFAULT_HTTP_TIMEOUTS.keepAliveMs),
  };
  // Node refuses a headers timeout longer than the request timeout.
  if (httpTimeouts.headersMs > httpTimeouts.requestMs) problems.push('HTTP_HEADERS_TIMEOUT must not be longer than HTTP_REQUEST_TIMEOUT');

  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  if (!trustProxy.ok) problems.push(`TRUST_PROXY: ${trustProxy.problem}`);

  let logFormat: LogFormat = terminal ? 'pretty' : 'json';
  const logFormatSetting = text('LOG_FORMAT');
  if (logFormatSetting !== undefined) {
    const known = LOG_FORMATS.find((format) => format === logFormatSetting);
    if (known) logFormat = known;
    else problems.push(`LOG_FORMAT must be json or pretty, got ${JSON.stringify(logFormatSetting)}`);
  }

  for (const name of NOT_YET_SUPPORTED) {
    if (text(name) !== undefined) problems.push(`${name} is set, but this version has no backend for it yet; unset it`);
  }

  const config: Config = {
    home,
    databaseUrl,
    platformSchema,
    snapshotStore,
    port: port('PORT', 8080),
    adminPort: port('ADMIN_PORT', 8081),
    adminToken: text('ADMIN_TOKEN'),
    platformPublicUrl,
    buildSchedule,
    trustProxy: trustProxy.ok ? trustProxy.value : false,
    httpTimeouts,
    logFormat,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
