// Validate stage: every resource against its schema before anything is written. A resource
// that fails is not published and the organization keeps its previous snapshot (docs/design.md step 3):
// this is the structural guarantee that no private field leaks.
import type { ResourceKind } from '../snapshot/layout.ts';
import { SCHEMA_OF_KIND } from '../snapshot/schema-catalog.ts';
import type { SchemaSet } from '../snapshot/schemas.ts';
import { ValidationError } from './errors.ts';

export function validateResources(
  schemas: SchemaSet,
  organizationId: string,
  resources: ReadonlyArray<{ path: string; kind: ResourceKind; value: unknown }>,
): void {
  for (const { path, kind, value } of resources) {
    const outcome = schemas.validate(SCHEMA_OF_KIND[kind], value);
    if (!outcome.valid) {
      throw new ValidationError(`organization ${organizationId}: resource ${path} fails schema ${SCHEMA_OF_KIND[kind]}: ${outcome.reason}`, organizationId, path);
    }
  }
}
