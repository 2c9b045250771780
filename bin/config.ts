// Configuration (docs/design.md "Process model and configuration"): read from the environment once at
// start-up, validated, and refused with one message that names every bad variable, before the
// command makes or changes anything.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import cron from 'node-cron';
import { DEFAULT_PUBLIC_BASE_URL } from '../builder/defaults.ts';
import { DEFAULT_MARQUEE_SCHEMA, DEFAULT_PLATFORM_SCHEMA } from '../records/database/schemas.ts';
import { DEFAULT_EMBEDDED_TIMEOUTS, type SessionTimeouts } from '../records/database/embedded-timeouts.ts';
import { DEFAULT_KEEP, DEFAULT_RETENTION_DAYS } from '../builder/retention.ts';
import { parseTrustProxy, type TrustProxy } from '../gateway/access/client-address.ts';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from '../gateway/http-timeouts.ts';
import { DEFAULT_CACHE_BYTES, MIN_CACHE_MB } from '../gateway/cache-budget.ts';
import { DEFAULT_PIN_WINDOW_MS } from '../gateway/snapshot-cache/pin-window.ts';
import { MOVE_INTERVAL_MS } from '../gateway/usage/usage-mover.ts';
import { parseDurationMs } from '../runtime/duration.ts';
import { EXIT_USAGE, OperatorError } from '../runtime/errors.ts';
import type { StoreLocation } from '../snapshot/store.ts';
import { parseStoreSetting } from '../snapshot/stores/store-backends.ts';
import { isHttpUrl } from '../runtime/http-url.ts';
import { DEFAULT_DISABLE_AFTER_MS, DEFAULT_RETRY_DELAYS_MS, type WebhookPolicy } from '../builder/webhooks/webhook-policy.ts';
import { signerFromPem } from '../snapshot/signing.ts';
import { CODINGS, type Coding, STORED_CODINGS } from '../snapshot/codings.ts';
import { publicationLogOrigin } from '../records/publication-log/checkpoint.ts';

