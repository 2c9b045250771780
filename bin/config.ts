// Configuration (docs/configuration.md, docs/design.md "Process model and configuration"): read
// from the environment once at start-up through the table of every variable
// (bin/config/variables.ts), validated, and refused with one message that names every bad
// variable, before the command makes or changes anything.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { WebhookPolicy } from '../builder/webhooks/webhook-policy.ts';
import type { TrustProxy } from '../gateway/access/client-address.ts';
import type { HttpTimeouts } from '../gateway/http-timeouts.ts';
import type { SessionTimeouts } from '../records/database/embedded-timeouts.ts';
import { publicationLogOrigin } from '../records/publication-log/checkpoint.ts';
import { EXIT_USAGE, OperatorError } from '../runtime/errors.ts';
import type { Coding } from '../snapshot/codings.ts';
import { signerFromPem } from '../snapshot/signing.ts';
import type { StoreLocation } from '../snapshot/store.ts';
import { parseStoreSetting } from '../snapshot/stores/store-backends.ts';
import { Refusal } from './config/kinds.ts';
import type { Setting } from './config/variable.ts';
import { type LogFormat, VARIABLES } from './config/variables.ts';

/** The configuration every command runs with; each variable's default and meaning: bin/config/variables.ts. */
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
  /** FULL_BUILD_EVERY: every organization is built in full at least this often, whatever its source version says */
  fullBuildEveryMs: number;
  /** BUILDER_NAME: how this builder names itself where builders share work (which one ran a scheduled build). */
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
  /** USAGE_RETENTION_DAYS: how long usage counts per key are kept. */
  usageRetentionDays: number;
  /** USAGE_MOVE_SECONDS: how often a gateway moves its usage counts to the shared place. */
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

