// The JSON Schemas of schemas/, compiled once with ajv. The builder validates every resource
// before publishing; tests validate what the gateway serves against the API schemas.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ResourceKind } from './layout.ts';

const SCHEMA_DIR = fileURLToPath(new URL('../schemas/', import.meta.url));
const BASE = 'https://marquee.example/schemas/';

export type SchemaName =
  | 'organization' | 'team' | 'speaker-list' | 'sponsor-list' | 'session-list' | 'event-index'
  | 'stored-event-detail' | 'event-summary' | 'event-detail' | 'paged-event-summaries'
  | 'problem-details' | 'manifest' | 'pointer' | 'speaker' | 'sponsor' | 'session' | 'team-member';

/** The schema each kind of stored resource must satisfy. */
export const SCHEMA_OF_KIND: Record<ResourceKind, SchemaName> = {
  organization: 'organization',
  team: 'team',
  speakers: 'speaker-list',
  sponsors: 'sponsor-list',
  eventIndex: 'event-index',
  event: 'stored-event-detail',
  eventSessions: 'session-list',
  eventSpeakers: 'speaker-list',
  eventSponsors: 'sponsor-list',
};

export type Validation = { valid: true } | { valid: false; reason: string };

export class SchemaSet {
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(dir: string = SCHEMA_DIR) {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: false });
    addFormats.default(ajv);
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.schema.json'))) {
      ajv.addSchema(JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as object);
    }
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.schema.json'))) {
      const name = file.slice(0, -'.schema.json'.length);
      this.validators.set(name, ajv.getSchema(`${BASE}${file}`)!);
    }
  }

  validate(schema: SchemaName, value: unknown): Validation {
    const validator = this.validators.get(schema);
    if (!validator) throw new Error(`no schema named ${schema}`);
    if (validator(value)) return { valid: true };
    return { valid: false, reason: describe(validator.errors ?? []) };
  }
}

function describe(errors: ErrorObject[]): string {
  const first = errors[0];
  if (!first) return 'invalid';
  const where = first.instancePath || '(root)';
  const extra = first.keyword === 'additionalProperties'
    ? ` (${String((first.params as { additionalProperty: string }).additionalProperty)})`
    : '';
  return `${where} ${first.message ?? 'is invalid'}${extra}`;
}
