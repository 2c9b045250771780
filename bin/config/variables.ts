// Every environment variable Marquee reads, declared once: what it takes, its default, which
// processes read it and what it chooses. bin/config.ts reads the environment through this table
// (its checks and defaults are these), scripts/config-docs.ts writes docs/configuration.md from it
// in this order, and test/unit/bin/config-table.test.ts fails when code reads a variable it does
// not declare, when the docs are not what the table makes, or when deploy/*.env sets a variable
// for a process that does not read it.
import cron from 'node-cron';
import { DEFAULT_PUBLIC_BASE_URL } from '../../builder/defaults.ts';
import { DEFAULT_KEEP, DEFAULT_RETENTION_DAYS } from '../../builder/retention.ts';
import { DEFAULT_DISABLE_AFTER_MS, DEFAULT_RETRY_DELAYS_MS } from '../../builder/webhooks/webhook-policy.ts';
import { DEFAULT_CACHE_BYTES, MIN_CACHE_MB } from '../../gateway/cache-budget.ts';
import { DEFAULT_HTTP_TIMEOUTS } from '../../gateway/http-timeouts.ts';
import { DEFAULT_PIN_WINDOW_MS } from '../../gateway/snapshot-cache/pin-window.ts';
import { MOVE_INTERVAL_MS } from '../../gateway/usage/usage-mover.ts';
import { DEFAULT_EMBEDDED_TIMEOUTS } from '../../records/database/embedded-timeouts.ts';
import { DEFAULT_MARQUEE_SCHEMA, DEFAULT_PLATFORM_SCHEMA } from '../../records/database/schemas.ts';
import { STORED_CODINGS } from '../../snapshot/codings.ts';
import { DEFAULT_REGION } from '../../snapshot/stores/s3.ts';
import { checked, codings, duration, durations, flag, httpBase, listenHost, megabytes, oneOf, port, seconds, text, trustProxy, wholeNumber } from './kinds.ts';
import { external, type Role, named, setting } from './variable.ts';

const BOTH: readonly Role[] = ['gateway', 'builder'];
const GATEWAY: readonly Role[] = ['gateway'];
const BUILDER: readonly Role[] = ['builder'];

const DAY_MS = 24 * 60 * 60 * 1000;
/** Three months of usage per key: long enough to see who still uses a key before it is revoked. */
const DEFAULT_USAGE_RETENTION_DAYS = 90;
/** Long enough for a load balancer that probes /readyz every 2 s to see two refusals (most take it out after two). */
const DEFAULT_DRAIN_SECONDS = 5;
// CloudFront distribution ids are upper-case letters and digits (e.g. E2QWRUHAPOMQZL).
const DISTRIBUTION_ID = /^[A-Z0-9]{6,32}$/;

const LOG_FORMATS = ['json', 'pretty'] as const;
/** LOG_FORMAT: JSON lines, or readable lines for a person; unset: readable on a terminal. */
export type LogFormat = (typeof LOG_FORMATS)[number];

