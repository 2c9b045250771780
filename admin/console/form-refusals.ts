// The console's refusals of a form before any operation ran (another site's form, a missing token,
// a role that may not, a field the API route's schema refuses): each is one `refused` entry of the
// audit trail, under the action the form would have done, with the reason the page gave. Forms an
// operation refused (an unknown key, a URL not allowed) were recorded by the operation; this
// records only what no operation saw.
import type { RequestHandler, Response } from 'express';
import type { Log } from '../../runtime/log.ts';
import { actingAs } from '../acting.ts';
import type { AuditAction } from '../../records/trail/audit-entry.ts';
import { entriesRecordedUnder } from '../trail/recorded-operations.ts';
import { AdminError } from '../errors.ts';
import { requestAttribution } from '../request-attribution.ts';
import type { AdminServices } from '../services.ts';

/** What a declared form would have done (console-routes.ts notes it before anything can refuse it). */
export interface FormSubject {
  readonly action: AuditAction;
  /** What it acts on: the first segment of its path that names something (a key, an endpoint, a credential). */
  readonly targetId: string | null;
}

const FORM = 'consoleForm';
const REFUSAL = 'consoleRefusal';

export function noteForm(res: Response, form: FormSubject): void {
  res.locals[FORM] = form;
}

/** The error a page told the operator of (its code, its words): the trail records it as the page gave it. */
export function noteRefusal(res: Response, error: unknown): void {
  res.locals[REFUSAL] = error;
}

/** Runs the rest of the console as whoever opened it; a form answered with an error no operation recorded is recorded when answered. */
export function consoleActing(services: AdminServices, log: Log | undefined): RequestHandler {
  return function actingInConsole(req, res, next) {
    const attribution = requestAttribution(req, res, 'console');
    if (req.method === 'POST') {
      res.once('finish', () => {
        const form = res.locals[FORM] as FormSubject | undefined;
        if (res.statusCode < 400 || form === undefined || entriesRecordedUnder(attribution) > 0) return;
        const fields = (req.body ?? {}) as Record<string, unknown>;
        const { _csrf: _token, ...changes } = fields;
        // Every page that refuses a form notes why (pages.ts, console-forms.ts); the status alone is the last resort.
        const refusal = res.locals[REFUSAL] ?? new AdminError(res.statusCode, 'BAD_REQUEST', 'Form refused', `the console answered the form with ${res.statusCode}`);
        const organization = typeof fields.organization === 'string' && fields.organization !== '' ? fields.organization : null;
        actingAs(attribution, () => services.audit.recordRefusal(form.action, refusal, { targetId: form.targetId, organization, changes })).catch((error: unknown) =>
          log?.error('the audit trail could not record a refused form', { path: req.path, err: error }),
        );
      });
    }
    actingAs(attribution, next);
  };
}
