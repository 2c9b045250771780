// Roles in one place: which role may do what (records/actor.ts), and the role every admin API route
// (admin/api-routes.ts) and console page (admin/console/) states, with the policy of
// docs/design.md "Who did what": reading for every role, changes for operators, admin credentials
// for owners. The integration tests walk the same declarations against the real program.
import express from 'express';
import { describe, expect, it } from 'vitest';
import { ADMIN_ROLES, roleAllows } from '../../../records/actor.ts';
import { adminApiDocument } from '../../../admin/api-document.ts';
import { ADMIN_ROUTES } from '../../../admin/api-routes.ts';
import { declaredConsoleRoutes, requires } from '../../../admin/console/console-routes.ts';
import { consoleRouter } from '../../../admin/console/router.ts';
import { fakeServices } from './console/fake-services.ts';

describe('roleAllows', () => {
  it('orders auditor < operator < owner: each may do what the weaker ones may', () => {
    const allowed = ADMIN_ROLES.flatMap((role) => ADMIN_ROLES.filter((needed) => roleAllows(role, needed)).map((needed) => `${role}≥${needed}`));
    expect(allowed).toEqual(['auditor≥auditor', 'operator≥auditor', 'operator≥operator', 'owner≥auditor', 'owner≥operator', 'owner≥owner']);
  });
});

describe('the admin API routes', () => {
  it('are readable by every role and changeable by operators; admin credentials are for owners only', () => {
    for (const route of ADMIN_ROUTES) {
      const expected = route.path.startsWith('/admins') ? 'owner' : route.method === 'get' ? 'auditor' : 'operator';
      expect(route.role, `${route.method} ${route.path}`).toBe(expected);
    }
    expect(ADMIN_ROUTES.filter((route) => route.tag === 'Admins').map((route) => `${route.method} ${route.path}`)).toEqual([
      'get /admins',
      'post /admins',
      'post /admins/{name}/revoke',
    ]);
  });

  it('are described with their role, and a 403 ADMIN_FORBIDDEN where a weaker role exists', () => {
    const paths = adminApiDocument().paths as Record<string, Record<string, { 'x-marquee-role': string; description: string; responses: Record<string, unknown> }>>;
    for (const route of ADMIN_ROUTES) {
      const operation = paths[route.path]![route.method]!;
      expect(operation['x-marquee-role']).toBe(route.role);
      expect(operation.description).toContain(`\`${route.role}\``);
      if (route.role === 'auditor') expect(operation.responses['403']).toBeUndefined();
      else expect(JSON.stringify(operation.responses['403'])).toContain('ADMIN_FORBIDDEN');
    }
    expect(paths['/openapi.json']!.get!['x-marquee-role']).toBe('auditor');
  });
});

describe('the console pages', () => {
  const declared = declaredConsoleRoutes(consoleRouter(fakeServices()));

  it('each state a role: no form for an auditor, the credentials pages for owners only', () => {
    expect(declared.length).toBeGreaterThan(20);
    for (const { method, path, role } of declared) {
      if (path.startsWith('/admins')) expect(role, path).toBe('owner');
      else if (method === 'post') expect(role, path).toBe('operator');
    }
    const reading = declared.filter((page) => page.role === 'auditor').map((page) => page.path);
    expect(reading).toEqual(
      expect.arrayContaining(['/organizations', '/builds', '/builds/:runId', '/keys', '/webhooks', '/webhooks/:id/attempts', '/as-of', '/organizations/:organization/diff']),
    );
    // The pages that hold a form are an operator's, as the forms are.
    expect(declared.filter((page) => page.method === 'get' && page.role === 'operator').map((page) => page.path)).toEqual(
      expect.arrayContaining(['/keys/new', '/keys/:keyId/revoke', '/webhooks/:id/remove']),
    );
  });

  it('a page registered without a role stops the console from starting, naming it', () => {
    const router = express.Router();
    router.get('/checked', requires('auditor'), (_req, res) => res.end());
    router.post('/forgotten', (_req, res) => res.end());
    expect(() => declaredConsoleRoutes(router)).toThrow('console page POST /forgotten states no role');
  });
});
