// The gateway's part of GET /readyz (runtime/readiness.ts): whether a load balancer should send it
// requests, with the reason in the body when not, so that an operator reads why without searching
// the log. A gateway is ready once it can check keys and read the store:
// - the snapshot store has answered once since start ("starting" until then): a gateway that has
//   never reached it holds nothing;
// - the store exists (a SNAPSHOT_STORE directory that is not there, a bucket that is missing or
//   refuses the credentials): every organization would be unknown, so the gateway is not ready;
// - the embedded key store can be read (a keys file that is corrupt or unreadable refuses every
//   key). With Redis, a gateway that cannot reach it at start does not start
//   (access/access-backends.ts); afterwards a Redis outage is ridden out on recent verdicts
//   (access/redis-key-verdicts.ts): Redis shows `down` in /readyz, and the gateway stays ready.
//
// Checked in the background (a probe every few seconds, so /readyz itself costs nothing and a
// scraper cannot make the gateway hammer its store), and written into the process's backend states
// (`store`), which /metrics reads too.
//
// An unreachable store or Redis after the first answer does NOT make the gateway unready: it still
// serves every organization and object it holds (and every key it checked lately), and 503 only for
// the rest. If readiness followed a shared backend, one outage would take every gateway out of the
// balancer at once, and what they hold would be served by none of them.
import type { BackendStates } from '../runtime/backend-states.ts';
import { describeError } from '../runtime/errors.ts';
import type { Log } from '../runtime/log.ts';
import type { PartReadiness } from '../runtime/readiness.ts';
import type { KeyStore } from '../records/keys/key-store.ts';
import { ORGS_PREFIX } from '../snapshot/layout.ts';
import { type SnapshotSource, StoreUnavailableError } from '../snapshot/store.ts';
import { OutageWarning } from './snapshot-cache/outage-warning.ts';

const PROBE_KEY = `${ORGS_PREFIX}readiness-probe`;
const PROBLEM_RECHECK_MS = 250;
/** No secret hashes to this: a lookup that reads the key store and finds nothing. */
const PROBE_SECRET_HASH = '0'.repeat(64);

/** What a gateway does while the store does not answer, as /readyz says it. */
const STORE_MEANWHILE = 'serving the organizations and objects it holds; 503 with Retry-After for the others';

export interface GatewayHealthOptions {
  store: SnapshotSource;
  /** The embedded key store, whose file must be readable; undefined with Redis. */
  keys?: KeyStore | undefined;
  log: Log;
  /** The process's backend states, where the store's is written. */
  states: BackendStates;
  /** Between probes; also the retry interval before the store first answered. */
  intervalMs?: number;
}

export class GatewayHealth {
  /** Resolves once the store has answered a probe (start-up waits for this); probes repeat until then. */
  readonly ready: Promise<void>;
  private answered = false;
  private problems: string[] = [];
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly unreachable: OutageWarning;
  private readonly intervalMs: number;
  private resolveReady!: () => void;

  constructor(private readonly options: GatewayHealthOptions) {
    this.intervalMs = options.intervalMs ?? 2_000;
    this.unreachable = new OutageWarning(options.log, 'snapshot store not reachable yet');
    options.states.use('store', { meanwhile: STORE_MEANWHILE });
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
    void this.probe();
  }

  /** The gateway's part of /readyz. */
  part(): PartReadiness {
    if (!this.answered) return { status: 'starting', problems: this.problems };
    return this.problems.length === 0 ? { status: 'ready' } : { status: 'unavailable', problems: this.problems };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private async probe(): Promise<void> {
    const problems: string[] = [];
    const { store, keys, states } = this.options;
    let reached = this.answered;
    try {
      // Whether anything was ever published does not matter, only that the store answers. A key,
      // not the bare prefix: store keys never end with '/' (snapshot/store.ts assertStoreKey).
      await store.has(PROBE_KEY);
      reached = true;
      await store.assertExists?.();
      states.answered('store');
    } catch (error) {
      states.failed('store', describeError(error));
      if (!(error instanceof StoreUnavailableError)) problems.push(`snapshot store: ${describeError(error)}`);
      else if (!reached) {
        problems.push(`snapshot store ${store.description} not reachable yet: ${describeError(error)}`);
        this.unreachable.report(error, { store: store.description });
      }
      // Reached before: a passing outage, ridden out on what the gateway holds (see above).
    }
    try {
      await keys?.findBySecretHash(PROBE_SECRET_HASH);
    } catch (error) {
      problems.push(`key store: ${describeError(error)}`);
    }
    this.problems = problems;
    // Ready only with this probe's problems in place: marked as soon as the store answered, a
    // request in between was told "ready" by a gateway whose store directory does not exist.
    if (reached && !this.answered) {
      this.answered = true;
      this.resolveReady();
    }
    // A problem is looked at again soon: the fix (start's first build making the directory, an
    // operator repairing the keys file) should show within a moment, not a full interval.
    const next = problems.length > 0 ? Math.min(PROBLEM_RECHECK_MS, this.intervalMs) : this.intervalMs;
    if (!this.closed) this.timer = setTimeout(() => void this.probe(), next);
  }
}
