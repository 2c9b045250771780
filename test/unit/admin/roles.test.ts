// Roles in one place: which role may do what (records/actor.ts), and the role every admin API route
// (admin/api-routes.ts) and console page (admin/console/) states, with the policy of
// docs/design.md "Roles": reading for every role, changes for operators, admin credentials
// for owners. The integration tests walk the same declarations against the real program.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { ADMIN_ROLES, roleAllows } from '../../../records/actor.ts';
import { adminApiDocument } from '../../../admin/api-document.ts';
import { ADMIN_ROUTES } from '../../../admin/api-routes.ts';
import { consoleRouteTable, declaredConsoleRoutes, page } from '../../../admin/console/console-routes.ts';
import { createFormGuard } from '../../../admin/console/form-guard.ts';
import { consoleRouter } from '../../../admin/console/router.ts';
import { packagePath } from '../../../runtime/package-root.ts';
import { fakeServices } from './console/fake-services.ts';

const TEMPLATES = packagePath('templates');

describe('roleAllows', () => {
  it('orders auditor < operator < owner: each may do what the weaker ones may', () => {
    const allowed = ADMIN_ROLES.flatMap((role) => ADMIN_ROLES.filter((needed) => roleAllows(role, needed)).map((needed) => `${role}≥${needed}`));
    expect(allowed).toEqual(['auditor≥auditor', 'operator≥auditor', 'operator≥operator', 'owner≥auditor', 'owner≥operator', 'owner≥owner']);
  });
});

describe('the admin API routes', () => {
  it('are readable by every role and changeable by operators; admin credentials are for owners only', () => {
    for (const route of ADMIN_ROUTES) {
      // Starting a verification is an auditor's check (issue 35): it changes nothing of the platform.
      const expected = route.path.startsWith('/admins') ? 'owner' : route.method === 'get' || route.path === '/verifications' ? 'auditor' : 'operator';
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
      else if (method === 'post') expect(role, path).toBe(path === '/verifications' ? 'auditor' : 'operator');
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

  it('a page declared without a role stops the console from starting, naming it', () => {
    const forgotten = { method: 'post', path: '/forgotten', answer: () => undefined } as never;
    const table = consoleRouteTable();
    expect(() => table.register(express.Router(), [page('/checked', 'auditor', () => undefined), forgotten], createFormGuard())).toThrow(
      'console page POST /forgotten states no role',
    );
  });

  it("offer in the templates only what a declaration names: each may('METHOD /path') is a declared page or form", () => {
    const names = new Set(declared.map((route) => `${route.method.toUpperCase()} ${route.path}`));
    const asked = readdirSync(TEMPLATES, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.njk'))
      .flatMap((file) =>
        [...readFileSync(join(TEMPLATES, file), 'utf8').matchAll(/may\(([^)]*)\)/g)].flatMap(([, list]) => [...list!.matchAll(/'([^']+)'/g)].map(([, name]) => name!)),
      );
    expect(asked.length).toBeGreaterThan(8);
    expect(asked.filter((name) => !names.has(name))).toEqual([]);
  });

  it('each form stands for a state-changing API route, whose role it takes', () => {
    const forms = declared.filter((route) => route.method === 'post');
    for (const form of forms) {
      const api = ADMIN_ROUTES.find((route) => route.name === form.apiRoute);
      expect(api?.action, `${form.path} stands for ${form.apiRoute}`).toBeDefined();
      expect(form.role, form.path).toBe(api?.role);
    }
    expect(forms.find((form) => form.path === '/keys')?.apiRoute).toBe('createKey');
  });
});
