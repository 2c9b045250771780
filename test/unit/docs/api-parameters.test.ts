// docs/api.md §4.1's table of GET /events parameters says what QUERY_SCHEMAS.EventsQuery declares
// (snapshot/resource-catalog.ts): the same parameters in the same order, each with its type, its
// default and its rule's values and bounds. A parameter added to the schema fails here until the
// table has its row.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { QUERY_SCHEMAS } from '../../../snapshot/resource-catalog.ts';

const API_DOC = fileURLToPath(new URL('../../../docs/api.md', import.meta.url));
const INT32_MAX = 2_147_483_647;

interface Row {
  parameter: string;
  in: string;
  type: string;
  default: string;
  rules: string;
}

/** The rows of the first table below the heading that begins with `heading`. */
function tableBelow(markdown: string, heading: string): Row[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(heading));
  if (start < 0) throw new Error(`docs/api.md has no heading ${heading}`);
  const rows: Row[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('#')) break;
    if (!line.startsWith('|')) {
      if (rows.length > 0) break;
      continue;
    }
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (cells[0] === 'Parameter' || /^-+$/.test(cells[0]!)) continue;
    const [parameter, where, type, fallback, rules] = cells as [string, string, string, string, string];
    rows.push({ parameter, in: where, type, default: fallback, rules });
  }
  return rows;
}

const API_TEXT = readFileSync(API_DOC, 'utf8');
const rows = tableBelow(API_TEXT, '### 4.1 `GET /events` parameters');
const { properties } = QUERY_SCHEMAS.EventsQuery;
const members = Object.entries(properties) as [string, { type: string; default: unknown; enum?: readonly string[]; minimum?: number; maximum?: number }][];

describe('docs/api.md §4.1, the GET /events parameters', () => {
  it('lists the schema’s parameters, in its order, each in the query', () => {
    expect(rows.map((row) => row.parameter)).toEqual(members.map(([name]) => `\`${name}\``));
    for (const row of rows) expect(row.in).toBe('query');
  });

  it('are the ones §4’s table of endpoints names', () => {
    const endpoint = API_TEXT.split('\n').find((line) => line.includes('| `GET /events` |'));
    expect(endpoint).toContain(`| query ${members.map(([name]) => `\`${name}\``).join(', ')} (§4.1) |`);
  });

  it.each(members)('%s: its type, default and rule are the schema’s', (name, member) => {
    const row = rows.find((candidate) => candidate.parameter === `\`${name}\``)!;
    expect(row.default).toBe(`\`${member.default}\``);
    if (member.type === 'integer') {
      expect(member.maximum! <= INT32_MAX && member.minimum! >= -INT32_MAX - 1).toBe(true);
      expect(row.type).toBe('integer (int32)');
      expect(row.rules).toContain(`from ${member.minimum} to ${member.maximum}`);
    } else {
      expect(row.type).toBe(member.type);
    }
    // Every value the schema allows, and no other, is named in code.
    if (member.enum !== undefined) expect([...row.rules.matchAll(/`([^`]+)`/g)].map((match) => match[1])).toEqual(member.enum);
  });
});
