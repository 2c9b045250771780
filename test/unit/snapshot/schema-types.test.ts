// The types the code compiles against are generated from schemas/ (npm run schema:types): the
// committed snapshot/schema-types.ts must be what the generator makes of today's schemas, and the
// generator must say every shape it meets or refuse it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readSchemas, SCHEMA_TYPES_FILE, schemaTypesModule, typeNameOf } from '../../../scripts/schema-types.ts';
import { QUERY_SCHEMAS } from '../../../snapshot/resource-catalog.ts';

describe('snapshot/schema-types.ts', () => {
  it('is current: what npm run schema:types makes of schemas/ and the queries (run it after changing a schema)', () => {
    expect(readFileSync(SCHEMA_TYPES_FILE, 'utf8')).toBe(schemaTypesModule(readSchemas(), QUERY_SCHEMAS));
  });

  it('has one type for every schema, named after its file, and one for every public query, by its name', () => {
    const text = readFileSync(SCHEMA_TYPES_FILE, 'utf8');
    for (const fileName of readSchemas().keys()) expect(text).toMatch(new RegExp(`^export (interface|type) ${typeNameOf(fileName)}\\b`, 'm'));
    for (const name of Object.keys(QUERY_SCHEMAS)) expect(text).toMatch(new RegExp(`^export interface ${name} \\{`, 'm'));
  });
});

describe('the generator', () => {
  const schemas = (entries: Record<string, object>) => new Map(Object.entries(entries)) as Map<string, Record<string, unknown>>;

  it('writes objects member by member in the schema order, with nullable, optional, referenced, enumerated, mapped and listed members', () => {
    const text = schemaTypesModule(
      schemas({
        'thing-part.schema.json': { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } },
        'thing.schema.json': {
          title: 'Thing',
          description: 'A thing.',
          type: 'object',
          additionalProperties: false,
          required: ['part', 'kind', 'note', 'names', 'byName', 'mixed', 'version'],
          properties: {
            part: { anyOf: [{ $ref: 'thing-part.schema.json' }, { type: 'null' }] },
            kind: { enum: ['big', "it's"] },
            note: { description: 'Free text.', type: ['string', 'null'] },
            names: { type: 'array', items: { type: 'string' } },
            byName: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } },
            mixed: { type: 'array', items: { type: ['number', 'null'] } },
            version: { const: 1 },
            later: { type: 'boolean' },
          },
        },
        'things.schema.json': { type: 'array', items: { $ref: 'thing.schema.json' } },
      }),
    );
    expect(text).toContain(`/** A thing. */
export interface Thing {
  part: ThingPart | null;
  kind: 'big' | 'it\\'s';
  /** Free text. */
  note: string | null;
  names: string[];
  byName: Record<string, number>;
  mixed: Array<number | null>;
  version: 1;
  later?: boolean;
}`);
    expect(text).toContain('export interface ThingPart {\n  id: string;\n}');
    expect(text).toContain('export type Things = Thing[];');
  });

  it('refuses what it cannot say, naming the schema and the place', () => {
    expect(() => schemaTypesModule(schemas({ 'a.schema.json': { type: 'object', additionalProperties: false, properties: { x: { oneOf: [{ type: 'string' }] } } } }))).toThrow(
      'a.schema.json/properties/x: the keyword oneOf has no TypeScript form here',
    );
    expect(() => schemaTypesModule(schemas({ 'a.schema.json': { $ref: 'missing.schema.json' } }))).toThrow('a.schema.json: $ref missing.schema.json is not a file of schemas/');
    expect(() => schemaTypesModule(schemas({ 'a.schema.json': { type: 'object', properties: {} } }))).toThrow(
      'a.schema.json: an object with properties must say additionalProperties: false',
    );
  });
});
