// The gateway's Prometheus metrics (prom-client), registered in a registry its caller owns and
// serves (the admin port's /metrics): requests by route template and status, latency by route,
// rate-limit refusals, and each bounded cache's lookups, evictions, bytes and budget. Labels are
// bounded: route names come from gateway/route-label.ts, statuses from the gateway's own code,
// cache names from gateway/cache-budget.ts.
//
// The hot path pays little: counts, and the latency histogram's buckets, are plain numbers handed
// to prom-client only when the registry is read, because a prom-client inc() or observe() builds
// and looks up a string of its labels every time (measured: metrics through prom-client's own
// histogram cost GET /organization about 9 % of its throughput in bench:gateway's A/B). And a
// response is counted once the turn of the event loop that wrote it ends, with the others of that
// turn, or before a read of the registry if one comes first: counted right after the response's
// write system call, with the processor's caches cold, the series lookups and the histogram's
// buckets cost 4-6 % of a GET /organization on Node 26 (docs/performance.md, Gateway).
import { Counter, Gauge, type Metric, type Registry } from 'prom-client';
import type { CacheStats } from '../runtime/lru.ts';
import type { CacheName } from './cache-budget.ts';
import { ROUTE_NAMES, PROTOCOL } from './route-label.ts';

export interface GatewayMetrics {
  /**
   * A response was written; counted when this turn of the event loop ends, or at the next read
   * of the registry if that comes first. `route`: a RouteLabel's name (or PROTOCOL); `seconds`:
   * since the request arrived, undefined when unknown (the parser's refusals).
   */
  served(route: string, status: number, seconds: number | undefined): void;
  /** A 429: the key's own limit, or the address's throttle of invalid credentials. */
  rateLimited(limit: RateLimitKind): void;
  /**
   * The gateway's bounded caches, read when the registry is (their counts are plain numbers the
   * caches keep, so the hot path pays nothing here). A later call replaces an earlier one's.
   */
  caches(caches: Partial<Record<CacheName, CacheStats>>): void;
  /** The usage counts per key (gateway/usage/), read when the registry is; their series carry no key label. */
  usage(tally: { readonly bytes: number; readonly dropped: number }, mover: { readonly pending: number }): void;
  /** How many keys are answered from remembered verdicts because Redis does not answer, read when the registry is. */
  keysFromMemory(count: () => number): void;
}

type RateLimitKind = 'key' | 'address';

/** Seconds: a request served from memory takes well under a millisecond, one read from storage tens. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One series of a counter, counted on the hot path and handed to prom-client when collected. */
interface Tally<Label extends string = string> {
  readonly labels: Record<Label, string>;
  pending: number;
}

/** A counter whose series are tallies; a series not created up front is created on first use. */
class TalliedCounter<Label extends string> {
  private readonly tallies: Tally<Label>[] = [];
  private readonly counter: Counter<Label>;

  /** `beforeCollect`: brings the tallies up to date before they are read. */
  constructor(registry: Registry, name: string, help: string, labelNames: readonly Label[], beforeCollect?: () => void) {
    const tallies = this.tallies;
    this.counter = new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        beforeCollect?.();
        for (const tally of tallies) {
          this.inc(tally.labels, tally.pending);
          tally.pending = 0;
        }
      },
    });
  }

  /** A series, shown as 0 until counted. */
  tally(labels: Record<Label, string>): Tally<Label> {
    const tally: Tally<Label> = { labels, pending: 0 };
    this.tallies.push(tally);
    this.counter.inc(labels, 0);
    return tally;
  }
}

/** One route's latencies: how many fell in each bucket (the last: above every bound), their sum and count. */
interface LatencySeries {
  readonly counts: number[];
  sum: number;
}

/**
 * A histogram by route whose observations are counted in plain arrays, and written out in
 * Prometheus' histogram form (cumulative `_bucket` with `le`, `_sum`, `_count`) when the registry
 * is read.
 */
class TalliedHistogram {
  private readonly series = new Map<string, LatencySeries>();

  /** `beforeCollect`: brings the series up to date before they are read. */
  constructor(
    registry: Registry,
    private readonly name: string,
    help: string,
    private readonly bounds: readonly number[],
    beforeCollect: () => void,
  ) {
    const collect = () => {
      beforeCollect();
      return { name, help, type: 'histogram', aggregator: 'sum', values: this.values() };
    };
    registry.registerMetric({ name, help, type: 'histogram', aggregator: 'sum', get: async () => collect() } as unknown as Metric);
  }

  seriesOf(route: string): LatencySeries {
    let series = this.series.get(route);
    if (series === undefined) {
      series = { counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0 };
      this.series.set(route, series);
    }
    return series;
  }

  observe(series: LatencySeries, seconds: number): void {
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.sum += seconds;
  }

  private values() {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const [route, { counts, sum }] of this.series) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += counts[i]!;
        values.push({ labels: { le: bound, route }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      cumulative += counts[this.bounds.length]!;
      values.push({ labels: { le: '+Inf', route }, value: cumulative, metricName: `${this.name}_bucket` });
      values.push({ labels: { route }, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels: { route }, value: cumulative, metricName: `${this.name}_count` });
    }
    return values;
  }
}

interface RouteSeries {
  readonly byStatus: Map<number, Tally<'route' | 'status'>>;
  readonly latency: LatencySeries;
}

/** A `seconds` of served() that is unknown, among the written responses' numbers. */
const UNKNOWN_SECONDS = -1;

