// The OpenAPI query parameters of a public query, written from its one declaration (QUERY_SCHEMAS,
// snapshot/resource-catalog.ts): one components.parameters entry per member, named after it
// (`pageSize` → `PageSize`), its `description` the parameter's, the rest its schema. `title`, the
// rule in words a 400 states, is the gateway's and stays out.
import type { JsonSchema } from './components.ts';

interface QuerySchema {
  readonly required: readonly string[];
  readonly properties: { readonly [name: string]: { readonly description: string; readonly title?: string } };
}

export function queryParameters(query: QuerySchema): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(query.properties).map(([name, { description, title: _rule, ...schema }]) => [
      `${name.charAt(0).toUpperCase()}${name.slice(1)}`,
      // A member with a default is optional in the query string even where the parsed query always has it.
      { name, in: 'query', required: query.required.includes(name) && !('default' in schema), description, schema },
    ]),
  );
}
