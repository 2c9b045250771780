// The admin API (docs/design.md "Admin API and console", /admin/v1) as one table of operations,
// as the public API's is (gateway/api-routes.ts): each declared once in its area's file under
// operations/ (operation.ts: name, role, method and path, the JSON Schemas of its input and
// output, its audit action, summary and run). The router (api.ts), the validation of every query
// and body, the console's forms (console/console-forms.ts) and the OpenAPI document served at
// /admin/v1/openapi.json (api-document.ts) are all derived from this list: an operation gets its
// door here and nowhere else, with the role it needs (docs/design.md "Roles"): reading is
// for every role, and so is starting a verification (an auditor's check, which changes nothing);
// a change for operators, admin credentials for owners.
import type { AdminRoute } from './api-route.ts';
import { ORGANIZATION_OPERATIONS } from './operations/organizations.ts';
import { BUILD_OPERATIONS } from './operations/builds.ts';
import { KEY_OPERATIONS } from './operations/keys.ts';
import { WEBHOOK_OPERATIONS } from './operations/webhooks.ts';
import { SNAPSHOT_OPERATIONS } from './operations/snapshots.ts';
import { VERIFICATION_OPERATIONS } from './operations/verifications.ts';
import { CHECKPOINT_OPERATIONS } from './operations/checkpoints.ts';
import { ADMIN_CREDENTIAL_OPERATIONS } from './operations/admins.ts';
import { AUDIT_OPERATIONS } from './operations/audit.ts';

export { ADMIN_API_BASE } from './operations/forms.ts';
export { inclusionPath } from './operations/snapshots.ts';

const ROUTES = [
  ...ORGANIZATION_OPERATIONS,
  ...BUILD_OPERATIONS,
  ...KEY_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...SNAPSHOT_OPERATIONS,
  ...VERIFICATION_OPERATIONS,
  ...CHECKPOINT_OPERATIONS,
  ...ADMIN_CREDENTIAL_OPERATIONS,
  ...AUDIT_OPERATIONS,
] as const;

/** Every route, in the order the document lists them. */
export const ADMIN_ROUTES: readonly AdminRoute[] = ROUTES;

type DeclaredRoute = (typeof ROUTES)[number];

/** The operationId of a route of the table. */
type AdminRouteName = DeclaredRoute['name'];

/** The declared route of that name, with the type of its body. */
type AdminRouteNamed<Name extends AdminRouteName> = Extract<DeclaredRoute, { name: Name }>;

/** The route named so, with the type of its body: the console's forms read their fields with it. */
export function adminRoute<Name extends AdminRouteName>(name: Name): AdminRouteNamed<Name> {
  const found = ROUTES.find((candidate): candidate is AdminRouteNamed<Name> => candidate.name === name);
  if (found === undefined) throw new Error(`the admin API has no route named ${name}`);
  return found;
}