export function gatewayMetrics(registry: Registry): GatewayMetrics {
  /** Responses written and not yet counted, three entries each: route, status, seconds. */
  const written: Array<string | number> = [];
  const countWritten = (): void => {
    for (let i = 0; i < written.length; i += 3) count(written[i] as string, written[i + 1] as number, written[i + 2] as number);
    written.length = 0;
  };
  const requests = new TalliedCounter(registry, 'marquee_gateway_requests_total', 'Responses written, by route template and status.', ['route', 'status'], countWritten);
  const latency = new TalliedHistogram(
    registry,
    'marquee_gateway_request_duration_seconds',
    'Time from a request to its response, by route template.',
    LATENCY_BUCKETS,
    countWritten,
  );
  const refusals = new TalliedCounter(
    registry,
    'marquee_gateway_rate_limited_total',
    'Requests refused 429: limit="key" over a key\'s rate limit, limit="address" an address over its invalid-credential threshold.',
    ['limit'],
  );
  let caches: Partial<Record<CacheName, CacheStats>> = {};
  cacheMetrics(registry, () => caches);

  const routes = new Map<string, RouteSeries>();
  const seriesOf = (route: string): RouteSeries => {
    let series = routes.get(route);
    if (series === undefined) {
      series = { byStatus: new Map(), latency: latency.seriesOf(route) };
      routes.set(route, series);
    }
    return series;
  };
  for (const route of [...ROUTE_NAMES, PROTOCOL]) seriesOf(route);
  const limits: Record<RateLimitKind, Tally> = { key: refusals.tally({ limit: 'key' }), address: refusals.tally({ limit: 'address' }) };
  function count(route: string, status: number, seconds: number): void {
    const series = seriesOf(route);
    let tally = series.byStatus.get(status);
    if (tally === undefined) {
      tally = requests.tally({ route, status: String(status) });
      series.byStatus.set(status, tally);
    }
    tally.pending++;
    if (seconds !== UNKNOWN_SECONDS) latency.observe(series.latency, seconds);
  }

  return {
    served(route, status, seconds) {
      if (written.length === 0) setImmediate(countWritten);
      written.push(route, status, seconds ?? UNKNOWN_SECONDS);
    },
    rateLimited(limit) {
      limits[limit].pending++;
    },
    caches(watched) {
      caches = watched;
    },
    usage(tally, mover) {
      usageMetrics(registry, tally, mover);
    },
    keysFromMemory(count) {
      new Gauge({
        name: 'marquee_keys_answered_from_memory',
        help: 'Keys this gateway answers from the verdicts it remembers because Redis does not answer (0 while Redis answers, and without Redis)',
        registers: [registry],
        collect() {
          this.set(count());
        },
      });
    },
  };
}

/** What the usage counting holds and what it could not count; per process, never per key (a key label would grow with the platform). */
function usageMetrics(registry: Registry, tally: { readonly bytes: number; readonly dropped: number }, mover: { readonly pending: number }): void {
  new Counter({
    name: 'marquee_gateway_usage_dropped_total',
    help: "Requests not counted in their key's usage because the usage budget was full (the shared place unreachable for long).",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(tally.dropped);
    },
  });
  new Gauge({
    name: 'marquee_gateway_usage_bytes',
    help: 'Estimated heap bytes of usage counts not yet moved to the shared place.',
    registers: [registry],
    collect() {
      this.set(tally.bytes);
    },
  });
  new Gauge({
    name: 'marquee_gateway_usage_batches_pending',
    help: 'Usage batches made and not yet known to be counted by a builder.',
    registers: [registry],
    collect() {
      this.set(mover.pending);
    },
  });
}

/** Each cache's lookups by result, evictions, bytes held and budget, read from its CacheStats when collected. */
function cacheMetrics(registry: Registry, caches: () => Partial<Record<CacheName, CacheStats>>): void {
  const each = (write: (cache: string, stats: CacheStats) => void) => {
    for (const [cache, stats] of Object.entries(caches())) if (stats !== undefined) write(cache, stats);
  };
  new Counter({
    name: 'marquee_gateway_cache_lookups_total',
    help: "Lookups in the gateway's bounded caches, by cache and result (hit: found in memory; miss: read or computed).",
    labelNames: ['cache', 'result'],
    registers: [registry],
    collect() {
      this.reset();
      each((cache, stats) => {
        this.inc({ cache, result: 'hit' }, stats.hits);
        this.inc({ cache, result: 'miss' }, stats.misses);
      });
    },
  });
  new Counter({
    name: 'marquee_gateway_cache_evictions_total',
    help: 'Entries a cache dropped, least recently used first, to stay within its budget.',
    labelNames: ['cache'],
    registers: [registry],
    collect() {
      this.reset();
      each((cache, stats) => this.inc({ cache }, stats.evictions));
    },
  });
  new Gauge({
    name: 'marquee_gateway_cache_bytes',
    help: "Estimated heap bytes a cache holds (the sum of its entries' weights).",
    labelNames: ['cache'],
    registers: [registry],
    collect() {
      this.reset();
      each((cache, stats) => this.set({ cache }, stats.weight));
    },
  });
  new Gauge({
    name: 'marquee_gateway_cache_budget_bytes',
    help: 'The bytes a cache may hold: its share of GATEWAY_CACHE_MB.',
    labelNames: ['cache'],
    registers: [registry],
    collect() {
      this.reset();
      each((cache, stats) => this.set({ cache }, stats.capacity));
    },
  });
}