export interface Config {
  home: string;
  databaseUrl: string | undefined;
  platformSchema: string;
  /** MARQUEE_SCHEMA: where Marquee keeps its own relations in the platform database (records/schema/). */
  marqueeSchema: string;
  /** Where snapshots are published and read from (SNAPSHOT_STORE and its backend's variables: snapshot/stores/store-backends.ts). */
  snapshotStore: StoreLocation;
  /** SNAPSHOT_CDN_URL: gateways read manifests and objects through this HTTP base. */
  snapshotCdnUrl: string | undefined;
  /**
   * SNAPSHOT_SIGNING_KEY: the PKCS#8 PEM file of the Ed25519 key builds sign history with
   * (`generate`: made there on first use, for a directory store under MARQUEE_HOME); 'none': the
   * operator's opt-out, history unsigned; 'missing': unset where no key may be made up, an s3://
   * store that several builders share, which a build refuses to start with (bin/signing-key.ts).
   */
  signingKey: { file: string; generate: boolean } | 'none' | 'missing';
  /**
   * SNAPSHOT_CODINGS: the compressed forms a build stores beside each object worth coding
   * (snapshot/codings.ts), which gateways and the CDN serve as they are; [] (`none`): the JSON alone.
   */
  snapshotCodings: readonly Coding[];
  /**
   * PUBLICATION_LOG_ORIGIN: the origin (and key name) of the publication log's checkpoints
   * (records/publication-log/checkpoint.ts). Unset: made of SNAPSHOT_CDN_URL, else of the store's
   * location (s3://bucket/prefix, or the directory's path), "/publication-log" added. It must never
   * change over the log's life. A string saying why there is none when the location cannot make one
   * (a path with a space): checkpoints are then refused until it is set.
   */
  publicationLogOrigin: string | { problem: string };
  /** CLOUDFRONT_DISTRIBUTION_ID: each publish invalidates the changed pointers there. */
  cloudFrontDistributionId: string | undefined;
  /** REDIS_URL: keys, rate limits, the publish channel and build locks shared by every process. */
  redisUrl: string | undefined;
  port: number;
  /**
   * GATEWAY_HOST: the address the gateway listens on; undefined: the command's own default, loopback
   * for `start` (a demo on one machine), every interface for `serve` (behind a load balancer).
   */
  gatewayHost: string | undefined;
  /** ADMIN_PORT: the admin API and console (builder, start); /healthz, /readyz and /metrics only (serve). */
  adminPort: number;
  /** ADMIN_HOST: the admin port's address; loopback unless the operator says otherwise. */
  adminHost: string;
  /** ADMIN_TOKEN: required on every admin path but /healthz and /readyz; start generates one when unset. */
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
  /**
   * EMBEDDED_STATEMENT_TIMEOUT, EMBEDDED_IDLE_TRANSACTION_TIMEOUT (seconds): what start's embedded
   * database allows each client of its socket (records/database/embedded-server.ts).
   */
  embeddedTimeouts: SessionTimeouts;
  /** The gateway's HTTP timeouts (HTTP_HEADERS_TIMEOUT, HTTP_REQUEST_TIMEOUT, HTTP_KEEP_ALIVE_TIMEOUT, in seconds). */
  httpTimeouts: HttpTimeouts;
  /** GATEWAY_CACHE_MB: the heap bytes a gateway keeps per organization and per key, all caches together (gateway/cache-budget.ts). */
  gatewayCacheBytes: number;
  /** SNAPSHOT_PIN_SECONDS: how long a snapshot may still be read by a pinned request after it stopped being current (docs/api.md §10); 0: only the current one. */
  snapshotPinMs: number;
  /** WEBHOOK_ALLOW_PRIVATE, WEBHOOK_ALLOW_INSECURE, WEBHOOK_RETRY_SCHEDULE, WEBHOOK_DISABLE_AFTER. */
  webhooks: WebhookPolicy;
  /** USAGE_RETENTION_DAYS: how long usage counts per key are kept (default 90). */
  usageRetentionDays: number;
  /** USAGE_MOVE_SECONDS: how often a gateway moves its usage counts to the shared place (1 to 10, default 10). */
  usageMoveMs: number;
  /**
   * SHUTDOWN_DRAIN_SECONDS: after SIGTERM, how long a process with a gateway (serve, start) answers
   * /readyz 503 while it still serves, before it stops taking connections (bin/shutdown.ts); 0: none.
   */
  shutdownDrainMs: number;
  /**
   * SNAPSHOT_STALE_AFTER: how long a platform change may wait to be built before its organization's
   * snapshot counts as stale (marquee_snapshots_stale); undefined: twice BUILD_SCHEDULE's period.
   */
  snapshotStaleAfterMs: number | undefined;
}

/** Long enough for a load balancer that probes /readyz every 2 s to see two refusals (most take it out after two). */
const DEFAULT_DRAIN_SECONDS = 5;
const MAX_DRAIN_SECONDS = 300;

const DAY_MS = 24 * 60 * 60 * 1000;
/** Three months of usage per key: long enough to see who still uses a key before it is revoked. */
const DEFAULT_USAGE_RETENTION_DAYS = 90;
const MB = 1024 * 1024;

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

/**
 * What the command about to run does, for the checks only it needs, made here with every other
 * bad variable before the command has made a database, a token or a snapshot.
 */
export interface ConfigNeeds {
  /** It builds and publishes (start, builder, build), signing what it publishes: SNAPSHOT_SIGNING_KEY must give a key it can sign with. */
  builds?: boolean;
  /** It serves the gateway on PORT and the admin port on ADMIN_PORT (start, serve): they cannot be one port. */
  serves?: boolean;
}

