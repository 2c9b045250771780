// docs/operation.md's table of admin operations ("The admin API and the console") against the
// declarations (admin/operations/): a route added, moved or removed shows here until the table
// says so. The table adds the OpenAPI document's own route, which no operation declares.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADMIN_API_BASE, ADMIN_ROUTES } from '../../../admin/api-routes.ts';

const OPERATION_MD = new URL('../../../docs/operation.md', import.meta.url);
const DOCUMENT_ROUTE = `GET ${ADMIN_API_BASE}/openapi.json`;

/** The table's rows: the one whose header is `| method and path | does |`, up to its first blank line. */
function tableRows(markdown: string): string[] {
  const start = markdown.indexOf('| method and path | does |');
  if (start === -1) throw new Error('docs/operation.md has no admin operations table');
  const end = markdown.indexOf('\n\n', start);
  return markdown.slice(start, end).split('\n').slice(2);
}

/**
 * `METHOD path` of each route a row's first cell names: each code span that starts with a method
 * names one, and one that starts with a path names another under the same method
 * (`GET /a`, `/b`); what follows a path (`[?…]`, `?…`) is its query.
 */
function routesOfRow(row: string): string[] {
  const cell = row.split(/(?<!\\)\|/)[1] ?? '';
  const routes: string[] = [];
  let method: string | undefined;
  for (const [, span] of cell.matchAll(/`([^`]+)`/g)) {
    const named = /^(?:(GET|POST|PATCH|DELETE) )?(\/admin\/v1[^\s?[]*)/.exec(span ?? '');
    if (named === null) continue;
    method = named[1] ?? method;
    routes.push(`${method} ${named[2]}`);
  }
  return routes;
}

describe("docs/operation.md's admin operations table", () => {
  it('reads a row naming several routes', () => {
    expect(routesOfRow('| `GET /admin/v1/builds`, `/admin/v1/builds/{id}` | runs |')).toEqual(['GET /admin/v1/builds', 'GET /admin/v1/builds/{id}']);
    expect(routesOfRow('| `GET /admin/v1/keys?organization=ID\\|SLUG` | keys |')).toEqual(['GET /admin/v1/keys']);
    expect(routesOfRow('| `GET /admin/v1/organizations[?search=]` `{"x"}` | orgs |')).toEqual(['GET /admin/v1/organizations']);
  });

  it('names every admin operation, each once, and no route that is not one', () => {
    const documented = tableRows(readFileSync(OPERATION_MD, 'utf8')).flatMap(routesOfRow);
    const declared = ADMIN_ROUTES.map((route) => `${route.method.toUpperCase()} ${ADMIN_API_BASE}${route.path}`);
    expect(documented.filter((route) => route !== DOCUMENT_ROUTE).sort()).toEqual(declared.sort());
    expect(new Set(documented).size).toBe(documented.length);
  });
});