/** Exit status 2, like a wrong command line: nothing was attempted. */
export class ConfigError extends OperatorError {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`, { exitCode: EXIT_USAGE });
  }
}

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

/**
 * Every variable of the table (bin/config/variables.ts) through its kind and fallback, then the
 * defaults made of other settings and the checks of settings that cannot go together.
 * `terminal`: whether stdout is one, which decides the log's format when LOG_FORMAT is unset.
 */
export function parseConfig(env: NodeJS.ProcessEnv, cwd = process.cwd(), terminal = process.stdout.isTTY === true, needs: ConfigNeeds = {}): Config {
  const settings = new Settings(env);
  const read = settings.read.bind(settings);
  const v = VARIABLES;
  // Read in this order, so the problems are listed in it.
  const home = resolve(cwd, read(v.MARQUEE_HOME));
  const databaseUrl = read(v.DATABASE_URL);
  const platformSchema = read(v.PLATFORM_SCHEMA);
  const marqueeSchema = read(v.MARQUEE_SCHEMA);
  const embeddedTimeouts: SessionTimeouts = { statementMs: read(v.EMBEDDED_STATEMENT_TIMEOUT), idleInTransactionMs: read(v.EMBEDDED_IDLE_TRANSACTION_TIMEOUT) };
  const store = parseStoreSetting(read(v.SNAPSHOT_STORE), resolve(home, 'snapshots'), { env, cwd });
  settings.problems.push(...store.problems);
  const snapshotStore = store.location;
  const snapshotCdnUrl = read(v.SNAPSHOT_CDN_URL);
  const cloudFrontDistributionId = read(v.CLOUDFRONT_DISTRIBUTION_ID);
  // CloudFront fronts a bucket: only a store with a CDN prefix can have its paths invalidated.
  if (settings.given(v.CLOUDFRONT_DISTRIBUTION_ID) && snapshotStore !== undefined && snapshotStore.cdnPrefix === undefined) {
    settings.problem('CLOUDFRONT_DISTRIBUTION_ID is set, but SNAPSHOT_STORE is not an s3:// store');
  }
  const signingKey = signingKeySetting(read(v.SNAPSHOT_SIGNING_KEY), home, cwd, snapshotStore);
  const snapshotCodings = read(v.SNAPSHOT_CODINGS);
  const publicationLogOrigin = read(v.PUBLICATION_LOG_ORIGIN) ?? originOf(snapshotCdnUrl ?? snapshotStore?.description ?? '');
  const signing = needs.builds && snapshotStore !== undefined ? signingKeyProblem(signingKey) : undefined;
  if (signing !== undefined) settings.problem(signing);
  const redisUrl = read(v.REDIS_URL);
  const platformPublicUrl = read(v.PLATFORM_PUBLIC_URL);
  const buildSchedule = read(v.BUILD_SCHEDULE);
  const fullBuildEveryMs = read(v.FULL_BUILD_EVERY);
  const builderName = read(v.BUILDER_NAME) ?? `${hostname()}:${process.pid}`;
  const webhooks: WebhookPolicy = {
    allowPrivate: read(v.WEBHOOK_ALLOW_PRIVATE),
    allowInsecure: read(v.WEBHOOK_ALLOW_INSECURE),
    retryDelaysMs: read(v.WEBHOOK_RETRY_SCHEDULE),
    disableAfterMs: read(v.WEBHOOK_DISABLE_AFTER),
  };
  const httpTimeouts: HttpTimeouts = { headersMs: read(v.HTTP_HEADERS_TIMEOUT), requestMs: read(v.HTTP_REQUEST_TIMEOUT), keepAliveMs: read(v.HTTP_KEEP_ALIVE_TIMEOUT) };
  // Node refuses a headers timeout longer than the request timeout.
  if (httpTimeouts.headersMs > httpTimeouts.requestMs) settings.problem('HTTP_HEADERS_TIMEOUT must not be longer than HTTP_REQUEST_TIMEOUT');
  const gatewayCacheBytes = read(v.GATEWAY_CACHE_MB);
  const snapshotPinMs = read(v.SNAPSHOT_PIN_SECONDS);
  const retention = { keep: read(v.SNAPSHOT_RETENTION), days: read(v.SNAPSHOT_RETENTION_DAYS) };
  const usageRetentionDays = read(v.USAGE_RETENTION_DAYS);
  const usageMoveMs = read(v.USAGE_MOVE_SECONDS);
  const shutdownDrainMs = read(v.SHUTDOWN_DRAIN_SECONDS);
  const snapshotStaleAfterMs = read(v.SNAPSHOT_STALE_AFTER);
  const adminHost = read(v.ADMIN_HOST);
  const adminToken = read(v.ADMIN_TOKEN);
  const gatewayHost = read(v.GATEWAY_HOST);
  const trustProxy = read(v.TRUST_PROXY);
  const logFormat = read(v.LOG_FORMAT) ?? (terminal ? 'pretty' : 'json');
  const problemsBefore = settings.problems.length;
  const ports = { port: read(v.PORT), adminPort: read(v.ADMIN_PORT) };
  // Compared only as given (a bad one stands in as its default); 0 is any free port, each its own.
  const portsRead = settings.problems.length === problemsBefore;
  if (needs.serves && portsRead && ports.port === ports.adminPort && ports.port !== 0) settings.problem(`PORT and ADMIN_PORT must be two ports, both are ${ports.port}`);
  // No store without a problem naming SNAPSHOT_STORE.
  if (settings.problems.length > 0 || snapshotStore === undefined) throw new ConfigError(settings.problems);
  return {
    home,
    databaseUrl,
    platformSchema,
    marqueeSchema,
    embeddedTimeouts,
    snapshotStore,
    snapshotCdnUrl,
    cloudFrontDistributionId,
    signingKey,
    snapshotCodings,
    publicationLogOrigin,
    redisUrl,
    ...ports,
    gatewayHost,
    adminHost,
    adminToken,
    retention,
    platformPublicUrl,
    buildSchedule,
    fullBuildEveryMs,
    builderName,
    trustProxy,
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

/**
 * The environment, read one variable of the table at a time: a value its kind refuses is recorded
 * as a problem naming the variable, and the fallback stands in for it, so that every bad variable
 * is named at once.
 */
class Settings {
  readonly problems: string[] = [];
  constructor(readonly env: NodeJS.ProcessEnv) {}

  problem(message: string): void {
    this.problems.push(message);
  }

  /** Set to more than blanks (a blank variable is an unset one). */
  given(variable: { name: string }): boolean {
    return (this.env[variable.name]?.trim() ?? '') !== '';
  }

  read<T, F extends T | undefined>(variable: Setting<T, F> & { name: string }): T | F {
    const raw = this.env[variable.name];
    if (raw === undefined || raw.trim() === '') return variable.fallback;
    const value = variable.kind.parse(raw.trim(), variable.name, raw);
    if (!(value instanceof Refusal)) return value;
    this.problem(value.message);
    return variable.fallback;
  }
}

/** The publication log's origin made of where readers reach the store, or why none can be. */
function originOf(location: string): Config['publicationLogOrigin'] {
  try {
    return publicationLogOrigin(location);
  } catch (error) {
    return { problem: `${(error as Error).message}; set PUBLICATION_LOG_ORIGIN` };
  }
}

/**
 * SNAPSHOT_SIGNING_KEY. Unset, a directory store (one machine) signs with a key made once under
 * MARQUEE_HOME; an s3:// store is the production shape, where every builder must sign with the
 * same key (docs/design.md "History as evidence"), so none is made up for it.
 */
function signingKeySetting(value: string | undefined, home: string, cwd: string, store: StoreLocation | undefined): Config['signingKey'] {
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
