// Checks one HTTP exchange against the published contract, schemas/openapi.json: the operation
// is found by matching the request path against the document's path templates, the status must
// be declared for it, every header the response object declares as required must be present
// (and every declared header that is present must fit its schema), and the body must be valid
// against the response schema (ajv, JSON Schema 2020-12). The gateway tests run every response
// through it (test/support/gateway-fixtures.ts); tests of real clients can call it too.
//
// documentContractProblems makes the same checks against another document: the admin API's
// (test/support/admin-contract.ts).
//
// Not checked, because the document does not describe them: paths outside the API base (the
// health check, the document and its reference page) and OPTIONS (CORS preflights, which the
// gateway answers 204 without a key on any path below the base, before anything else).
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const OPENAPI_FILE = new URL('../../schemas/openapi.json', import.meta.url);

/** One request and the response it got, as a test saw them. */
export interface Exchange {
  method: string;
  /** The request target below the host, as sent: path and query, e.g. /api/integration/v1/events?page=2. */
  path: string;
  status: number;
  /** Header names in any case; a repeated header may come as an array. */
  headers: Headers | Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The body as text; '' when there was none. */
  body: string;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

/**
 * What in the exchange contradicts schemas/openapi.json; [] when nothing does, undefined when
 * the document does not describe the request at all (outside the API base, or OPTIONS).
 */
export function contractProblems(exchange: Exchange): string[] | undefined {
  return contract().problems(exchange);
}

/** Throws a ContractViolation naming the request and every problem. */
export function assertContract(exchange: Exchange): void {
  const problems = contractProblems(exchange);
  if (problems === undefined || problems.length === 0) return;
  const body = exchange.body.length > 500 ? `${exchange.body.slice(0, 500)}…` : exchange.body;
  throw new ContractViolation(
    `${exchange.method} ${exchange.path} → ${exchange.status} breaks schemas/openapi.json:\n${problems.map((problem) => `  - ${problem}`).join('\n')}\n  body: ${body}`,
  );
}

/** For fetch() clients: checks a Response (read from a clone, so the caller can still read it). */
export async function assertFetchContract(method: string, url: string | URL, response: Response): Promise<void> {
  const target = new URL(url);
  assertContract({
    method,
    path: target.pathname + target.search,
    status: response.status,
    headers: response.headers,
    body: await response.clone().text(),
  });
}

// ---------------------------------------------------------------------------------------------

type Json = { [key: string]: unknown };

interface OpenApiDocument {
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Json>>;
  /** The public API's: what any other path below the base answers. */
  'x-unknown-paths'?: { responses: Record<string, Json> };
  components: { schemas: Record<string, Json>; responses: Record<string, Json>; headers: Record<string, Json> };
}

interface PathMatcher {
  template: string;
  pattern: RegExp;
}

/** Where the components are registered with ajv; the document's `#/components/schemas/X` refs point here. */
const COMPONENTS_ID = 'https://marquee.example/openapi.json/components';

class Contract {
  private readonly base: RegExp;
  private readonly matchers: PathMatcher[];
  private readonly ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(document.components.schemas) as Json });
    // As the gateway routes: the base case-insensitively, one trailing slash tolerated after it
    // and after a path; path templates case-sensitively, a parameter one non-empty segment.
    const base = document.servers[0]!.url.replace(/\/$/, '');
    this.base = new RegExp(`^${escapeRegExp(base)}(?:/$)?(?=/|$)`, 'i');
    this.matchers = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(
        `^${template
          .split(/\{[^}]+\}/)
          .map(escapeRegExp)
          .join('([^/]+)')}$`,
      ),
    }));
  }

  problems(exchange: Exchange): string[] | undefined {
    const method = exchange.method.toUpperCase();
    if (method === 'OPTIONS') return undefined;
    const pathname = exchange.path.split('?')[0]!;
    const base = this.base.exec(pathname);
    if (base === null) return undefined;
    let below = pathname.slice(base[0].length) || '/';
    if (!below.startsWith('/')) below = `/${below}`;
    if (below.length > 1 && below.endsWith('/')) below = below.slice(0, -1);

    const template = this.matchers.find((matcher) => matcher.pattern.test(below))?.template;
    let responses: Record<string, Json>;
    let where: string;
    let errorsOnly = false;
    if (template === undefined) {
      const unknown = this.document['x-unknown-paths'];
      if (unknown === undefined) return [`no operation has the path ${below}`];
      responses = unknown.responses;
      where = 'x-unknown-paths';
    } else {
      const pathItem = this.document.paths[template]!;
      const operation = pathItem[method === 'HEAD' ? 'get' : method.toLowerCase()];
      // Any other method on a known path is refused: the document lists those refusals on GET.
      errorsOnly = operation === undefined;
      responses = ((operation ?? pathItem.get) as { responses: Record<string, Json> }).responses;
      where = `${method === 'HEAD' || errorsOnly ? 'GET' : method} ${template}`;
    }

    const status = String(exchange.status);
    const declared = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
    if (declared === undefined || (errorsOnly && exchange.status < 400)) {
      return [`status ${status} is not declared for ${where}${errorsOnly ? ` (as an answer to ${method})` : ''}`];
    }
    const key = `${where} ${status}`;
    const response = this.resolve(declared, 'responses');
    return [...this.headerProblems(key, response, exchange.headers), ...this.bodyProblems(key, response, exchange, method)];
  }

  private headerProblems(key: string, response: Json, headers: Exchange['headers']): string[] {
    const problems: string[] = [];
    for (const [name, declared] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      const header = this.resolve(declared, 'headers');
      const value = headerValue(headers, name);
      if (value === undefined) {
        if (header.required === true) problems.push(`required header ${name} is missing`);
        continue;
      }
      const schema = header.schema as Json | undefined;
      if (schema === undefined) continue;
      const validate = this.validator(`${key} header ${name}`, schema);
      const instance = schema.type === 'integer' && /^-?[0-9]+$/.test(value) ? Number(value) : value;
      if (!validate(instance)) problems.push(`header ${name}: ${JSON.stringify(value)} ${(validate.errors ?? []).map((error) => error.message).join(', ')}`);
    }
    return problems;
  }

  private bodyProblems(key: string, response: Json, exchange: Exchange, method: string): string[] {
    const content = response.content as Record<string, { schema?: Json }> | undefined;
    if (content === undefined || method === 'HEAD') {
      return exchange.body === '' ? [] : [`a body was sent where ${method === 'HEAD' ? 'HEAD' : `a ${exchange.status}`} has none`];
    }
    const contentType = headerValue(exchange.headers, 'content-type');
    const mediaType = contentType === undefined ? undefined : (contentType.split(';')[0] ?? '').trim().toLowerCase();
    const media = mediaType === undefined ? undefined : content[mediaType];
    if (media === undefined) return [`Content-Type ${contentType ?? '(none)'} is not one of ${Object.keys(content).join(', ')}`];
    if (media.schema === undefined) return [];
    let body: unknown;
    try {
      body = JSON.parse(exchange.body);
    } catch {
      return [`the body is not JSON`];
    }
    const validate = this.validator(`${key} ${mediaType}`, media.schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).slice(0, 10).map((error) => `body${error.instancePath} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`);
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let validate = this.validators.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile(rewriteRefs(schema) as Json);
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** A response or header object, following a `$ref` into the document's components. */
  private resolve(object: Json, kind: 'responses' | 'headers'): Json {
    const ref = object.$ref;
    if (typeof ref !== 'string') return object;
    const prefix = `#/components/${kind}/`;
    const target = ref.startsWith(prefix) ? this.document.components[kind][ref.slice(prefix.length)] : undefined;
    if (target === undefined) throw new Error(`schemas/openapi.json: cannot resolve ${ref}`);
    return target;
  }
}

/** `#/components/schemas/X` → the same schema among the components registered with ajv. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, member] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof member === 'string' && member.startsWith('#/components/schemas/')
        ? `${COMPONENTS_ID}#/$defs/${member.slice('#/components/schemas/'.length)}`
        : rewriteRefs(member);
  }
  return out;
}

function headerValue(headers: Exchange['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [candidate, value] of Object.entries(headers)) {
    if (candidate.toLowerCase() !== wanted || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(', ');
  }
  return undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

let loaded: Contract | undefined;

const others = new WeakMap<object, Contract>();

/** The same checks against another OpenAPI 3.1 document (the admin API's, made in memory), compiled once per document. */
export function documentContractProblems(document: object, exchange: Exchange): string[] | undefined {
  let checks = others.get(document);
  if (checks === undefined) {
    checks = new Contract(document as OpenApiDocument);
    others.set(document, checks);
  }
  return checks.problems(exchange);
}

/** The document is read and compiled once per process, on first use. */
function contract(): Contract {
  loaded ??= new Contract(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDocument);
  return loaded;
}
