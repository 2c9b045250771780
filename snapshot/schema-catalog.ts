// The JSON Schemas of schemas/ as documents: their names and the files read once (which schema
// each resource satisfies is the resource catalog's, snapshot/resource-catalog.ts). Both the
// validator (snapshot/schemas.ts, ajv) and the canonical key order (snapshot/key-order.ts) are
// derived from these, so the order in which a body lists its members is written in exactly one
// place: each schema's `properties`.
import { readdirSync, readFileSync } from 'node:fs';
import { packagePath } from '../runtime/package-root.ts';

export const SCHEMA_DIR = packagePath('schemas');
export const SCHEMA_SUFFIX = '.schema.json';

export type SchemaName =
  | 'organization'
  | 'team'
  | 'speaker-list'
  | 'sponsor-list'
  | 'session-list'
  | 'event-index'
  | 'stored-event-detail'
  | 'stored-event-summary'
  | 'event-summary'
  | 'event-detail'
  | 'paged-event-summaries'
  | 'changes'
  | 'problem-details'
  | 'manifest'
  | 'pointer'
  | 'speaker'
  | 'sponsor'
  | 'session'
  | 'team-member';

/** A JSON Schema document or subschema, as parsed: only what Marquee reads of it is typed. */
export interface SchemaDocument {
  readonly $id?: string;
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, SchemaDocument>>;
  readonly additionalProperties?: boolean | SchemaDocument;
  readonly patternProperties?: Readonly<Record<string, SchemaDocument>>;
  readonly items?: SchemaDocument;
  readonly anyOf?: readonly SchemaDocument[];
  readonly oneOf?: readonly SchemaDocument[];
  readonly [keyword: string]: unknown;
}

/** Every schema file of `dir`, by file name (`organization.schema.json`), parsed. */
export function readSchemaFiles(dir: string = SCHEMA_DIR): ReadonlyMap<string, SchemaDocument> {
  const files = new Map<string, SchemaDocument>();
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith(SCHEMA_SUFFIX))
    .sort()) {
    files.set(file, JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as SchemaDocument);
  }
  return files;
}
