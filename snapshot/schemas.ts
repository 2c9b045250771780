// The JSON Schemas of schemas/, compiled once with ajv. The builder validates every resource
// before publishing; tests validate what the gateway serves against the API schemas.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { readSchemaFiles, SCHEMA_DIR, SCHEMA_SUFFIX, type SchemaName } from './schema-catalog.ts';

const BASE = 'https://marquee.example/schemas/';

export type Validation = { valid: true } | { valid: false; reason: string };

export class SchemaSet {
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(dir: string = SCHEMA_DIR) {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: false });
    addFormats.default(ajv);
    const files = readSchemaFiles(dir);
    for (const schema of files.values()) ajv.addSchema(schema);
    for (const file of files.keys()) {
      this.validators.set(file.slice(0, -SCHEMA_SUFFIX.length), ajv.getSchema(`${BASE}${file}`)!);
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
  const extra = first.keyword === 'additionalProperties' ? ` (${String((first.params as { additionalProperty: string }).additionalProperty)})` : '';
  return `${where} ${first.message ?? 'is invalid'}${extra}`;
}