/** `terminal`: whether stdout is one, which decides the log's format when LOG_FORMAT is unset. */
export function parseConfig(env: NodeJS.ProcessEnv, cwd = process.cwd(), terminal = process.stdout.isTTY === true, needs: ConfigNeeds = {}): Config {
  const settings = new Settings(env);
  // Read in this order, so the problems are listed in it.
  const home = resolve(cwd, settings.text('MARQUEE_HOME') ?? 'var');
  const database = databaseSettings(settings);
  const embeddedTimeouts: SessionTimeouts = {
    statementMs: settings.seconds('EMBEDDED_STATEMENT_TIMEOUT', DEFAULT_EMBEDDED_TIMEOUTS.statementMs),
    idleInTransactionMs: settings.seconds('EMBEDDED_IDLE_TRANSACTION_TIMEOUT', DEFAULT_EMBEDDED_TIMEOUTS.idleInTransactionMs),
  };
  const { snapshotStore, ...snapshotReading } = snapshotSettings(settings, home, cwd);
  const signingKey = signingKeySetting(settings, home, cwd, snapshotStore);
  const snapshotCodings = codingsSetting(settings);
  const publicationLogOrigin = publicationLogOriginSetting(settings, snapshotStore, snapshotReading.snapshotCdnUrl);
  const signing = needs.builds && snapshotStore !== undefined ? signingKeyProblem(signingKey) : undefined;
  if (signing !== undefined) settings.problem(signing);
  const redisUrl = redisSetting(settings);
  const builds = buildSettings(settings);
  const webhooks = webhookPolicy(settings);
  const httpTimeouts = httpTimeoutSettings(settings);
  const gatewayCacheBytes = settings.megabytes('GATEWAY_CACHE_MB', DEFAULT_CACHE_BYTES, MIN_CACHE_MB);
  const snapshotPinMs = settings.wholeNumber('SNAPSHOT_PIN_SECONDS', DEFAULT_PIN_WINDOW_MS / 1000, 0) * 1000;
  const retention = retentionSettings(settings);
  const usageRetentionDays = settings.wholeNumber('USAGE_RETENTION_DAYS', DEFAULT_USAGE_RETENTION_DAYS, 1);
  const usageMoveMs = usageMoveSetting(settings);
  const shutdownDrainMs = drainSetting(settings);
  const snapshotStaleAfterMs = settings.text('SNAPSHOT_STALE_AFTER') === undefined ? undefined : settings.duration('SNAPSHOT_STALE_AFTER', 0);
  const admin = adminSettings(settings);
  const gatewayHost = gatewayHostSetting(settings);
  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  if (!trustProxy.ok) settings.problem(`TRUST_PROXY: ${trustProxy.problem}`);
  const logFormat = logFormatSetting(settings, terminal);
  const problemsBefore = settings.problems.length;
  const ports = { port: settings.port('PORT', 8080), adminPort: settings.port('ADMIN_PORT', 8081) };
  // Compared only as given (a bad one stands in as its default); 0 is any free port, each its own.
  const portsRead = settings.problems.length === problemsBefore;
  if (needs.serves && portsRead && ports.port === ports.adminPort && ports.port !== 0) settings.problem(`PORT and ADMIN_PORT must be two ports, both are ${ports.port}`);
  // No store without a problem naming SNAPSHOT_STORE.
  if (settings.problems.length > 0 || snapshotStore === undefined) throw new ConfigError(settings.problems);
  return {
    home,
    ...database,
    embeddedTimeouts,
    snapshotStore,
    ...snapshotReading,
    signingKey,
    snapshotCodings,
    publicationLogOrigin,
    redisUrl,
    ...ports,
    gatewayHost,
    ...admin,
    retention,
    ...builds,
    trustProxy: trustProxy.ok ? trustProxy.value : false,
    httpTimeouts,
    gatewayCacheBytes,
    snapshotPinMs,
    logFormat,
    webhooks,
    usageRetentionDays,
    usageMoveMs,
    shutdownDrainMs,
    snapshotStaleAfterMs,
  };
}

/** SHUTDOWN_DRAIN_SECONDS: whole seconds, 0 (no drain: tests, a process behind no load balancer) to MAX_DRAIN_SECONDS. */
function drainSetting(settings: Settings): number {
  const seconds = settings.wholeNumber('SHUTDOWN_DRAIN_SECONDS', DEFAULT_DRAIN_SECONDS, 0);
  if (seconds <= MAX_DRAIN_SECONDS) return seconds * 1000;
  settings.problem(`SHUTDOWN_DRAIN_SECONDS must be at most ${MAX_DRAIN_SECONDS}, got ${seconds}`);
  return DEFAULT_DRAIN_SECONDS * 1000;
}

/** USAGE_MOVE_SECONDS: at most 10, what a killed gateway can lose of its counts (docs/reliability.md). */
function usageMoveSetting(settings: Settings): number {
  const seconds = settings.wholeNumber('USAGE_MOVE_SECONDS', MOVE_INTERVAL_MS / 1000, 1);
  if (seconds <= MOVE_INTERVAL_MS / 1000) return seconds * 1000;
  settings.problem(`USAGE_MOVE_SECONDS must be at most ${MOVE_INTERVAL_MS / 1000}, got ${seconds}`);
  return MOVE_INTERVAL_MS;
}

