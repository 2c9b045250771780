// The console's forms that change something, each the console's door to one admin API route
// (api-routes.ts): a form takes the route's role and audit action, and what its fields say is
// checked against the route's body schema before its answer runs, so creating a key through the
// console is checked as POST /admin/v1/keys checks its body. A mistake the operator can correct (a
// field the schema refuses, an origin or a URL an operation refuses) is said on the same form,
// with what was typed.
import type { Response } from 'express';
import type { AuditAction } from '../../records/trail/audit-entry.ts';
import { OperatorError } from '../../runtime/errors.ts';
import type { AdminRoute } from '../api-route.ts';
import { AdminError } from '../errors.ts';
import { type ConsoleRoute, matched, type PageRequest } from './console-routes.ts';
import { noteRefusal } from './form-refusals.ts';

/** An API route (api-routes.ts adminRoute), with the type its body schema stands for. */
interface FormRoute<Body> extends AdminRoute {
  readonly readBody: (body: unknown) => Body;
}

/** The members of a body before its schema checked them: their names, not yet their values. */
type Unchecked<Body> = { readonly [Name in keyof Body]?: unknown };

interface FormDeclaration<Body, Path extends string> {
  /** As Express writes it: `/keys/:keyId/roll`. */
  readonly path: Path;
  /**
   * The API route's body that the fields stand for, which the route's schema then checks (a
   * member it does not name is a compile error); absent when the route takes none. It may refuse
   * a field in the form's own words first (a 400 AdminError: "choose the organization…").
   */
  readonly body?: (req: PageRequest<Path>) => Unchecked<NoInfer<Body>>;
  /** The form's work, once its body passed the route's schema; it answers with a 303. */
  readonly answer: (req: PageRequest<Path>, res: Response, body: NoInfer<Body>) => Promise<void>;
  /** The same form again with what was typed and `message`; without it, a mistake is an error page. */
  readonly mistake?: (req: PageRequest<Path>, res: Response, message: string) => Promise<void> | void;
  /** The action its refusal records when the fields decide it (enable or disable); the route's otherwise. */
  readonly action?: (req: PageRequest<Path>) => AuditAction;
}

/** The form posted to `declaration.path` that does what the API route `api` does. */
export function form<Body, const Path extends string>(api: FormRoute<Body>, declaration: FormDeclaration<Body, Path>): ConsoleRoute {
  const routeAction = api.action;
  if (routeAction === undefined) throw new Error(`the console's form ${declaration.path} stands for ${api.name}, which changes nothing`);
  return {
    method: 'post',
    path: declaration.path,
    role: api.role,
    apiRoute: api.name,
    action: (req) => declaration.action?.(matched(declaration.path, req)) ?? routeAction,
    answer: async (req, res) => {
      const request = matched(declaration.path, req);
      try {
        await declaration.answer(request, res, api.readBody(declaration.body?.(request) ?? {}));
      } catch (error) {
        const message = formMistake(error);
        if (message === undefined || declaration.mistake === undefined) throw error;
        // The trail records the refusal as the form says it, unless an operation recorded it already.
        noteRefusal(res, error);
        await declaration.mistake(request, res, message);
      }
    },
  };
}

/** A refusal the operator can correct on the same form (a bad origin, a bad instant), as opposed to a failure. */
function formMistake(error: unknown): string | undefined {
  if (error instanceof AdminError && error.status === 400) return error.detail;
  if (error instanceof OperatorError) return error.message;
  return undefined;
}