export const VARIABLES = named({
  MARQUEE_HOME: setting(text, 'var', {
    roles: BOTH,
    default: '`./var`',
    doc: "embedded PGlite database (`platform/`), snapshots, the key file `keys.json`, the demo key, `start`'s admin token, and while `start` runs, which one it is (`start.json`: one `start` per home on the embedded database, [operation.md](operation.md#operation)). Owner-only: made 0700, everything in it 0700/0600, and an existing home with group or other bits is tightened at start-up, with one log line ([reliability.md](reliability.md#what-an-attacker-on-the-machine-can-do))",
  }),
  DATABASE_URL: setting(
    checked((url) => /^postgres(ql)?:\/\//.test(url), 'be a postgres:// or postgresql:// URL', { quote: false }),
    undefined,
    {
      roles: BUILDER,
      default: 'unset: embedded PGlite',
      doc: "the platform's PostgreSQL (`postgres://…`); the relations of [docs/platform.md](platform.md). The embedded database is opened by one process (a lock file names it); while `start` holds it, it runs it in a process of its own, serves it on a Unix socket in the owner-only directory `$MARQUEE_HOME/socket` (no TCP port) and every other command connects there. For several builders, use PostgreSQL",
    },
  ),
  EMBEDDED_STATEMENT_TIMEOUT: setting(seconds, DEFAULT_EMBEDDED_TIMEOUTS.statementMs, {
    roles: BUILDER,
    doc: "seconds: how long one statement may run on `start`'s embedded database (a client may ask for its own `statement_timeout`; `db sql --statement-timeout SECONDS`). PGlite cannot interrupt a statement, so `start` kills the database's process 2 s past the deadline and starts it again (PGlite recovers from its WAL; 3 to 6 s, during which the admin API answers 503 with `Retry-After`)",
  }),
  EMBEDDED_IDLE_TRANSACTION_TIMEOUT: setting(seconds, DEFAULT_EMBEDDED_TIMEOUTS.idleInTransactionMs, {
    roles: BUILDER,
    doc: "seconds: a client of `start`'s embedded database that holds its one session (an open transaction, an unfinished extended-protocol exchange) and sends nothing for this long is disconnected with FATAL 25P03 and rolled back ([design](design.md#process-model-and-configuration)); PGlite ignores PostgreSQL's own setting",
  }),
  PLATFORM_SCHEMA: setting(
    checked((schema) => /^[a-z_][a-z0-9_]*$/.test(schema), 'be a plain lower-case identifier'),
    DEFAULT_PLATFORM_SCHEMA,
    { roles: BUILDER, doc: 'the schema holding those relations' },
  ),
  MARQUEE_SCHEMA: setting(
    // PostgreSQL keeps pg_* schema names for itself, and 63 bytes is its longest name.
    checked((schema) => /^[a-z_][a-z0-9_]{0,62}$/.test(schema) && !schema.startsWith('pg_'), 'be a plain lower-case identifier of up to 63 characters, not starting with pg_'),
    DEFAULT_MARQUEE_SCHEMA,
    {
      roles: BUILDER,
      doc: "the schema holding Marquee's own relations (versions, the keys' record, webhooks, runs), apart from the platform's: made and moved there by Marquee's numbered migrations ([docs/platform.md §7](platform.md#7-marquees-own-relations)); a plain lower-case identifier, not starting with `pg_`",
    },
  ),
  // Read by the store backends (snapshot/stores/store-backends.ts), which say what is wrong with it.
  SNAPSHOT_STORE: setting(text, undefined, {
    roles: BOTH,
    default: '`$MARQUEE_HOME/snapshots`',
    doc: 'the snapshot directory, or `s3://bucket/prefix` (see [Production](production.md#production)). A directory is made owner-only (0700/0600); to let a web server under another account read it, see [operation.md](operation.md#sharing-a-directory-store)',
  }),
  S3_ENDPOINT: external('snapshot/stores/s3.ts', {
    roles: BOTH,
    default: 'unset: AWS',
    doc: 'an S3-compatible server (path-style addressing), e.g. `http://minio.internal:9000`; only with an `s3://` store',
  }),
  SNAPSHOT_CDN_URL: setting(httpBase('base'), undefined, {
    roles: BOTH,
    default: 'unset: read the store',
    doc: "gateways read manifests and objects through this HTTP base, which maps to the store's prefix (`https://d123.cloudfront.net/marquee/api`)",
  }),
  SNAPSHOT_SIGNING_KEY: setting(text, undefined, {
    roles: BUILDER,
    default: 'unset: `$MARQUEE_HOME/signing-key.pem`, made once, for a directory store; required for an `s3://` store',
    doc: 'the PKCS#8 PEM file of the Ed25519 key builders sign manifests and state records with, the same file on every builder (`marquee signing-key create FILE`); `none`: publish history unsigned (the documented opt-out). The commands that build (`start`, `builder`, `build`) check it with the other variables: unset for an `s3://` store, or a file that does not exist or holds no Ed25519 key, is bad configuration. See [operation.md](operation.md#verifying-history-auditors)',
  }),
  SNAPSHOT_CODINGS: setting(codings, STORED_CODINGS, {
    roles: BUILDER,
    doc: "the compressed forms a build stores beside each object of 1 KB or more, which gateways and the CDN serve as they are to clients that accept them (a client accepting br gets the gzip form): `gzip`, `br,gzip` (brotli's forms too, about 9 % smaller, for about twice the full build's CPU) or `none` (the JSON alone). Only the objects a build writes get them: an object published before, or with `none`, has none until its content changes, and is served from its JSON. Anything else is bad configuration, naming the variable ([design.md](design.md#compressed-answers))",
  }),
  PUBLICATION_LOG_ORIGIN: setting(
    checked((origin) => !/[\s+\p{Cc}]/u.test(origin), 'hold no space, plus sign or control character'),
    undefined,
    {
      roles: BUILDER,
      default: "unset: `SNAPSHOT_CDN_URL`, else the store's location (`s3://bucket/prefix`, or the directory's path), without scheme, then `/publication-log`",
      doc: "the origin and key name of the publication log's signed checkpoints (`marquee checkpoint`); no spaces or plus signs. Set it once and never change it: a checkpoint under another origin is another log to every auditor, and builders refuse to write one under another origin than the store's latest. Set it when the default cannot be made (a path with a space) or would move (a directory store copied elsewhere). See [operation.md](operation.md#checkpoints-of-the-publication-log)",
    },
  ),
  CLOUDFRONT_DISTRIBUTION_ID: setting(
    checked((id) => DISTRIBUTION_ID.test(id), 'be a distribution id (upper-case letters and digits)'),
    undefined,
    {
      roles: BUILDER,
      doc: "each build invalidates the changed organizations' pointer paths on this distribution; only with an `s3://` store",
    },
  ),
  REDIS_URL: setting(checked(isRedisUrl, 'be a redis:// or rediss:// URL', { quote: false }), undefined, {
    roles: BOTH,
    default: 'unset: embedded',
    doc: "`redis://` or `rediss://`: the gateways' copy of the keys (their record is then in the platform database, `marquee_keys`; Redis needs no persistence), the per-key rate limit shared by every gateway, the publish channel and per-organization build locks",
  }),
  AWS_REGION: external('snapshot/stores/s3.ts', {
    roles: BOTH,
    default: `\`${DEFAULT_REGION}\``,
    doc: "the S3 client's region (a bucket in another one is followed there). Credentials (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, …) for S3 and CloudFront come from the AWS SDK's own chain, as every AWS tool reads them (environment, shared files, instance roles)",
  }),
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: external('snapshot/stores/aws-sdk.ts', {
    roles: BOTH,
    default: 'unset: `true`',
    doc: "the AWS SDK's own switch for its warning that later releases will need a newer Node: set to `true` when unset, since the SDK releases Marquee pins support every Node it runs on; set it to anything else to see the warning",
  }),
  PORT: setting(port, 8080, {
    roles: GATEWAY,
    doc: "the gateway's port (`0`: any free one; the address printed is the one bound)",
  }),
  GATEWAY_HOST: setting(listenHost, undefined, {
    roles: GATEWAY,
    default: 'unset: `127.0.0.1` for `start`, every interface for `serve`',
    doc: 'the address the gateway listens on: an IP address (`0.0.0.0`, `::`, `::1`, with or without brackets) or a host name of this machine. `start` is a demo on one machine, so it serves loopback alone unless told otherwise; `serve` runs behind a load balancer, so it listens on every interface (`::`, or `0.0.0.0` without IPv6). Each prints the address it really bound: `http://127.0.0.1:8080`, `http://[::1]:8080`, or for every interface the loopback URL and `on every interface ([::]:8080)`. An address this machine does not have stops the command, naming the variable',
  }),
  PLATFORM_PUBLIC_URL: setting(httpBase('given'), DEFAULT_PUBLIC_BASE_URL, {
    roles: BUILDER,
    doc: 'base of `publicUrl` fields',
  }),
  BUILD_SCHEDULE: setting(
    checked((schedule) => cron.validate(schedule), 'be a cron expression (e.g. "*/5 * * * *")'),
    '*/5 * * * *',
    { roles: BUILDER, doc: 'cron expression for scheduled runs: the organizations changed since they were last built, and a verification share' },
  ),
  FULL_BUILD_EVERY: setting(duration, DAY_MS, {
    roles: BUILDER,
    doc: 'every organization is built in full at least this often whatever its source version says, spread over the scheduled runs; a whole number and `s`, `m`, `h` or `d`, from `1s` to `365d`',
  }),
  BUILDER_NAME: setting(text, undefined, {
    roles: BUILDER,
    default: 'host name and process id',
    doc: "how a builder names itself to the others: in each run's results (who built an organization), its claims in the run's work list, the claim of a scheduled build's period and those of change builds (all in the platform database); unique per builder",
  }),
  WEBHOOK_ALLOW_PRIVATE: setting(flag, false, {
    roles: BUILDER,
    doc: '`1`: webhook endpoints may be any address: loopback, private, link-local and every other one that is not global unicast (development and tests). Otherwise only global unicast addresses are taken — public IPv4, IPv6 in `2000::/3` outside its special-purpose ranges ([design.md](design.md#webhooks)) — at registration and at each delivery',
  }),
  WEBHOOK_ALLOW_INSECURE: setting(flag, false, {
    roles: BUILDER,
    doc: '`1`: webhook endpoints may be `http://` (development and tests); otherwise `https://` only',
  }),
  WEBHOOK_RETRY_SCHEDULE: setting(durations, DEFAULT_RETRY_DELAYS_MS, {
    roles: BUILDER,
    doc: 'the delay before each retry of a failed webhook delivery, comma-separated durations (each ±10 %); after the last, the message is marked failed',
  }),
  WEBHOOK_DISABLE_AFTER: setting(duration, DEFAULT_DISABLE_AFTER_MS, {
    roles: BUILDER,
    doc: 'an endpoint whose every attempt failed for this long is disabled (shown with the reason) until enabled again',
  }),
  TRUST_PROXY: setting(trustProxy, false, {
    roles: GATEWAY,
    default: 'unset: none',
    doc: "proxies in front of the gateway whose `X-Forwarded-For` names the client, with Express's `trust proxy` meaning: a hop count (`1` for one load balancer), or their addresses and CIDR ranges, comma-separated (`10.0.0.0/8, loopback`; also `linklocal`, `uniquelocal`). `true` (trust any hop) is refused: any client could then name its own address",
  }),
  HTTP_HEADERS_TIMEOUT: setting(seconds, DEFAULT_HTTP_TIMEOUTS.headersMs, {
    roles: GATEWAY,
    doc: "seconds: how long the gateway waits for a request's headers (then 408 `REQUEST_TIMEOUT` and the socket is closed); not longer than `HTTP_REQUEST_TIMEOUT`",
  }),
  HTTP_REQUEST_TIMEOUT: setting(seconds, DEFAULT_HTTP_TIMEOUTS.requestMs, {
    roles: GATEWAY,
    doc: 'seconds: how long the gateway waits for the whole request (then 408 `REQUEST_TIMEOUT` and the socket is closed)',
  }),
  HTTP_KEEP_ALIVE_TIMEOUT: setting(seconds, DEFAULT_HTTP_TIMEOUTS.keepAliveMs, {
    roles: GATEWAY,
    doc: "seconds: how long the gateway keeps an idle connection; behind a load balancer, set it above the balancer's idle timeout",
  }),
  GATEWAY_CACHE_MB: setting(megabytes(MIN_CACHE_MB), DEFAULT_CACHE_BYTES, {
    roles: GATEWAY,
    doc: `the memory, in MiB (whole, at least ${MIN_CACHE_MB}), that a gateway keeps per organization and per key: pointers and manifests, stored objects, parsed event views, keys' verdicts and rate counts, parsed keys, origin lists; split among them by fixed shares, each least recently used first out (see [design.md](design.md#gateway-memory)). Besides it a gateway's RSS holds about 115 MB of code, heap and buffers, and garbage between collections ([performance.md](performance.md#the-gateways-memory-at-scale--npm-run-benchbuildscale-gateway-part) has the measured RSS); hits, misses, evictions and bytes per cache are on \`/metrics\`. At the default, an organization's event index of up to about 17,000 events is held parsed; a larger one is parsed on every request, and the gateway says so once per index in a warning naming this variable`,
  }),
  SNAPSHOT_PIN_SECONDS: setting(wholeNumber(0, { unit: 1000 }), DEFAULT_PIN_WINDOW_MS, {
    roles: GATEWAY,
    doc: "how long, in whole seconds, a snapshot may still be read by a request that pins it (`Marquee-Snapshot-Id`, [api.md §10](api.md#10-one-build-one-snapshot-consistent-reads)) after it stopped being current; `0`: only the current snapshot can be pinned. It is also the longest that something hidden on the platform can still be read by a client that pinned a snapshot from before: keep it as short as the sites' builds allow (a full build of an organization reads about one request per event, at most 600 a minute)",
  }),
  LOG_FORMAT: setting(oneOf(LOG_FORMATS), undefined, {
    roles: BOTH,
    default: 'unset: `pretty` on a terminal, else `json`',
    doc: 'how `start`, `serve` and `builder` write their log to stdout: `json` (one JSON object per line: `level`, `time`, `component`, fields, `message`) or `pretty` (one readable line per entry)',
  }),
  ADMIN_PORT: setting(port, 8081, {
    roles: BOTH,
    doc: 'the admin port: the admin API and the console (`builder`, `start`), `/healthz`, `/readyz` and `/metrics` (every process)',
  }),
  ADMIN_HOST: setting(
    checked((host) => /^[A-Za-z0-9.:-]+$/.test(host), 'be a host name or an IP address'),
    '127.0.0.1',
    { roles: BOTH, doc: "the admin port's address; loopback unless you put it behind your own access control" },
  ),
  // Never quoted back: it is a secret.
  ADMIN_TOKEN: setting(
    checked((token) => token.length >= 16, 'be at least 16 characters (e.g. openssl rand -hex 32)', { quote: false }),
    undefined,
    {
      roles: BOTH,
      doc: 'required on every admin path but `/healthz` and `/readyz` (Bearer, or the password of HTTP Basic); at least 16 characters (`openssl rand -hex 32`). Unset: `builder` serves no admin port, `serve` only `/healthz` and `/readyz`, and `start` makes one in `$MARQUEE_HOME/admin-token`',
    },
  ),
  // Whole seconds, 0 (no drain: tests, a process behind no load balancer) to 300.
  SHUTDOWN_DRAIN_SECONDS: setting(wholeNumber(0, { atMost: 300, unit: 1000 }), DEFAULT_DRAIN_SECONDS * 1000, {
    roles: GATEWAY,
    doc: 'after SIGTERM or SIGINT, how long a process with a gateway (`serve`, `start`) answers `/readyz` 503 `draining` while it still serves, every answer closing its connection, before it stops taking connections, finishes what is in flight and exits; whole seconds from `0` (no wait: tests, a gateway behind no balancer) to `300`. Set it above the time your load balancer takes to take a gateway out (probe interval × unhealthy threshold, plus a second); a second signal ends the wait. Builders do not wait ([operation.md](operation.md#health))',
  }),
  SNAPSHOT_STALE_AFTER: setting(duration, undefined, {
    roles: BUILDER,
    default: "twice `BUILD_SCHEDULE`'s period (`10m` for `*/5 * * * *`)",
    doc: "how long a platform change may wait to be built before its organization counts in `marquee_snapshots_stale` on the builders' `/metrics`; a whole number and `s`, `m`, `h` or `d`, from `1s` to `365d` ([operation.md](operation.md#request-ids-logs-and-metrics))",
  }),
  SNAPSHOT_RETENTION: setting(wholeNumber(1), DEFAULT_KEEP, {
    roles: BUILDER,
    doc: 'snapshots kept per organization at least, however old',
  }),
  SNAPSHOT_RETENTION_DAYS: setting(wholeNumber(0), DEFAULT_RETENTION_DAYS, {
    roles: BUILDER,
    doc: 'every snapshot (and state change) younger than this is kept, however many',
  }),
  USAGE_RETENTION_DAYS: setting(wholeNumber(1), DEFAULT_USAGE_RETENTION_DAYS, {
    roles: BUILDER,
    doc: 'how many days of usage per key (requests per key, hour, route and outcome, and refused origins) the builders keep; older hours are pruned hourly ([operation.md](operation.md#usage-per-key))',
  }),
  // At most 10: what a killed gateway can lose of its counts (docs/reliability.md).
  USAGE_MOVE_SECONDS: setting(wholeNumber(1, { atMost: MOVE_INTERVAL_MS / 1000, unit: 1000 }), MOVE_INTERVAL_MS, {
    roles: GATEWAY,
    doc: `how often a gateway moves the usage it counted to the shared place (Redis, or \`MARQUEE_HOME/usage\`), whole seconds from 1 to ${MOVE_INTERVAL_MS / 1000}: what a gateway killed outright can lose is at most this long of its counts ([reliability.md](reliability.md))`,
  }),
  MARQUEE_DEBUG: external('bin/cli.ts', {
    roles: BOTH,
    doc: "any value: a command that fails also prints the error's stack, with its causes, to stderr",
  }),
  USER: external('records/actor.ts', {
    roles: BUILDER,
    default: "unset: the account's uid",
    doc: "the account's own variable, never set for Marquee: names the person in the audit trail (`cli:USER@host`) for a command run by an account that has no passwd entry (a container's uid)",
  }),
});

function isRedisUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
  } catch {
    return false;
  }
}