/**
 * The environment, read one variable at a time: a value that is not what its variable takes is
 * recorded as a problem naming the variable, and the default stands in for it, so that every bad
 * variable is named at once.
 */
class Settings {
  readonly problems: string[] = [];
  constructor(readonly env: NodeJS.ProcessEnv) {}

  problem(message: string): void {
    this.problems.push(message);
  }

  /** Trimmed; unset and blank alike are undefined. */
  text(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  port(name: string, fallback: number): number {
    const value = this.text(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!/^\d+$/.test(value) || n > 65535) {
      this.problem(`${name} must be a TCP port number (0-65535), got ${JSON.stringify(value)}`);
      return fallback;
    }
    return n;
  }

  /** Seconds, fractions allowed, above 0 and at most an hour; in milliseconds. */
  seconds(name: string, fallbackMs: number): number {
    const value = this.text(name);
    if (value === undefined) return fallbackMs;
    if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0 || Number(value) > 3600) {
      this.problem(`${name} must be a number of seconds above 0 and at most 3600, got ${JSON.stringify(value)}`);
      return fallbackMs;
    }
    return Math.round(Number(value) * 1000);
  }

  /** A duration (runtime/duration.ts) from 1s to 365d; in milliseconds. */
  duration(name: string, fallbackMs: number): number {
    const value = this.text(name);
    if (value === undefined) return fallbackMs;
    const ms = configDurationMs(value);
    if (ms === undefined) {
      this.problem(`${name} must be a whole number followed by s, m, h or d (e.g. 24h), from 1s to 365d, got ${JSON.stringify(value)}`);
      return fallbackMs;
    }
    return ms;
  }

  /** Up to 20 durations separated by commas (WEBHOOK_RETRY_SCHEDULE: the delay before each retry). */
  durations(name: string, fallback: readonly number[]): readonly number[] {
    const value = this.text(name);
    if (value === undefined) return fallback;
    const items = value.split(',').map((item) => configDurationMs(item.trim()));
    if (items.length > 20 || items.some((ms) => ms === undefined)) {
      this.problem(`${name} must be up to 20 durations separated by commas, each a whole number followed by s, m, h or d (e.g. 5s,5m,30m), got ${JSON.stringify(value)}`);
      return fallback;
    }
    return items as number[];
  }

  /** `1`: on; unset, empty or `0`: off. */
  flag(name: string): boolean {
    const value = this.text(name);
    if (value === undefined || value === '0') return false;
    if (value !== '1') this.problem(`${name} must be 1 (on) or 0 (off), got ${JSON.stringify(value)}`);
    return value === '1';
  }

  /** A whole number of megabytes (MiB) from `minMb` to 1,000,000; in bytes. */
  megabytes(name: string, fallbackBytes: number, minMb: number): number {
    const value = this.text(name);
    if (value === undefined) return fallbackBytes;
    if (!/^\d+$/.test(value) || Number(value) < minMb || Number(value) > 1_000_000) {
      this.problem(`${name} must be a whole number of megabytes from ${minMb} to 1000000, got ${JSON.stringify(value)}`);
      return fallbackBytes;
    }
    return Number(value) * MB;
  }

  wholeNumber(name: string, fallback: number, min: number): number {
    const value = this.text(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > 1_000_000) {
      this.problem(`${name} must be a whole number from ${min} to 1000000, got ${JSON.stringify(value)}`);
      return fallback;
    }
    return Number(value);
  }
}

/** A duration of at least a second and at most 365 days, as every duration variable takes. */
function configDurationMs(value: string): number | undefined {
  const ms = parseDurationMs(value);
  return ms === undefined || ms < 1000 || ms > 365 * DAY_MS ? undefined : ms;
}

