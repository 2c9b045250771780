// Validate stage: every resource against its schema before anything is written. A resource
// that fails is not published and the organization keeps its previous snapshot (docs/design.md step 3):
// this is the structural guarantee that no private field leaks. Failing is an expected outcome
// (platform data the API cannot carry), so it is returned, not thrown.
import { RESOURCE_CATALOG, type ResourceKind } from '../snapshot/resource-catalog.ts';
import type { SchemaName } from '../snapshot/schema-catalog.ts';
import type { SchemaSet } from '../snapshot/schemas.ts';

export type ResourcesValidation =
  | { valid: true }
  /** The first resource that fails, the schema it fails and why (ajv's first error). */
  | { valid: false; resource: string; schema: SchemaName; reason: string };

export function validateResources(schemas: SchemaSet, resources: ReadonlyArray<{ path: string; kind: ResourceKind; value: unknown }>): ResourcesValidation {
  for (const { path, kind, value } of resources) {
    const schema = RESOURCE_CATALOG[kind].storedSchema;
    const outcome = schemas.validate(schema, value);
    if (!outcome.valid) return { valid: false, resource: path, schema, reason: outcome.reason };
  }
  return { valid: true };
}
