// Every admin request's query and body checked against its route's JSON Schemas (api-routes.ts),
// compiled once with ajv as the project's other schemas are. A request that fails is the
// operator's 400, whose detail names the field and says what it must be, in words taken from the
// schema: the same words whichever route it is.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { AdminRequest, AdminRoute } from './api-routes.ts';
import type { JsonSchema } from './api-schemas.ts';
import { badRequest } from './errors.ts';

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: false });

/** What arrives: path parameters as Express decoded them, the parsed query, the parsed body. */
interface ArrivingRequest {
  params: Record<string, string>;
  query: unknown;
  body: unknown;
}

/** The route's checks, compiled now: a broken schema stops start-up, not a request. */
export function requestValidator(route: AdminRoute): (request: ArrivingRequest) => AdminRequest {
  const query = route.query === undefined ? undefined : compiled(route.query);
  const body = route.body === undefined ? undefined : compiled(route.body);
  return (request) => {
    if (query !== undefined && !query.validate(request.query)) throw badRequest(queryMistake(query.validate.errors![0]!));
    if (body !== undefined && !body.validate(request.body)) throw badRequest(bodyMistake(body.validate.errors![0]!, body.schema));
    return {
      params: request.params,
      query: (query === undefined ? {} : request.query) as Record<string, string>,
      body: (body === undefined ? {} : request.body) as Record<string, unknown>,
    };
  };
}

function compiled(schema: JsonSchema): { validate: ValidateFunction; schema: JsonSchema } {
  return { validate: ajv.compile(schema), schema };
}

type Properties = Record<string, JsonSchema>;

function queryMistake(error: ErrorObject): string {
  const name = fieldOf(error);
  if (error.keyword === 'required') return `the query parameter ${name} is required`;
  if (name === undefined) return 'the query string could not be read';
  return `the query parameter ${name} must be given once, as text`;
}

function bodyMistake(error: ErrorObject, schema: JsonSchema): string {
  const name = fieldOf(error);
  if (name === undefined) return 'the request body must be a JSON object';
  const property = (schema.properties as Properties)[name] ?? {};
  const description = typeof property.description === 'string' ? ` (${property.description})` : '';
  if (error.keyword === 'required') return `${name}${description} is required`;
  return `${name} must be ${inWords(property)}`;
}

/** The top-level member the error is about; undefined when it is about the whole object. */
function fieldOf(error: ErrorObject): string | undefined {
  if (error.keyword === 'required') return (error.params as { missingProperty: string }).missingProperty;
  const [name] = error.instancePath.split('/').slice(1);
  return name === undefined || name === '' ? undefined : name.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** What a value of the schema is, as a sentence ends: "an array of strings", "a string or null". */
function inWords(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.join(', ')}`;
  const types = [schema.type ?? []].flat() as string[];
  if (types.length === 0) return 'valid';
  return types
    .map((type) => {
      if (type === 'array') return `an array of ${plural((schema.items as JsonSchema | undefined)?.type)}`;
      if (type === 'string') return typeof schema.minLength === 'number' && schema.minLength > 0 ? 'a non-empty string' : 'a string';
      if (type === 'number' || type === 'integer') return typeof schema.minimum === 'number' ? `a ${type}, ${schema.minimum} or more` : `a ${type}`;
      if (type === 'boolean') return 'true or false';
      if (type === 'object') return 'a JSON object';
      return type;
    })
    .join(' or ');
}

function plural(type: unknown): string {
  return typeof type === 'string' ? `${type}s` : 'values';
}
