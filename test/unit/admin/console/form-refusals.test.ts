// What the audit trail records of a form the console refused before any operation ran: the reason
// the page gave (its error code and its words), as the trail formats it (outcomeOf), never only
// the status it was answered with. In-process over the fake services, whose trail is a list.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, ROOT_ACTOR } from '../../../../records/actor.ts';
import type { AuditAction } from '../../../../records/trail/audit-entry.ts';
import { consoleRouter } from '../../../../admin/console/router.ts';
import { setActor } from '../../../../admin/request-actor.ts';
import type { AdminServices } from '../../../../admin/services.ts';
import { outcomeOf } from '../../../../admin/trail/recorded-operations.ts';
import { fakeServices } from './fake-services.ts';

const AUTH = `Basic ${Buffer.from('operator:the-admin-token-1234').toString('base64')}`;

interface Recorded {
  action: AuditAction;
  outcome: string;
  reason: string;
  targetId: string | null;
}

const recorded: Recorded[] = [];
let actor: Actor = ROOT_ACTOR;
let server: Server;
let origin: string;

beforeAll(async () => {
  const services = fakeServices();
  const withTrail: AdminServices = {
    ...services,
    audit: {
      ...services.audit,
      recordRefusal: async (action, error, { targetId }) => {
        recorded.push({ action, ...outcomeOf(error), targetId: targetId ?? null });
      },
    },
    // The webhooks list the add form is shown again on; nothing else of webhooks is reached here.
    webhooks: { ...services.webhooks, list: async () => [] },
  };
  const app = express();
  app.use((_req, res, next) => {
    setActor(res, actor);
    next();
  });
  app.use('/', consoleRouter(withTrail, { now: () => new Date('2026-11-22T10:00:00Z') }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

async function tokenOf(path: string): Promise<string> {
  const html = await (await fetch(`${origin}${path}`, { headers: { Authorization: AUTH } })).text();
  return /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
}

/** Posts the form and waits for the trail's entry, written once the page is answered. */
async function refused(
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = { Origin: origin },
): Promise<{ status: number; page: string; entry: Recorded }> {
  const before = recorded.length;
  const answer = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { Authorization: AUTH, 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  const page = await answer.text();
  await expect.poll(() => recorded.length).toBe(before + 1);
  return { status: answer.status, page, entry: recorded.at(-1)! };
}

describe('a form refused before any operation ran is recorded with what the page said', () => {
  it('a token that is not this credential’s: FORM_REFUSED and why, not the status', async () => {
    const { status, page, entry } = await refused('/keys/key_7/revoke', { _csrf: 'forged' });
    expect(status).toBe(403);
    expect(page).toContain('Nothing was changed: the form has no valid CSRF token (open the page again and resubmit).');
    expect(entry).toEqual({
      action: 'key.revoked',
      outcome: 'refused',
      reason: 'FORM_REFUSED: Nothing was changed: the form has no valid CSRF token (open the page again and resubmit).',
      targetId: 'key_7',
    });
  });

  it('another site’s form: the site it came from', async () => {
    const { status, entry } = await refused('/builds', { _csrf: await tokenOf('/builds') }, { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' });
    expect(status).toBe(403);
    expect(entry).toMatchObject({ action: 'build.requested', reason: 'FORM_REFUSED: Nothing was changed: the form was sent from another site (Sec-Fetch-Site: cross-site).' });
  });

  it('a field the form itself refuses: its words, as shown on the form', async () => {
    const { status, page, entry } = await refused('/keys', { _csrf: await tokenOf('/keys/new'), organization: '', label: 'x', origins: '', expiresAt: '' });
    expect(status).toBe(400);
    expect(page).toContain('choose the organization the key is for');
    expect(entry).toMatchObject({ action: 'key.created', outcome: 'refused', reason: 'BAD_REQUEST: choose the organization the key is for' });
  });

  it("a field the API route's body schema refuses: the schema's words, on the same form", async () => {
    const { status, page, entry } = await refused('/webhooks', { _csrf: await tokenOf('/webhooks'), organization: 'nordic-dev', url: '', description: '' });
    expect(status).toBe(400);
    expect(page).toContain('url must be a non-empty string');
    expect(page).toContain('<h2 id="add">Add an endpoint</h2>');
    expect(entry).toMatchObject({ action: 'webhook.created', outcome: 'refused', reason: 'BAD_REQUEST: url must be a non-empty string' });
  });

  it('a role that may not: ADMIN_FORBIDDEN and the role it needs', async () => {
    // The token is the credential's, whatever its role; an auditor's pages just carry no form.
    const token = await tokenOf('/builds');
    actor = { name: 'audrey', role: 'auditor' };
    try {
      const { status, entry } = await refused('/keys/key_7/roll', { _csrf: token, graceMinutes: '5' });
      expect(status).toBe(403);
      expect(entry).toMatchObject({
        action: 'key.rolled',
        reason: 'ADMIN_FORBIDDEN: POST /keys/key_7/roll needs the role operator or above; audrey is auditor. Nothing was changed.',
        targetId: 'key_7',
      });
    } finally {
      actor = ROOT_ACTOR;
    }
  });
});
