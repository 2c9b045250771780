// The console's role checks in-process, with forms the console itself would accept (its own
// origin, a valid CSRF token): every form an auditor posts and every page above its role is a 403
// page before any operation is called, and a page shows who is signed in. Each page is taken from
// the console's own declarations.
import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../../records/actor.ts';
import { setActor } from '../../../../admin/request-actor.ts';
import { declaredConsoleRoutes } from '../../../../admin/console/console-routes.ts';
import { consoleRouter } from '../../../../admin/console/router.ts';
import type { AdminServices } from '../../../../admin/services.ts';
import { fakeServices } from './fake-services.ts';

const FORM_SECRET = Buffer.alloc(32, 7);
const AUTH = `Basic ${Buffer.from('audrey:mqa_not-checked-here').toString('base64')}`;
const AUDITOR: Actor = { name: 'audrey', role: 'auditor' };

/** Every operation called, by area and name. */
const called: string[] = [];
let server: Server;
let origin: string;

/** The services, each call recorded. */
function recorded(services: AdminServices): AdminServices {
  return Object.fromEntries(
    Object.entries(services).map(([area, operations]) => [
      area,
      new Proxy(operations as object, {
        get(target, name) {
          const value = Reflect.get(target, name);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            called.push(`${area}.${String(name)}`);
            return value.apply(target, args);
          };
        },
      }),
    ]),
  ) as unknown as AdminServices;
}

beforeAll(async () => {
  const app = express();
  app.use((_req, res, next) => {
    setActor(res, AUDITOR);
    next();
  });
  app.use('/', consoleRouter(recorded(fakeServices()), { formSecret: FORM_SECRET, now: () => new Date('2026-11-22T10:00:00Z') }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const declared = declaredConsoleRoutes(consoleRouter(fakeServices()));
const fill = (path: string) => path.replace(/:(\w+)/g, 'x');

describe('an auditor in the console', () => {
  it('is refused every form, with a valid token, by a 403 page, before any operation is called; each refusal is recorded', async () => {
    const token = createHmac('sha256', FORM_SECRET).update(AUTH).digest('base64url');
    // Starting a verification is an auditor's own form (auditor-checks.test.ts).
    const forms = declared.filter((route) => route.method === 'post' && route.role !== 'auditor');
    expect(forms.length).toBeGreaterThan(10);
    called.length = 0;
    for (const form of forms) {
      const answer = await fetch(`${origin}${fill(form.path)}`, {
        method: 'POST',
        headers: { Authorization: AUTH, Origin: origin, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token, organization: 'nordic-dev', name: 'mallory', role: 'owner' }).toString(),
        redirect: 'manual',
      });
      expect(answer.status, form.path).toBe(403);
      const html = await answer.text();
      expect(html, form.path).toContain(`needs the role ${form.role} or above; audrey is auditor. Nothing was changed.`);
      expect(html).toContain('Signed in as <strong class="actor-name">audrey</strong>');
    }
    // The trail records each refusal once the page is answered (form-refusals.ts); nothing else is called.
    await expect.poll(() => called.filter((name) => name === 'audit.recordRefusal').length).toBe(forms.length);
    expect(called.filter((name) => name !== 'audit.recordRefusal')).toEqual([]);
  });

  it('is refused every page above its role, and opens the others', async () => {
    for (const page of declared.filter((route) => route.method === 'get')) {
      const answer = await fetch(`${origin}${fill(page.path)}`, { headers: { Authorization: AUTH }, redirect: 'manual' });
      if (page.role === 'auditor') expect(answer.status, page.path).not.toBe(403);
      else expect(answer.status, page.path).toBe(403);
    }
  });
});
