// The precompiled API path matching answers every path as an Express Router would: a router with
// the former mount (app.use(API_BASE, Router({ caseSensitive: true }))) and the table's routes
// runs beside it, and both classify the same raw request paths.
import express, { Router, type ErrorRequestHandler } from 'express';
import fc from 'fast-check';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../gateway/errors.ts';
import { API_ROUTES, matchRoute, pathBelowBase } from '../../../gateway/api-routes.ts';
import { API_BASE } from '../../../snapshot/resource-catalog.ts';

let server: Server;
let port: number;

beforeAll(async () => {
  const router = Router({ caseSensitive: true });
  for (const route of API_ROUTES) {
    router.get(route.pattern.replace('{idOrSlug}', ':idOrSlug'), (req, res) => void res.json(`${route.name} ${req.params.idOrSlug ?? ''}`));
  }
  router.use((_req, res) => void res.json('unknown'));
  const app = express();
  app.use(API_BASE, router);
  app.use((_req, res) => void res.json('outside'));
  app.use(((_error, _req, res, _next) => void res.json('bad encoding')) as ErrorRequestHandler);
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

/** What the Express Router made of a raw request path (sent as is, not normalized). */
function routerAnswer(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(JSON.parse(body) as string));
    })
      .on('error', reject)
      .end();
  });
}

function matchedAnswer(path: string): string {
  // req.path: the raw path before the query, as the router saw it.
  const below = pathBelowBase(path.split('?')[0]!);
  if (below === undefined) return 'outside';
  try {
    const match = matchRoute(below);
    return match === undefined ? 'unknown' : `${match.route.name} ${match.idOrSlug}`;
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) return 'bad encoding';
    throw error;
  }
}

const PATHS = [
  '/',
  '/api',
  '/api/integration',
  '/api/integration/v1',
  '/api/integration/v1/',
  '/api/integration/v1//',
  '/API/Integration/V1/organization',
  '/api/integration/v1/Organization',
  '/api/integration/v1/organization/',
  '/api/integration/v1/organization//',
  '/api/integration/v1//organization',
  '/api/integration/v1x/organization',
  '/api/integration/v1x',
  '/apI/integration/V1',
  '/api/integration/v1/events',
  '/api/integration/v1/events/',
  '/api/integration/v1/events//',
  '/api/integration/v1/events/acme',
  '/api/integration/v1/events/acme/',
  '/api/integration/v1/events/a%2Fb',
  '/api/integration/v1/events/%E0%A4%A',
  '/api/integration/v1/events/%E0%A4%A/sessions',
  '/api/integration/v1/events/x/sessions/',
  '/api/integration/v1/events/x/Sessions',
  '/api/integration/v1/events/x/sessions/y',
  '/api/integration/v1/events//sessions',
  '/api/integration/v1/events/sessions',
  '/api/integration/v1/events/x/tickets',
  '/api/integration/v1/events/%20/speakers',
  '/api/integration/v1/team?x=1',
  '/api/integration/v1/events/.',
  '/api/integration/v1/events/..',
  '/api/integration/v1/events/x/./sessions',
  '/api/integration/v1/__proto__',
  '/api/integration/v1/events/__proto__/sponsors',
  '/api/integration/v2/organization',
];

describe('API path matching', () => {
  it.each(PATHS)('%s', async (path) => {
    expect(matchedAnswer(path)).toBe(await routerAnswer(path));
  });

  it('agrees with the router on generated paths', async () => {
    const segment = fc.constantFrom(
      '',
      'api',
      'API',
      'integration',
      'v1',
      'V1',
      'events',
      'organization',
      'team',
      'sessions',
      'speakers',
      'x',
      '%2F',
      '%E0',
      '%41',
      '.',
      '..',
      ';',
      'a b'.replace(' ', '%20'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 6 }), fc.boolean(), async (segments, base) => {
        const path = `${base ? API_BASE : ''}/${segments.join('/')}`;
        expect(matchedAnswer(path), path).toBe(await routerAnswer(path));
      }),
      { numRuns: 300 },
    );
  });
});

describe('the route table', () => {
  it('has one route per name and per pattern, each below the base with at most one {idOrSlug}', () => {
    expect(new Set(API_ROUTES.map((route) => route.name)).size).toBe(API_ROUTES.length);
    expect(new Set(API_ROUTES.map((route) => route.pattern)).size).toBe(API_ROUTES.length);
    for (const route of API_ROUTES) expect(route.pattern).toMatch(/^(\/[a-z]+|\/\{idOrSlug\})+$/);
  });
});
