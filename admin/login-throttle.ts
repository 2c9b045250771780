// Failed logins on the admin port (docs/design.md "Admin API and console"): a wrong credential is
// counted against the client's address (its /64 for IPv6), and past FAILED_LOGINS_PER_MINUTE in
// a minute further wrong ones get 429 RATE_LIMITED with Retry-After instead of 401, as the
// gateway does for invalid API keys: a guesser gets a few thousand tries a day, not millions.
// Only a credential already known to be wrong is counted or refused so: a valid one is let in
// whatever else came from its address (operators share a bastion or a NAT). Every failure counts
// in a Prometheus counter by reason; the log and the audit trail hear of an address at most twice
// a minute (its first failure, and the moment it is throttled), with the count so far, so that
// neither can be flooded by a guesser. Memory is bounded: the least recently seen address is
// forgotten first, which can only let it in sooner.
import type { Request, Response } from 'express';
import { Counter, type Registry } from 'prom-client';
import type { Door } from '../records/actor.ts';
import { clientGroup } from '../runtime/client-group.ts';
import type { Log } from '../runtime/log.ts';
import { LruCache } from '../runtime/lru.ts';
import { InMemoryRateLimiter } from '../runtime/sliding-window-limiter.ts';
import { type AdminError, adminError } from './errors.ts';

/** As the gateway's invalid credentials: no operator mistypes a token 60 times a minute. */
const FAILED_LOGINS_PER_MINUTE = 60;
const WINDOW_MS = 60_000;
/** Heap the counts may take, the limiter's and the reports' each: thousands of addresses. */
const BUDGET_BYTES = 1 << 20;
/** A report's heap bytes besides its address's text (the object, the LRU's Map slot). */
const REPORT_BYTES = 160;

/** Why a login failed, as the counter's label: no credential offered, a wrong one, or a wrong one refused with 429. */
type LoginFailureReason = 'missing' | 'wrong' | 'throttled';
const LOGIN_FAILURE_REASONS: readonly LoginFailureReason[] = ['missing', 'wrong', 'throttled'];

/** An address's failed logins, as the trail records them: at most twice a minute an address. */
export interface FailedLogins {
  /** The address as counted: an IPv4 address, or an IPv6 /64. */
  readonly address: string;
  /** What the request was answered: 401 UNAUTHORIZED, or 429 RATE_LIMITED. */
  readonly answer: AdminError;
  /** The address's failed logins in its current minute, this one included. */
  readonly failures: number;
  readonly door: Door;
  readonly requestId?: string;
}

export interface LoginThrottleOptions {
  log: Log;
  /** Where the counter of failed logins is registered (the admin port's /metrics). */
  registry: Registry;
  /** The audit trail's entry for an address's failures (the control plane's processes; serve keeps no trail). Must not throw. */
  record?: (failures: FailedLogins) => Promise<void>;
  limit?: number;
  /** Milliseconds since the epoch; tests move it. */
  clock?: () => number;
}

export interface LoginThrottle {
  /** A request that offered no credential: counted, nothing else (a browser's first request before its password prompt). */
  missing(): void;
  /** A wrong credential: what to answer, 401 or 429, with the failure counted, and logged and recorded as above. */
  wrong(req: Request, res: Response): AdminError;
}

/** An address's minute, from its first failure: how many, and what the log and trail were told of it. */
interface Report {
  readonly startMs: number;
  failures: number;
  failureReported: boolean;
  throttleReported: boolean;
}

const UNAUTHORIZED_DETAIL = 'This admin path needs ADMIN_TOKEN or a usable admin credential (mqa_…), as a Bearer token or as the password of HTTP Basic auth.';

/**
 * Both schemes, one WWW-Authenticate header each: a browser shows its password prompt for Basic, a
 * script sees Bearer is accepted. Chromium ignores a Basic challenge followed by `, Bearer` in the
 * same header (the console's browser test found it), so they are never joined.
 */
const CHALLENGE = ['Basic realm="marquee admin"', 'Bearer'];

export const unauthorized = (): AdminError => adminError('UNAUTHORIZED', UNAUTHORIZED_DETAIL, { 'WWW-Authenticate': CHALLENGE });

export function loginThrottle({ log, registry, record, limit = FAILED_LOGINS_PER_MINUTE, clock = Date.now }: LoginThrottleOptions): LoginThrottle {
  const limiter = new InMemoryRateLimiter({ limit, windowSeconds: WINDOW_MS / 1000, maxBytes: BUDGET_BYTES });
  const reports = new LruCache<string, Report>(BUDGET_BYTES, (_report, address) => REPORT_BYTES + address.length);
  const counter = failedLoginCounter(registry);

  /** The address's minute, a new one once the last has passed. */
  const reportOf = (address: string, nowMs: number): Report => {
    const held = reports.get(address);
    if (held !== undefined && nowMs - held.startMs < WINDOW_MS) return held;
    const report: Report = { startMs: nowMs, failures: 0, failureReported: false, throttleReported: false };
    reports.set(address, report);
    return report;
  };

  const tell = (failures: FailedLogins, message: string) => {
    const { address, answer, door, requestId } = failures;
    log.warn(message, { clientAddress: address, failures: failures.failures, status: answer.status, errorCode: answer.errorCode, door, ...(requestId ? { requestId } : {}) });
    void record?.(failures);
  };

  return {
    missing: () => counter.inc({ reason: 'missing' }),
    wrong: (req, res) => {
      const nowMs = clock();
      const address = clientGroup(req.socket.remoteAddress ?? 'unknown');
      const decision = limiter.consume(address, nowMs);
      const report = reportOf(address, nowMs);
      report.failures += 1;
      const requestId = res.locals.requestId as string | undefined;
      const seen = { address, failures: report.failures, door: doorOf(req), ...(requestId !== undefined ? { requestId } : {}) } as const;
      if (decision.allowed) {
        counter.inc({ reason: 'wrong' });
        const answer = unauthorized();
        if (!report.failureReported) {
          report.failureReported = true;
          tell({ ...seen, answer }, 'failed admin login: further ones from this address this minute are counted in marquee_admin_login_failures_total, not logged');
        }
        return answer;
      }
      counter.inc({ reason: 'throttled' });
      const answer = adminError(
        'RATE_LIMITED',
        `More than ${limit} failed admin logins in a minute came from this address; try again in ${decision.resetSeconds} s with a valid credential.`,
        { 'Retry-After': String(decision.resetSeconds) },
      );
      if (!report.throttleReported) {
        report.throttleReported = true;
        tell({ ...seen, answer }, `failed admin logins throttled: more than ${limit} from this address in a minute; further wrong credentials are answered 429`);
      }
      return answer;
    },
  };
}

/** The API's paths (and /metrics, a script's) are the API's door; everything else behind the check is the console's. */
function doorOf(req: Request): Door {
  return req.path.startsWith('/admin/') || req.path === '/metrics' ? 'api' : 'console';
}

/** Registered once per registry: a process that makes its admin app again (tests) counts on in the same counter. */
function failedLoginCounter(registry: Registry): { inc(labels: { reason: LoginFailureReason }): void } {
  const name = 'marquee_admin_login_failures_total';
  const registered = registry.getSingleMetric(name);
  if (registered instanceof Counter) return registered as Counter<'reason'>;
  const counter = new Counter({
    name,
    help: 'Failed logins on the admin port by reason: missing (no credential offered), wrong (401), throttled (429: the address sent too many wrong ones in a minute)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  // Each reason from 0, so that a rate over it is defined before the first failure.
  for (const reason of LOGIN_FAILURE_REASONS) counter.inc({ reason }, 0);
  return counter;
}
