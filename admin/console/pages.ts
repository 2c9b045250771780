// How a console page is answered: its template rendered inside the layout with what every page
// needs (navigation, the stylesheet, the form token), and errors shown as a page, never a stack.
import type { NextFunction, Request, Response } from 'express';
import type { Log } from '../../runtime/log.ts';
import { actorOf } from '../request-actor.ts';
import { adminProblemOf } from '../problem.ts';
import type { ConsoleRouteTable } from './console-routes.ts';
import type { FormGuard } from './form-guard.ts';
import { noteRefusal } from './form-refusals.ts';
import type { Views } from './views.ts';

type Section = 'builds' | 'organizations' | 'keys' | 'webhooks' | 'as-of' | 'verifications' | 'admins' | 'audit-log';

interface PageOptions {
  section?: Section;
  status?: number;
  /** Seconds after which the page reloads itself; only while something on it is under way. */
  refreshSeconds?: number;
}

export interface Pages {
  show(req: Request, res: Response, template: string, title: string, context: Record<string, unknown>, options?: PageOptions): void;
  /** An error page with the status it calls for. */
  error(req: Request, res: Response, status: number, heading: string, message: string): void;
  /** The last handler of the console: an expected refusal as its page, anything else as a 500 logged. */
  errorHandler(): (error: unknown, req: Request, res: Response, next: NextFunction) => void;
  guard: FormGuard;
}

interface PageParts {
  views: Views;
  stylesheet: string;
  guard: FormGuard;
  /** What each page and form needs: a template offers a link or a form only to a role that may use it. */
  routes: Pick<ConsoleRouteTable, 'allows'>;
  log?: Log;
  now: () => Date;
}

export function createPages({ views, stylesheet, guard, routes, log, now }: PageParts): Pages {
  const show: Pages['show'] = (req, res, template, title, context, options = {}) => {
    // Who is signed in, and what their role may use: `may('POST /builds')`, as the routes declare it
    // (they refuse the rest), so a template offers nothing the role would be refused.
    const actor = actorOf(res);
    const html = views.render(template, {
      actor,
      may: (...declared: string[]) => routes.allows(actor.role, declared),
      ...context,
      title,
      base: req.baseUrl,
      stylesheet,
      section: options.section,
      refreshSeconds: options.refreshSeconds,
      csrfToken: guard.tokenFor(req),
      renderedAt: now().toISOString(),
    });
    res
      .status(options.status ?? 200)
      .type('html')
      .send(html);
  };
  const error: Pages['error'] = (req, res, status, heading, message) => show(req, res, 'error.njk', heading, { heading, message }, { status });
  return {
    show,
    error,
    guard,
    errorHandler: () =>
      function consoleErrors(failure, req, res, next) {
        if (res.headersSent) return next(failure);
        // The admin API's mapping: an unknown organization is a 404 page here as it is a 404 there.
        const problem = adminProblemOf(failure);
        // What the page says is what the trail records of a form refused here (form-refusals.ts).
        noteRefusal(res, failure);
        if (problem !== undefined) return error(req, res, problem.status, problem.title, problem.detail);
        log?.error('console page failed', { path: req.path, err: failure });
        error(req, res, 500, 'Something went wrong', 'The console could not answer this page; the process log has the details.');
      },
  };
}

/** A text field of a posted form; '' when absent or not text. */
export function formField(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}
