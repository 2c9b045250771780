// The public queries' parsers (docs/api.md §4.1, §10), compiled with ajv from their one declaration,
// QUERY_SCHEMAS (snapshot/resource-catalog.ts), and typed from it (snapshot/schema-types.ts):
// defaults, and a 400 naming the parameter and the rule for anything else. Unknown parameters are
// ignored (docs/design.md decisions table).
import { parse } from 'node:querystring';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { QUERY_SCHEMAS } from '../../snapshot/resource-catalog.ts';
import type { ChangesQuery, EventsQuery } from '../../snapshot/schema-types.ts';
import { badRequest } from '../errors.ts';

/** A query's schema as QUERY_SCHEMAS writes it: an object of named members. */
interface QuerySchema {
  readonly properties: { readonly [name: string]: MemberSchema };
}

interface MemberSchema {
  readonly type: string;
  readonly enum?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: unknown;
  readonly title?: string;
}

/** A decimal integer as the parameters take it: digits only, no sign, space, exponent or 0x. */
const DIGITS = /^[0-9]{1,10}$/;
const PARSED_QUERIES_KEPT = 256;

interface Member {
  readonly name: string;
  readonly integer: boolean;
  readonly fallback: unknown;
  readonly validate: ValidateFunction;
  /** The 400's detail for a value the schema refuses. */
  readonly refusal: string;
}

/**
 * The parser of a query string into `Query`, the type generated from `schema`. Members are read in
 * the schema's order, and the first bad one is the one a 400 names. Sites ask for a handful of
 * pages over and over, so each query string's answer is parsed once and kept (a bounded map,
 * emptied when full; a refusal is not kept).
 */
function queryParser<Query>(schema: QuerySchema): (queryString: string) => Readonly<Query> {
  const ajv = new Ajv2020({ strict: true, allErrors: false });
  const members: Member[] = Object.entries(schema.properties).map(([name, member]) => ({
    name,
    integer: member.type === 'integer',
    fallback: member.default,
    validate: ajv.compile(member),
    refusal: `${name} must be ${ruleOf(name, member)}.`,
  }));
  const parsed = new Map<string, Readonly<Query>>();
  return (queryString) => {
    let query = parsed.get(queryString);
    if (query === undefined) {
      query = Object.freeze(queryOf<Query>(members, parse(queryString)));
      if (parsed.size >= PARSED_QUERIES_KEPT) parsed.clear();
      parsed.set(queryString, query);
    }
    return query;
  };
}

/** The rule a 400 states, in words, from the member's schema. */
function ruleOf(name: string, member: MemberSchema): string {
  if (member.enum !== undefined) return `one of ${member.enum.join(', ')}`;
  if (member.type === 'integer') return `an integer from ${member.minimum} to ${member.maximum}`;
  if (member.title === undefined) throw new Error(`query parameter ${name}: a rule in words (title) is needed where enum or integer bounds say none`);
  return member.title;
}

/** The parameters as node:querystring parses them: a repeated parameter arrives as an array. */
function queryOf<Query>(members: readonly Member[], parameters: Readonly<Record<string, unknown>>): Query {
  const query: Record<string, unknown> = {};
  for (const { name, integer, fallback, validate, refusal } of members) {
    if (!Object.hasOwn(parameters, name)) {
      if (fallback !== undefined) query[name] = fallback;
      continue;
    }
    const text = parameters[name];
    if (typeof text !== 'string') throw badRequest(`${name} must be given at most once.`);
    // A text that is not digits stays a string, which the integer schema refuses.
    const value = integer && DIGITS.test(text) ? Number(text) : text;
    if (!validate(value)) throw badRequest(refusal);
    query[name] = value;
  }
  // Every member the schema names was read and validated against it, defaults filled in.
  return query as Query;
}

/** GET /events: which page (docs/api.md §4.1). */
export const parseEventsQuery = queryParser<EventsQuery>(QUERY_SCHEMAS.EventsQuery);

/** GET /changes: `since`, a snapshot id as an answer named it (docs/api.md §10); no member without it. */
export const parseChangesQuery = queryParser<ChangesQuery>(QUERY_SCHEMAS.ChangesQuery);
