// Every admin request's path parameters, query and body checked against its route's JSON Schemas (api-routes.ts),
// compiled once with ajv as the project's other schemas are. A request that fails is the
// operator's 400, whose detail names the field and says what it must be, in words taken from the
// schema: the same words whichever route it is.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonSchema } from './api-schemas.ts';
import { badRequest } from './errors.ts';

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: false });

/**
 * A route's check of its path parameters, compiled now: a segment that is not of its form (a
 * snapshot id that is `../../x`) is a 400 naming it, before anything is looked up with it.
 */
export function paramsReader(schema: JsonSchema): (params: unknown) => void {
  const validate = ajv.compile(schema);
  return (params) => {
    if (!validate(params)) throw badRequest(parameterMistake('path parameter', firstError(validate), schema));
  };
}

/**
 * A route's query check, compiled now (a broken schema stops start-up, not a request): the query
 * as `Query`, the type the schema stands for (api-route.ts), or a 400 naming the parameter.
 */
export function queryReader<Query>(schema: JsonSchema): (query: unknown) => Query {
  const validate: ValidateFunction<Query> = ajv.compile<Query>(schema);
  return (query) => {
    if (!validate(query)) throw badRequest(parameterMistake('query parameter', firstError(validate), schema));
    return query;
  };
}

/** A route's body check, compiled now: the body as `Body`, or a 400 naming the field and what it must be. */
export function bodyReader<Body>(schema: JsonSchema): (body: unknown) => Body {
  const validate: ValidateFunction<Body> = ajv.compile<Body>(schema);
  return (body) => {
    if (!validate(body)) throw badRequest(bodyMistake(firstError(validate), schema));
    return body;
  };
}

/** allErrors is off: a value that failed has its first error, and only that one is told. */
function firstError(validate: ValidateFunction): ErrorObject {
  const [error] = validate.errors ?? [];
  if (error === undefined) throw new Error('ajv refused a value without saying why');
  return error;
}

type Properties = Record<string, JsonSchema>;

/** `kind`: "query parameter" or "path parameter". A value not of its form is told what the form is, from the schema's description. */
function parameterMistake(kind: string, error: ErrorObject, schema: JsonSchema): string {
  const name = fieldOf(error);
  if (error.keyword === 'required') return `the ${kind} ${name} is required`;
  if (name === undefined) return kind === 'path parameter' ? 'the path could not be read' : 'the query string could not be read';
  if (error.keyword === 'enum') return `the ${kind} ${name} must be one of ${(error.params as { allowedValues: readonly unknown[] }).allowedValues.join(', ')}`;
  const description = (schema.properties as Properties)[name]?.description;
  if ((error.keyword === 'pattern' || error.keyword === 'maxLength') && typeof description === 'string') return `the ${kind} ${name} is not of its form: ${description}`;
  return `the ${kind} ${name} must be given once, as text`;
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
