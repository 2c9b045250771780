// The console's refusals of a form before any operation ran (another site's form, a missing token,
// an empty required field): each is one `refused` entry of the audit trail, under the action the
// form would have done. Forms an operation refused (an unknown key, a URL not allowed) were
// recorded by the operation; this records only what no operation saw.
import type { RequestHandler } from 'express';
import type { Log } from '../../runtime/log.ts';
import { actingAs } from '../acting.ts';
import type { AuditAction } from '../../records/trail/audit-entry.ts';
import { entriesRecordedUnder } from '../trail/recorded-operations.ts';
import { AdminError } from '../errors.ts';
import { requestAttribution } from '../request-attribution.ts';
import type { AdminServices } from '../services.ts';

type Fields = Record<string, unknown>;

/** Every form that changes something: its path, and the action it does. */
const FORMS: ReadonlyArray<readonly [RegExp, AuditAction | ((fields: Fields) => AuditAction)]> = [
  [/^\/builds$/, 'build.requested'],
  [/^\/keys$/, 'key.created'],
  [/^\/keys\/(?<id>[^/]+)$/, 'key.updated'],
  [/^\/keys\/(?<id>[^/]+)\/roll$/, 'key.rolled'],
  [/^\/keys\/(?<id>[^/]+)\/revoke$/, 'key.revoked'],
  [/^\/webhooks$/, 'webhook.created'],
  [/^\/webhooks\/(?<id>[^/]+)\/enabled$/, (fields) => (fields.enabled === 'true' ? 'webhook.enabled' : 'webhook.disabled')],
  [/^\/webhooks\/(?<id>[^/]+)\/rotate$/, 'webhook.rotated'],
  [/^\/webhooks\/(?<id>[^/]+)\/test$/, 'webhook.tested'],
  [/^\/webhooks\/(?<id>[^/]+)\/messages\/[^/]+\/redeliver$/, 'webhook.redelivered'],
  [/^\/webhooks\/(?<id>[^/]+)\/remove$/, 'webhook.deleted'],
  [/^\/admins$/, 'admin.created'],
  [/^\/admins\/(?<id>[^/]+)\/revoke$/, 'admin.revoked'],
];

/** Runs the rest of the console as whoever opened it; a form answered with an error no operation recorded is recorded when answered. */
export function consoleActing(services: AdminServices, log: Log | undefined): RequestHandler {
  return function actingInConsole(req, res, next) {
    const attribution = requestAttribution(req, res, 'console');
    if (req.method === 'POST') {
      res.once('finish', () => {
        if (res.statusCode < 400 || entriesRecordedUnder(attribution) > 0) return;
        const form = FORMS.find(([path]) => path.test(req.path));
        if (form === undefined) return;
        const fields = (req.body ?? {}) as Fields;
        const { _csrf: _token, ...changes } = fields;
        const action = typeof form[1] === 'function' ? form[1](fields) : form[1];
        const refusal = new AdminError(res.statusCode, 'BAD_REQUEST', 'Form refused', `the console answered the form with ${res.statusCode}`);
        const organization = typeof fields.organization === 'string' && fields.organization !== '' ? fields.organization : null;
        actingAs(attribution, () => services.audit.recordRefusal(action, refusal, { targetId: form[0].exec(req.path)?.groups?.id ?? null, organization, changes })).catch(
          (error: unknown) => log?.error('the audit trail could not record a refused form', { path: req.path, err: error }),
        );
      });
    }
    actingAs(attribution, next);
  };
}