/** DATABASE_URL, PLATFORM_SCHEMA. */
function databaseSettings(settings: Settings): Pick<Config, 'databaseUrl' | 'platformSchema' | 'marqueeSchema'> {
  const databaseUrl = settings.text('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) settings.problem('DATABASE_URL must be a postgres:// or postgresql:// URL');
  const platformSchema = settings.text('PLATFORM_SCHEMA') ?? DEFAULT_PLATFORM_SCHEMA;
  if (!/^[a-z_][a-z0-9_]*$/.test(platformSchema)) settings.problem(`PLATFORM_SCHEMA must be a plain lower-case identifier, got ${JSON.stringify(platformSchema)}`);
  // PostgreSQL keeps pg_* schema names for itself, and 63 bytes is its longest name.
  const marqueeSchema = settings.text('MARQUEE_SCHEMA') ?? DEFAULT_MARQUEE_SCHEMA;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(marqueeSchema) || marqueeSchema.startsWith('pg_')) {
    settings.problem(`MARQUEE_SCHEMA must be a plain lower-case identifier of up to 63 characters, not starting with pg_, got ${JSON.stringify(marqueeSchema)}`);
  }
  return { databaseUrl, platformSchema, marqueeSchema };
}

/** SNAPSHOT_STORE and its backend's variables, SNAPSHOT_CDN_URL, CLOUDFRONT_DISTRIBUTION_ID; no store when SNAPSHOT_STORE itself is at fault. */
function snapshotSettings(
  settings: Settings,
  home: string,
  cwd: string,
): { snapshotStore: StoreLocation | undefined } & Pick<Config, 'snapshotCdnUrl' | 'cloudFrontDistributionId'> {
  const { location: snapshotStore, problems } = parseStoreSetting(settings.text('SNAPSHOT_STORE'), resolve(home, 'snapshots'), { env: settings.env, cwd });
  for (const problem of problems) settings.problem(problem);

  const snapshotCdnUrl = settings.text('SNAPSHOT_CDN_URL')?.replace(/\/+$/, '');
  if (snapshotCdnUrl !== undefined && !isHttpUrl(snapshotCdnUrl)) settings.problem(`SNAPSHOT_CDN_URL must be an absolute http(s) URL, got ${JSON.stringify(snapshotCdnUrl)}`);

  const cloudFrontDistributionId = settings.text('CLOUDFRONT_DISTRIBUTION_ID');
  if (cloudFrontDistributionId !== undefined) {
    if (!DISTRIBUTION_ID.test(cloudFrontDistributionId)) {
      settings.problem(`CLOUDFRONT_DISTRIBUTION_ID must be a distribution id (upper-case letters and digits), got ${JSON.stringify(cloudFrontDistributionId)}`);
    }
    // CloudFront fronts a bucket: only a store with a CDN prefix can have its paths invalidated.
    if (snapshotStore !== undefined && snapshotStore.cdnPrefix === undefined) settings.problem('CLOUDFRONT_DISTRIBUTION_ID is set, but SNAPSHOT_STORE is not an s3:// store');
  }
  return { snapshotStore, snapshotCdnUrl, cloudFrontDistributionId };
}

/** PUBLICATION_LOG_ORIGIN, given (checked as a note's key name) or made of where readers reach the store. */
function publicationLogOriginSetting(settings: Settings, store: StoreLocation | undefined, cdnUrl: string | undefined): Config['publicationLogOrigin'] {
  const value = settings.text('PUBLICATION_LOG_ORIGIN');
  if (value !== undefined) {
    if (/[\s+\p{Cc}]/u.test(value)) settings.problem(`PUBLICATION_LOG_ORIGIN must hold no space, plus sign or control character, got ${JSON.stringify(value)}`);
    return value;
  }
  try {
    return publicationLogOrigin(cdnUrl ?? store?.description ?? '');
  } catch (error) {
    return { problem: `${(error as Error).message}; set PUBLICATION_LOG_ORIGIN` };
  }
}

/**
 * SNAPSHOT_SIGNING_KEY. Unset, a directory store (one machine) signs with a key made once under
 * MARQUEE_HOME; an s3:// store is the production shape, where every builder must sign with the
 * same key (docs/design.md "History as evidence"), so none is made up for it.
 */
function signingKeySetting(settings: Settings, home: string, cwd: string, store: StoreLocation | undefined): Config['signingKey'] {
  const value = settings.text('SNAPSHOT_SIGNING_KEY');
  if (value === 'none') return 'none';
  if (value !== undefined) return { file: resolve(cwd, value), generate: false };
  return store === undefined || store.backend === 'directory' ? { file: resolve(home, 'signing-key.pem'), generate: true } : 'missing';
}

