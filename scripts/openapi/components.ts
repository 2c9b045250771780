// The published schemas of the OpenAPI document, derived from the JSON Schemas of schemas/ — the
// very files the builder validates every resource with — so no field is ever written down twice.
// Derivation only removes what does not belong in a published contract: `$schema` and `$id`
// (the document is the schemas' home now, and an `$id` would change how its `$ref`s resolve),
// and `additionalProperties: false`. The builder keeps refusing unknown fields before anything is
// published; a client must not refuse them, because a later version of the API may add fields
// (docs/api.md §9: the version is in the path, additions are not breaking). Everything else, the order
// of `properties` included, is kept as it is in the source file.
import { readSchemaFiles, SCHEMA_SUFFIX, type SchemaDocument } from '../../snapshot/schema-catalog.ts';

let sourceFiles: ReadonlyMap<string, SchemaDocument> | undefined;

/** Component name → source schema file (without `.schema.json`), in the order the document lists them. */
export const COMPONENT_SOURCES = {
  Organization: 'organization',
  TeamMember: 'team-member',
  Speaker: 'speaker',
  Sponsor: 'sponsor',
  Session: 'session',
  Instant: 'instant',
  Image: 'image',
  EventSummary: 'event-summary',
  EventDetail: 'event-detail',
  PagedResponseOfEventSummary: 'paged-event-summaries',
  Changes: 'changes',
  ProblemDetails: 'problem-details',
} as const;

export type ComponentName = keyof typeof COMPONENT_SOURCES;

/** A JSON Schema as a plain JSON object. */
export type JsonSchema = { [keyword: string]: unknown };

const COMPONENT_OF_FILE = new Map<string, ComponentName>(Object.entries(COMPONENT_SOURCES).map(([component, file]) => [`${file}.schema.json`, component as ComponentName]));

export const componentRef = (name: ComponentName): string => `#/components/schemas/${name}`;

/** The component a schema of schemas/ is published as; undefined for list schemas (team, …). */
export const componentOfSchema = (schema: string): ComponentName | undefined => COMPONENT_OF_FILE.get(`${schema}.schema.json`);

/** One schema of schemas/, read by the same loader as the builder's validator and key order. */
export function readSourceSchema(file: string): JsonSchema {
  sourceFiles ??= readSchemaFiles();
  const schema = sourceFiles.get(`${file}${SCHEMA_SUFFIX}`);
  if (schema === undefined) throw new Error(`no schema file ${file}${SCHEMA_SUFFIX} in schemas/`);
  return schema as JsonSchema;
}

/** Every component schema, published form, in COMPONENT_SOURCES order. */
export function componentSchemas(): Record<ComponentName, JsonSchema> {
  const out = {} as Record<ComponentName, JsonSchema>;
  for (const [name, file] of Object.entries(COMPONENT_SOURCES) as Array<[ComponentName, string]>) {
    out[name] = publishedSchema(readSourceSchema(file));
  }
  return out;
}

/**
 * The published form of a response body schema that is not a component of its own (the list
 * schemas such as team.schema.json): its title names the route, which the operation already does.
 */
export function responseSchema(file: string): JsonSchema {
  const { title: _title, ...schema } = publishedSchema(readSourceSchema(file));
  return schema;
}

/** Recursively: no `$schema`/`$id`, no `additionalProperties: false`, file `$ref`s → component refs. */
export function publishedSchema(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === '$schema' || keyword === '$id') continue;
    if (keyword === 'additionalProperties' && value === false) continue;
    if (keyword === '$ref' && typeof value === 'string') {
      const component = COMPONENT_OF_FILE.get(value);
      if (component === undefined) throw new Error(`$ref ${value} names a schema that is not a published component`);
      out.$ref = componentRef(component);
      continue;
    }
    if (DATA_KEYWORDS.has(keyword)) out[keyword] = value;
    else if (SCHEMA_MAP_KEYWORDS.has(keyword)) out[keyword] = mapValues(value as Record<string, JsonSchema>, publishedSchema);
    else out[keyword] = subschemas(value);
  }
  return out;
}

/** Keywords whose values are instances or names, never schemas: copied as they are. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required', 'title', 'description', 'type', 'format', 'pattern']);
/** Keywords whose values map names (which may be anything, `$ref` included) to schemas. */
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

function subschemas(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(subschemas);
  if (value !== null && typeof value === 'object') return publishedSchema(value as JsonSchema);
  return value;
}

function mapValues<T, U>(record: Record<string, T>, f: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]));
}

/**
 * `value` with every object's keys in the order of its schema's `properties` (keys the schema
 * does not name last, as they were): examples then read like the field tables, whatever order a
 * serializer wrote them in. `$ref`s are resolved among `components`; of `anyOf`/`oneOf`/`allOf`
 * branches, the first one describing an object or array is followed.
 */
export function inSchemaOrder(value: unknown, schema: JsonSchema, components: Record<string, JsonSchema>): unknown {
  const resolved = resolve(schema, components);
  if (Array.isArray(value)) {
    const items = resolved.items as JsonSchema | undefined;
    return items === undefined ? value : value.map((item) => inSchemaOrder(item, items, components));
  }
  if (value === null || typeof value !== 'object') return value;
  const properties = resolved.properties as Record<string, JsonSchema> | undefined;
  if (properties === undefined) {
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
      for (const branch of (resolved[keyword] as JsonSchema[] | undefined) ?? []) {
        const candidate = resolve(branch, components);
        if (candidate.properties !== undefined || candidate.allOf !== undefined) return inSchemaOrder(value, candidate, components);
      }
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const [key, propertySchema] of Object.entries(properties)) {
    if (Object.hasOwn(record, key)) ordered[key] = inSchemaOrder(record[key], propertySchema, components);
  }
  for (const [key, member] of Object.entries(record)) if (!Object.hasOwn(ordered, key)) ordered[key] = member;
  return ordered;
}

function resolve(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  let current = schema;
  for (let depth = 0; typeof current.$ref === 'string'; depth++) {
    const name = current.$ref.slice('#/components/schemas/'.length);
    const target = components[name];
    if (target === undefined || depth > 8) throw new Error(`cannot resolve ${current.$ref}`);
    current = target;
  }
  return current;
}
