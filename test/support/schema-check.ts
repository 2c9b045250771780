// Shared by the projection tests: every projected resource must satisfy its schema (docs/design.md
// step 3), so the tests check each fixture's whole output, not just the fields they look at.
import type { ProjectedResource } from '../../builder/projection/index.ts';
import { RESOURCE_CATALOG } from '../../snapshot/resource-catalog.ts';
import { SchemaSet } from '../../snapshot/schemas.ts';

const schemas = new SchemaSet();

/** `path: reason` for each resource that fails its schema; empty when all are valid. */
export function schemaViolations(resources: readonly ProjectedResource[]): string[] {
  const violations: string[] = [];
  for (const resource of resources) {
    const result = schemas.validate(RESOURCE_CATALOG[resource.kind].storedSchema, resource.value);
    if (!result.valid) violations.push(`${resource.path}: ${result.reason}`);
  }
  return violations;
}