/**
 * Why a build could not sign with the key SNAPSHOT_SIGNING_KEY gives, naming the variable;
 * undefined when it can: `none` (unsigned, on purpose), a readable Ed25519 private key, or the key
 * a directory store makes under MARQUEE_HOME at its first build.
 */
export function signingKeyProblem(setting: Config['signingKey']): string | undefined {
  if (setting === 'none') return undefined;
  if (setting === 'missing') {
    return (
      'SNAPSHOT_SIGNING_KEY is not set: builders publishing to an s3:// store sign history with one key they all share. ' +
      'Make one with `marquee signing-key create FILE`, give every builder the file and set SNAPSHOT_SIGNING_KEY to its path ' +
      '(or SNAPSHOT_SIGNING_KEY=none to publish history unsigned, which `marquee verify` then reports)'
    );
  }
  const where = setting.generate ? `the signing key ${setting.file} (SNAPSHOT_SIGNING_KEY unset)` : `SNAPSHOT_SIGNING_KEY (${setting.file})`;
  let pem: string;
  try {
    pem = readFileSync(setting.file, 'utf8');
  } catch (error) {
    // A path through a file (ENOTDIR) names nothing there either; under a MARQUEE_HOME that cannot be made, that is the home's to say.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES')
      return `${where} cannot be read by this account: give it the file's group, read-only (chgrp GROUP FILE && chmod 0640 FILE, or make it with marquee signing-key create --group GROUP FILE)`;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return `${where} cannot be read: ${(error as Error).message}`;
    return setting.generate ? undefined : `${where} does not exist (make one with: marquee signing-key create FILE)`;
  }
  try {
    signerFromPem(pem, where);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * SNAPSHOT_CODINGS: gzip alone (the default, STORED_CODINGS), both codings (brotli's forms are
 * smaller, for twice the full build's CPU), or none. Not brotli alone: every client that accepts br
 * accepts gzip too, not the other way round, so it would leave the gzip-only clients without a
 * stored form.
 */
const CODING_CHOICES: ReadonlyMap<string, readonly Coding[]> = new Map<string, readonly Coding[]>([
  [CODINGS.join(','), CODINGS],
  ['gzip', ['gzip']],
  ['none', []],
]);

function codingsSetting(settings: Settings): readonly Coding[] {
  const value = settings.text('SNAPSHOT_CODINGS')?.replace(/\s*,\s*/g, ',');
  if (value === undefined) return STORED_CODINGS;
  const codings = CODING_CHOICES.get(value);
  if (codings !== undefined) return codings;
  const choices = [...CODING_CHOICES.keys()].map((choice) => JSON.stringify(choice));
  settings.problem(
    `SNAPSHOT_CODINGS must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)} (the compressed forms a build stores beside each object), got ${JSON.stringify(value)}`,
  );
  return STORED_CODINGS;
}

function redisSetting(settings: Settings): string | undefined {
  const redisUrl = settings.text('REDIS_URL');
  if (redisUrl !== undefined && !isRedisUrl(redisUrl)) settings.problem('REDIS_URL must be a redis:// or rediss:// URL');
  return redisUrl;
}

/** PLATFORM_PUBLIC_URL, BUILD_SCHEDULE, FULL_BUILD_EVERY, BUILDER_NAME. */
function buildSettings(settings: Settings): Pick<Config, 'platformPublicUrl' | 'buildSchedule' | 'fullBuildEveryMs' | 'builderName'> {
  const platformPublicUrl = (settings.text('PLATFORM_PUBLIC_URL') ?? DEFAULT_PUBLIC_BASE_URL).replace(/\/+$/, '');
  if (!isHttpUrl(platformPublicUrl)) settings.problem(`PLATFORM_PUBLIC_URL must be an absolute http(s) URL, got ${JSON.stringify(settings.env.PLATFORM_PUBLIC_URL)}`);

  const buildSchedule = settings.text('BUILD_SCHEDULE') ?? '*/5 * * * *';
  if (!cron.validate(buildSchedule)) settings.problem(`BUILD_SCHEDULE must be a cron expression (e.g. "*/5 * * * *"), got ${JSON.stringify(buildSchedule)}`);

  return {
    platformPublicUrl,
    buildSchedule,
    fullBuildEveryMs: settings.duration('FULL_BUILD_EVERY', DAY_MS),
    builderName: settings.text('BUILDER_NAME') ?? `${hostname()}:${process.pid}`,
  };
}

/** WEBHOOK_ALLOW_PRIVATE, WEBHOOK_ALLOW_INSECURE, WEBHOOK_RETRY_SCHEDULE, WEBHOOK_DISABLE_AFTER. */
function webhookPolicy(settings: Settings): WebhookPolicy {
  return {
    allowPrivate: settings.flag('WEBHOOK_ALLOW_PRIVATE'),
    allowInsecure: settings.flag('WEBHOOK_ALLOW_INSECURE'),
    retryDelaysMs: settings.durations('WEBHOOK_RETRY_SCHEDULE', DEFAULT_RETRY_DELAYS_MS),
    disableAfterMs: settings.duration('WEBHOOK_DISABLE_AFTER', DEFAULT_DISABLE_AFTER_MS),
  };
}

/** HTTP_HEADERS_TIMEOUT, HTTP_REQUEST_TIMEOUT, HTTP_KEEP_ALIVE_TIMEOUT. */
function httpTimeoutSettings(settings: Settings): HttpTimeouts {
  const httpTimeouts: HttpTimeouts = {
    headersMs: settings.seconds('HTTP_HEADERS_TIMEOUT', DEFAULT_HTTP_TIMEOUTS.headersMs),
    requestMs: settings.seconds('HTTP_REQUEST_TIMEOUT', DEFAULT_HTTP_TIMEOUTS.requestMs),
    keepAliveMs: settings.seconds('HTTP_KEEP_ALIVE_TIMEOUT', DEFAULT_HTTP_TIMEOUTS.keepAliveMs),
  };
  // Node refuses a headers timeout longer than the request timeout.
  if (httpTimeouts.headersMs > httpTimeouts.requestMs) settings.problem('HTTP_HEADERS_TIMEOUT must not be longer than HTTP_REQUEST_TIMEOUT');
  return httpTimeouts;
}

/** SNAPSHOT_RETENTION, SNAPSHOT_RETENTION_DAYS. */
function retentionSettings(settings: Settings): Config['retention'] {
  return { keep: settings.wholeNumber('SNAPSHOT_RETENTION', DEFAULT_KEEP, 1), days: settings.wholeNumber('SNAPSHOT_RETENTION_DAYS', DEFAULT_RETENTION_DAYS, 0) };
}

/** ADMIN_HOST, ADMIN_TOKEN (ADMIN_PORT is read with PORT). */
function adminSettings(settings: Settings): Pick<Config, 'adminHost' | 'adminToken'> {
  const adminHost = settings.text('ADMIN_HOST') ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:-]+$/.test(adminHost)) settings.problem(`ADMIN_HOST must be a host name or an IP address, got ${JSON.stringify(adminHost)}`);
  const adminToken = settings.text('ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 16) settings.problem('ADMIN_TOKEN must be at least 16 characters (e.g. openssl rand -hex 32)');
  return { adminHost, adminToken };
}

/**
 * GATEWAY_HOST: an IP address (an IPv6 one with or without its brackets) or a host name, as
 * listen() takes it; whether this machine has it is known only when the gateway binds it.
 */
function gatewayHostSetting(settings: Settings): string | undefined {
  const value = settings.text('GATEWAY_HOST');
  if (value === undefined) return undefined;
  const unbracketed = value.replace(/^\[(.*)\]$/, '$1');
  if (isIP(unbracketed) !== 0 || HOST_NAME.test(value)) return unbracketed;
  settings.problem(`GATEWAY_HOST must be an IP address or a host name (127.0.0.1, 0.0.0.0, ::1, ::, localhost), got ${JSON.stringify(value)}`);
  return undefined;
}

/** Dot-separated labels of letters, digits and inner hyphens (RFC 1123), 253 characters at most. */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

function logFormatSetting(settings: Settings, terminal: boolean): LogFormat {
  const setting = settings.text('LOG_FORMAT');
  if (setting === undefined) return terminal ? 'pretty' : 'json';
  const known = LOG_FORMATS.find((format) => format === setting);
  if (known) return known;
  settings.problem(`LOG_FORMAT must be json or pretty, got ${JSON.stringify(setting)}`);
  return terminal ? 'pretty' : 'json';
}

function isRedisUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
  } catch {
    return false;
  }
}
