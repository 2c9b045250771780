// What the gateway notes about each request when it arrives (its id, its route's label, when it
// came) and, once access control knows it, the key it is charged to; kept on the request for
// whoever writes the response or a log line, and the first middleware that notes it and, once the
// response is written, counts it in the metrics and in the key's usage (gateway/usage/).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { GatewayMetrics } from './metrics.ts';
import type { CountedKey, UsageTally } from './usage/usage-tally.ts';
import { REQUEST_ID_HEADER, requestIdFor } from './request-id.ts';
import { type RouteLabel, routeLabelOf } from './route-label.ts';

export interface ObservedRequest {
  /** X-Request-Id: the sent one when sane, else a new one (gateway/request-id.ts). */
  readonly id: string;
  readonly route: RouteLabel;
  /** performance.now() when the request reached the app. */
  readonly startedAt: number;
  /** Answered by the API router, which writes the id and counts the response itself. */
  readonly inApi: boolean;
  readonly metrics: GatewayMetrics | undefined;
  readonly usage: UsageTally | undefined;
  /** The key the request is charged to, once access control found it (valid, revoked or expired); an unknown credential has none. */
  key: CountedKey | undefined;
}

/**
 * Kept in res.locals, Express's place for what belongs to one request, which it makes for every
 * request anyway. A property of its own on the request object measured 1.3 kB more garbage per
 * request (a sampled heap profile of GET /organization), about a twentieth of the whole request's.
 */
const OBSERVED = Symbol('observed request');
interface Locals {
  [OBSERVED]?: ObservedRequest;
}
type Observable = IncomingMessage & { res?: { locals?: Locals } };

/** What requestObserver noted; undefined for a request that did not pass it (an app without it, in tests). */
export function observationOf(req: IncomingMessage): ObservedRequest | undefined {
  return (req as Observable).res?.locals?.[OBSERVED];
}

/** Milliseconds since the request reached the app, to a tenth. */
export function elapsedMs(observed: ObservedRequest): number {
  return Math.round((performance.now() - observed.startedAt) * 10) / 10;
}

/** Charges the request to a key (access control, as soon as the key's record is found). */
export function chargeTo(req: IncomingMessage, key: CountedKey): void {
  const observed = observationOf(req);
  if (observed !== undefined) observed.key = key;
}

/** The errorCode usage tells apart: a 403's causes (a wrong origin, a suspended organization) need different remedies. */
const FORBIDDEN = 403;

/**
 * Counts the response to an API request in the metrics and in its key's usage, once it is written:
 * called by the API's writers (routes/respond.ts, gateway/problem.ts, with a problem's errorCode)
 * rather than from a 'finish' listener, which measurably slowed the hot path. Other requests are
 * counted by requestObserver's listener, and charged to no key.
 */
export function countApiResponse(req: IncomingMessage, status: number, errorCode?: string): void {
  const observed = observationOf(req);
  if (observed?.inApi !== true) return;
  if (observed.metrics !== undefined) observed.metrics.served(observed.route.name, status, (performance.now() - observed.startedAt) / 1000);
  if (observed.key !== undefined && observed.usage !== undefined) {
    const code = status === FORBIDDEN ? (errorCode ?? '') : '';
    const refusedOrigin = code === 'API_KEY_ORIGIN_NOT_ALLOWED' ? req.headers.origin : undefined;
    observed.usage.count(observed.key, observed.route.name, status, code, refusedOrigin);
  }
}

export interface RequestObserver {
  /**
   * Notes a request as it arrives; the API router calls it first thing, so the hot path walks no
   * extra layer, with the route's label, which it knows from the path it matched already.
   */
  note(req: Request, res: Response, route?: RouteLabel): void;
  /** The same as a middleware, after the API router: every request it did not note. */
  middleware: RequestHandler;
}

/**
 * Notes every request's id, route label and start time. The id header is written by whoever
 * writes the response head: the API router's responses (a 200 or 304 in one writeHead batch,
 * routes/respond.ts, where a setHeader beforehand would cost the hot path a header-by-header
 * merge; errors in gateway/problem.ts) and, set here, every other response (preflight, /healthz,
 * /docs, 404s outside the API). An Express layer in front of the API router would cost the hot
 * path more than all of this (routes/api-router.ts), hence `note` for the router to call.
 */
export function requestObserver(metrics: GatewayMetrics | undefined, usage?: UsageTally): RequestObserver {
  /** Called as the response's 'finish' listener: one function for every request, no closure each. */
  function count(this: ServerResponse): void {
    const observed = observationOf(this.req);
    if (observed !== undefined) metrics!.served(observed.route.name, this.statusCode, (performance.now() - observed.startedAt) / 1000);
  }
  function note(req: Request, res: Response, route = routeLabelOf(req.path)): void {
    const startedAt = performance.now();
    const inApi = route.inApi && req.method !== 'OPTIONS';
    const observed: ObservedRequest = { id: requestIdFor(req.headers['x-request-id']), route, startedAt, inApi, metrics, usage, key: undefined };
    (res.locals as Locals)[OBSERVED] = observed;
    if (!inApi) {
      res.setHeader(REQUEST_ID_HEADER, observed.id);
      if (metrics !== undefined) res.on('finish', count);
    }
  }
  return {
    note,
    middleware: function observeRequest(req, res, next) {
      if (observationOf(req) === undefined) note(req, res);
      next();
    },
  };
}
