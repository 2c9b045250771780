// The OpenAPI 3.1 description of the integration API: the contract's operations, parameters,
// headers and errors as the gateway answers them (gateway/routes/, gateway/access/,
// gateway/errors.ts, gateway/problem.ts), around the component schemas derived from schemas/
// (components.ts) and with examples the real gateway gave for the sample data (examples.ts).
import { CODINGS, MIN_CODED_BYTES } from '../../snapshot/codings.ts';
import { CACHE_CONTROL } from '../../snapshot/representation.ts';
import { API_ROUTES } from '../../gateway/api-routes.ts';
import type { ErrorCode } from '../../gateway/errors.ts';
import { API_BASE, QUERY_SCHEMAS } from '../../snapshot/resource-catalog.ts';
import { componentOfSchema, componentRef, componentSchemas, inSchemaOrder, responseSchema, type JsonSchema } from './components.ts';
import { EXAMPLE_INSTANT, type ExampleName, type Examples } from './examples.ts';
import { queryParameters } from './query-parameters.ts';

/** docs/api.md §9: "The interface description states version 1.0." */
const VERSION = '1.0';

/** What every response varies on: the key and the origin choose its content, Accept-Encoding its coding. */
const VARY = 'Authorization, X-Api-Key, Origin, Accept-Encoding, Marquee-Snapshot-Id';

const DESCRIPTION = `Read-only access for an organization's own website to that organization's data on the events
platform: its public profile, its published events with their programme, speakers and sponsors,
its sponsor pool and speaker list, and the team members it chose to show.

Each API key belongs to exactly one organization, and every answer is that organization's data:
no URL names an organization. Only published events, speakers who accepted their invitation and
team members marked for display are returned, and never a person's e-mail address.

**Keys.** Send the key as \`Authorization: Bearer <key>\` or as \`X-Api-Key: <key>\`; two different
keys in the two headers are refused. A key whose owner listed allowed site addresses may be used
from those sites' page JavaScript; a key without such a list is for servers only, and a request
carrying \`Origin\` is refused with it.

**Order of checks.** Key (401; an address that keeps sending invalid keys gets 429 instead),
organization state (403), browser origin (403), rate limit (429), path (404) and method (405),
parameters and \`Marquee-Snapshot-Id\` (400), a pinned snapshot (409), the resource (404), the
content coding (406, after a matching \`If-None-Match\` has had its 304). Any path below the base that names no operation here
answers 404 \`NOT_FOUND\` once the key has passed (\`x-unknown-paths\` lists its answers); a method
other than GET, HEAD or OPTIONS answers 405 \`METHOD_NOT_ALLOWED\` with \`Allow\`.

**Caching.** Every 200 and 304 carries a strong \`ETag\` and \`Cache-Control: ${CACHE_CONTROL}\`.
Send the tag back in \`If-None-Match\` (one tag, a list, or \`*\`; compared weakly, whatever the
request's own \`Cache-Control\` says): while the content is unchanged the answer is 304 without a
body. Event lists and details depend on the clock (\`timing\`, \`isRegistrationOpen\`); their tag
changes exactly when those fields do. Errors carry \`Cache-Control: no-store\` and no tag.

**Compression.** An answer of ${MIN_CODED_BYTES.toLocaleString('en-US')} bytes or more is sent \`Content-Encoding: br\` or \`gzip\` as the
request's \`Accept-Encoding\` allows (quality values, \`identity;q=0\` and \`*\` honoured; br when both
are equally welcome); a smaller one, and any answer to a request without \`Accept-Encoding\`, is
the JSON as it is. The \`ETag\` is the same for every coding: it names the JSON. A request that
refuses the JSON as it is and accepts neither br nor gzip gets 406 \`NOT_ACCEPTABLE\`. Every
response carries \`Vary: ${VARY}\`.

**One build, one snapshot.** Every answer a snapshot decides (200, 304, 404 \`EVENT_NOT_FOUND\`)
names it in \`Marquee-Snapshot-Id\`. Send that id back in the request header of the same name and
the answer comes from that snapshot while it is current or stopped being current less than the pin
window ago (10 minutes unless the operator says otherwise), so a site's build that reads many
answers reads one snapshot throughout. Past the window, or for an id the organization never had,
the answer is 409 \`SNAPSHOT_NOT_CURRENT\` naming the current snapshot: start over from it. A pin
changes nothing else: the key, its origins, the rate limit and the organization's state are judged
now, and clock-dependent fields are computed for now.

**Rate limit.** Requests are counted per key in a sliding 60-second window. Every response to a
counted request carries \`RateLimit-Policy\` and \`RateLimit\` (IETF HTTPAPI RateLimit header fields
draft); over the limit the answer is 429 \`RATE_LIMITED\` with \`Retry-After\` in seconds.

**Errors** are \`application/problem+json\` (RFC 7807) with \`type\`, \`title\`, \`status\`,
\`detail\`, \`instance\` and \`errorCode\`. \`instance\` is the request path without the query, then
\`#request=\` and the request's id. Clients branch on \`errorCode\`; each response below lists
the codes it can carry. A 503 \`SERVICE_UNAVAILABLE\` is temporary: retry after \`Retry-After\`
seconds.

**HEAD, CORS.** Every operation answers HEAD with GET's status and headers and no body. CORS is
open: \`Access-Control-Allow-Origin: *\` on every response, errors included, and preflight
requests are answered 204 without a key. Browser requests carry no cookies. Every response
carries \`X-Content-Type-Options: nosniff\`.

**Versioning.** The version is part of the path. Fields may be added to any object within a
version, so a client should ignore fields it does not know.

The examples are the gateway's real answers for the platform's sample data at ${EXAMPLE_INSTANT}.`;

const PROBLEM_JSON = 'application/problem+json';
const JSON_TYPE = 'application/json';

/**
 * What the document says of one route of the gateway's table (gateway/api-routes.ts, from the
 * resource catalog), which gives the path, the operationId and the 200 body's schema.
 */
interface OperationText {
  tag: 'Organization' | 'Events' | 'Changes';
  summary: string;
  description: string;
  example: ExampleName;
  parameters: readonly string[];
  /** The 400 (beside a malformed pin, which every operation can answer) and 404 responses of components.responses. */
  badRequest?: string;
  notFound: 'NotFound' | 'EventNotFound';
  /** A 410 of components.responses, for an operation that can give one. */
  gone?: string;
}

/** The public queries' parameters, from their schemas: the operations name them, components.parameters holds them. */
const EVENTS_PARAMETERS = queryParameters(QUERY_SCHEMAS.EventsQuery);
const CHANGES_PARAMETERS = queryParameters(QUERY_SCHEMAS.ChangesQuery);

const EVENT_PART_ERRORS = { parameters: ['IdOrSlug'], badRequest: 'InvalidPathEncoding', notFound: 'EventNotFound' } as const;

const OPERATION_TEXT: Record<string, OperationText> = {
  getOrganization: {
    tag: 'Organization',
    summary: 'The organization',
    description: "The public profile of the key's organization. `email` is its public contact address, the only e-mail address the API returns.",
    example: 'organization',
    parameters: [],
    notFound: 'NotFound',
  },
  listTeamMembers: {
    tag: 'Organization',
    summary: 'Team members shown on the website',
    description: 'The team members the organization marked for display, by `sortOrder` ascending. A person removed from the team or hidden drops out at once.',
    example: 'team',
    parameters: [],
    notFound: 'NotFound',
  },
  listSpeakers: {
    tag: 'Organization',
    summary: 'All confirmed speakers',
    description: 'Every speaker of the organization who accepted an invitation, by name, not tied to one event. People who were only invited are never announced.',
    example: 'speakers',
    parameters: [],
    notFound: 'NotFound',
  },
  listSponsors: {
    tag: 'Organization',
    summary: 'The sponsor pool',
    description: "The organization's sponsors, by name. Here `tier` is always null and `sortOrder` always 0; an event's own list has both.",
    example: 'sponsors',
    parameters: [],
    notFound: 'NotFound',
  },
  listEvents: {
    tag: 'Events',
    summary: 'Published events, a page at a time',
    description:
      'Published events whose `timing` matches the filter, decided by the clock at the time of the call. ' +
      '`upcoming`, `ongoing` and `all` list by start ascending, `past` by start descending (newest first); ties by name, then id. ' +
      'A page beyond the last is a 200 with empty `items`, the true `totalCount` and `hasMore: false`. ' +
      'Unknown query parameters are ignored; a parameter given twice is a 400.',
    example: 'events',
    parameters: Object.keys(EVENTS_PARAMETERS),
    badRequest: 'InvalidEventsParameter',
    notFound: 'NotFound',
  },
  getEvent: {
    tag: 'Events',
    summary: 'One event in full',
    description: 'One published event with its programme, speakers and sponsors. `timing` and `isRegistrationOpen` are decided by the clock at the time of the call.',
    example: 'event',
    ...EVENT_PART_ERRORS,
  },
  listEventSessions: {
    tag: 'Events',
    summary: "An event's programme",
    description: "The event's scheduled sessions in programme order (start, end, name), each with its confirmed speakers in billing order.",
    example: 'eventSessions',
    ...EVENT_PART_ERRORS,
  },
  listEventSpeakers: {
    tag: 'Events',
    summary: "An event's speakers",
    description: "The confirmed speakers of the event's scheduled sessions, each once, in programme order. Empty when the event has no programme yet: speakers attach to sessions.",
    example: 'eventSpeakers',
    ...EVENT_PART_ERRORS,
  },
  listEventSponsors: {
    tag: 'Events',
    summary: "An event's sponsors",
    description: "The event's sponsors in the order the organizer arranged them, with their tiers.",
    example: 'eventSponsors',
    ...EVENT_PART_ERRORS,
  },
  listChanges: {
    tag: 'Changes',
    summary: 'What changed since a snapshot',
    description:
      'With `since` (a snapshot id an earlier answer named): every path whose stored source changed since that snapshot, with the `ETag` a GET of it answers now, ' +
      'and every path removed — read from the two snapshots alone. Without `since`: every path with its `ETag`, the initial sync. ' +
      '`/events` stands for the list without parameters; lists and details whose answers depend on the clock are named when their stored source changed, ' +
      'and `nextClockChangeAt` says when the clock alone will next change one (rebuild then, with no publish). ' +
      'A `since` the store no longer keeps is 410 `SNAPSHOT_EXPIRED`: read everything again. Pin it (`Marquee-Snapshot-Id`) like any answer.',
    example: 'changes',
    parameters: Object.keys(CHANGES_PARAMETERS),
    badRequest: 'InvalidChangesParameter',
    notFound: 'NotFound',
    gone: 'SinceExpired',
  },
};

// Response headers (RFC 9110 unless said otherwise). In components.headers they are required;
// where a header is sent only sometimes, the response copies it with `required: false`.
// Content-Encoding, which no response always carries, is the one declared optional here.
/** A strong entity tag (RFC 9110 §8.8.3): the gateway never sends weak ones. */
const ENTITY_TAG = '^"[\\x21\\x23-\\x7e]*"$';
/** A snapshot id: when it was published (UTC, to the millisecond) and a digest of its content. */
const SNAPSHOT_ID = '^\\d{8}T\\d{9}Z-[0-9a-f]{12}$';

const HEADERS: Record<string, JsonSchema> = {
  ETag: {
    description: "A strong entity tag naming the exact bytes of the answer's JSON, the same whatever content coding it travels in. Send it back in `If-None-Match`.",
    required: true,
    schema: { type: 'string', pattern: ENTITY_TAG },
    example: '"9f2c4d0e7b1a5c3f8e6d2b4a0c9e7f5d3b1a8c6e4f2d0b9a7c5e3f1d8b6a4c2e"',
  },
  'Cache-Control': {
    description: 'Every 200 and 304: the same response need not be requested again for a minute.',
    required: true,
    schema: { type: 'string', const: CACHE_CONTROL },
  },
  'Content-Encoding': {
    description: `The body's content coding, as the request's \`Accept-Encoding\` allowed: sent for bodies of ${MIN_CODED_BYTES.toLocaleString('en-US')} bytes or more (and smaller ones when the request refuses \`identity\`); absent when the body is the JSON as it is.`,
    required: false,
    schema: { type: 'string', enum: [...CODINGS] },
  },
  Vary: {
    description: 'Every response: the key and the origin decide its content, `Accept-Encoding` its coding.',
    required: true,
    schema: { type: 'string', const: VARY },
  },
  'Cache-Control-Error': {
    description: 'Errors are never stored.',
    required: true,
    schema: { type: 'string', const: 'no-store' },
  },
  RateLimit: {
    description: "The key's remaining quota `r` and the seconds `t` until it next grows (IETF HTTPAPI RateLimit header fields draft).",
    required: true,
    schema: { type: 'string', pattern: '^"[^"]+";r=[0-9]+;t=[0-9]+$' },
    example: '"default";r=599;t=60',
  },
  'RateLimit-Policy': {
    description: 'The quota `q` per window of `w` seconds that applies to the key.',
    required: true,
    schema: { type: 'string', pattern: '^"[^"]+";q=[0-9]+;w=[0-9]+$' },
    example: '"default";q=600;w=60',
  },
  'Retry-After': {
    description: 'Whole seconds to wait before the next request can be accepted.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
    example: 15,
  },
  'Access-Control-Allow-Origin': {
    description: 'CORS is open on every response, errors included, so page JavaScript can read `errorCode`.',
    required: true,
    schema: { type: 'string', const: '*' },
  },
  'X-Content-Type-Options': {
    description: 'Every response, errors included: a browser never reads a body as anything but its declared type.',
    required: true,
    schema: { type: 'string', const: 'nosniff' },
  },
  'WWW-Authenticate': {
    description: 'The challenge a 401 carries (RFC 9110 §11.6.1).',
    required: true,
    schema: { type: 'string', const: 'Bearer' },
  },
  Allow: {
    description: 'The methods this path answers.',
    required: true,
    schema: { type: 'string', const: 'GET, HEAD, OPTIONS' },
  },
  'Marquee-Snapshot-Id': {
    description:
      'The snapshot the answer came from: the current one, or the one the request pinned. Send it back as the request header of the same name to read the same snapshot again.',
    required: true,
    schema: { type: 'string', pattern: SNAPSHOT_ID },
    example: '20260501T120000000Z-3f1d8b6a4c2e',
  },
  'X-Request-Id': {
    description:
      "Every response: the request's id, as sent in the request's own `X-Request-Id` when that is 1 to 128 of `A-Z a-z 0-9 . _ : -`, otherwise a new one. Quote it when reporting a problem: the gateway's logs name it.",
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
    example: 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6',
  },
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Headers of every response to a request that was counted against its key. */
const COUNTED = { RateLimit: headerRef('RateLimit'), 'RateLimit-Policy': headerRef('RateLimit-Policy') };

/** The rate-limit headers where they are sent only sometimes: a copy of each with `required: false`. */
function sometimesCounted(all: Record<string, JsonSchema>, when: string) {
  const optional = (name: string) => ({ ...all[name], description: `${String(all[name]!.description)} ${when}`, required: false });
  return { RateLimit: optional('RateLimit'), 'RateLimit-Policy': optional('RateLimit-Policy') };
}

const ERROR_HEADERS = {
  'Cache-Control': headerRef('Cache-Control-Error'),
  'Access-Control-Allow-Origin': headerRef('Access-Control-Allow-Origin'),
  Vary: headerRef('Vary'),
  'X-Content-Type-Options': headerRef('X-Content-Type-Options'),
  'X-Request-Id': headerRef('X-Request-Id'),
};

export function openApiDocument(examples: Examples): JsonSchema {
  const schemas = componentSchemas();

  /** A media type with one example: the real answer to the request it names. */
  const exampleOf = (name: ExampleName, schema: JsonSchema) => {
    const example = examples[name];
    return { summary: `${example.method} ${example.target}`, value: inSchemaOrder(example.body, schema, schemas) };
  };

  /** An error response: ProblemDetails narrowed to the codes this response carries. */
  const problem = (description: string, codes: ErrorCode[], exampleNames: ExampleName[], extraHeaders: Record<string, unknown>) => {
    const schema: JsonSchema = {
      allOf: [{ $ref: componentRef('ProblemDetails') }, { type: 'object', required: ['errorCode'], properties: { errorCode: { enum: codes } } }],
    };
    for (const name of exampleNames) {
      const code = (examples[name].body as { errorCode?: string }).errorCode as ErrorCode;
      if (!codes.includes(code)) throw new Error(`example ${name} answered ${code}, not one of ${codes.join(', ')}`);
    }
    return {
      description,
      headers: { ...ERROR_HEADERS, ...extraHeaders },
      content: {
        [PROBLEM_JSON]: {
          schema,
          examples: Object.fromEntries(exampleNames.map((name) => [name, exampleOf(name, schema)])),
        },
      },
    };
  };

  const counted = sometimesCounted(HEADERS, 'Sent when the request was counted against its key.');
  const responses = {
    NotModified: {
      description: 'The representation is unchanged since the tag sent in `If-None-Match`: no body.',
      headers: {
        ETag: headerRef('ETag'),
        'Marquee-Snapshot-Id': headerRef('Marquee-Snapshot-Id'),
        'Cache-Control': headerRef('Cache-Control'),
        ...COUNTED,
        'Access-Control-Allow-Origin': headerRef('Access-Control-Allow-Origin'),
        Vary: headerRef('Vary'),
        'X-Content-Type-Options': headerRef('X-Content-Type-Options'),
        'X-Request-Id': headerRef('X-Request-Id'),
      },
    },
    InvalidEventsParameter: problem(
      'A parameter is invalid: not an integer, out of range, an unknown `timing`, or given twice; or `Marquee-Snapshot-Id` is not a snapshot id. `detail` names the parameter and the rule.',
      ['BAD_REQUEST'],
      ['invalidParameter'],
      COUNTED,
    ),
    InvalidPathEncoding: problem(
      'The `idOrSlug` path segment is not validly percent-encoded, or `Marquee-Snapshot-Id` is not a snapshot id.',
      ['BAD_REQUEST'],
      ['invalidPathEncoding'],
      COUNTED,
    ),
    InvalidChangesParameter: problem(
      '`since` is not one snapshot id, or `Marquee-Snapshot-Id` is not a snapshot id. `detail` names which.',
      ['BAD_REQUEST'],
      ['invalidSince'],
      COUNTED,
    ),
    SinceExpired: problem(
      '`since` names a snapshot the store no longer keeps (retention pruned it) or never had: there is nothing to compare with. Read everything again, from `/changes` without `since`; `currentSnapshotId` names the current snapshot.',
      ['SNAPSHOT_EXPIRED'],
      ['sinceExpired'],
      COUNTED,
    ),
    InvalidSnapshotPin: problem('`Marquee-Snapshot-Id` is not a snapshot id (one header, as an earlier answer named it).', ['BAD_REQUEST'], ['invalidSnapshotPin'], COUNTED),
    SnapshotNotCurrent: problem(
      "The snapshot the request pins (`Marquee-Snapshot-Id`) stopped being current longer ago than the pin window, or was never this organization's. " +
        '`currentSnapshotId` and the `Marquee-Snapshot-Id` header name the current snapshot: start over from it.',
      ['SNAPSHOT_NOT_CURRENT'],
      ['snapshotNotCurrent'],
      { ...COUNTED, 'Marquee-Snapshot-Id': headerRef('Marquee-Snapshot-Id') },
    ),
    Unauthorized: problem('The key is missing, malformed, unknown or revoked, or the two key headers carry different keys.', ['API_KEY_INVALID'], ['keyMissing'], {
      'WWW-Authenticate': headerRef('WWW-Authenticate'),
    }),
    Forbidden: problem(
      '`ORGANIZATION_SUSPENDED`: the organization is suspended or closed, and its data is hidden as on its public site. ' +
        "`API_KEY_ORIGIN_NOT_ALLOWED`: a browser request (it carries `Origin`) from a site not on the key's list; a key without a list is for servers only.",
      ['ORGANIZATION_SUSPENDED', 'API_KEY_ORIGIN_NOT_ALLOWED'],
      ['organizationSuspended', 'originNotAllowed'],
      sometimesCounted(HEADERS, 'Sent when the organization was found suspended after the request was counted.'),
    ),
    NotFound: problem(
      "Nothing has been published for the key's organization yet (its first build makes it appear), or the path names no resource.",
      ['NOT_FOUND'],
      ['nothingPublished', 'unknownPath'],
      COUNTED,
    ),
    EventNotFound: problem(
      "`EVENT_NOT_FOUND`: no published event of the key's organization has this id or slug (drafts, cancelled and suspended events are never found). " +
        '`NOT_FOUND`: nothing has been published for the organization yet.',
      ['EVENT_NOT_FOUND', 'NOT_FOUND'],
      ['eventNotFound', 'nothingPublishedEvent'],
      { ...COUNTED, 'Marquee-Snapshot-Id': { ...HEADERS['Marquee-Snapshot-Id'], description: 'With `EVENT_NOT_FOUND`: the snapshot that has no such event.', required: false } },
    ),
    MethodNotAllowed: problem('Any method other than GET, HEAD and OPTIONS on this path: the API is read-only.', ['METHOD_NOT_ALLOWED'], ['methodNotAllowed'], {
      ...COUNTED,
      Allow: headerRef('Allow'),
    }),
    NotAcceptable: problem(
      '`Accept-Encoding` refuses the JSON as it is (`identity;q=0`, or `*;q=0` without naming `identity`) and accepts neither `br` nor `gzip`. The problem itself goes as it is.',
      ['NOT_ACCEPTABLE'],
      ['notAcceptable'],
      COUNTED,
    ),
    TooManyRequests: problem(
      "The key used up its requests of the last 60 seconds, or the client's address sent too many invalid keys. Wait `Retry-After` seconds.",
      ['RATE_LIMITED'],
      ['rateLimited'],
      { 'Retry-After': headerRef('Retry-After'), ...sometimesCounted(HEADERS, "Sent when the key's own quota is used up, not for an address sending invalid keys.") },
    ),
    InternalError: problem('The gateway could not answer; the fault is logged on the server and the body never says more.', ['INTERNAL_ERROR'], ['internalError'], counted),
    ServiceUnavailable: problem(
      'A backend the answer depends on cannot be reached right now (the storage of the snapshots, or where keys and request counts are kept), ' +
        'and the gateway holds nothing it may answer with instead; what it already holds is still served. Temporary: retry after `Retry-After` seconds.',
      ['SERVICE_UNAVAILABLE'],
      ['serviceUnavailable'],
      { 'Retry-After': headerRef('Retry-After'), ...sometimesCounted(HEADERS, 'Sent when the request was counted against its key before the backend failed.') },
    ),
  };

  /** Responses every request below the base can get, whatever its path. */
  const accessResponses = {
    401: { $ref: '#/components/responses/Unauthorized' },
    403: { $ref: '#/components/responses/Forbidden' },
    429: { $ref: '#/components/responses/TooManyRequests' },
    500: { $ref: '#/components/responses/InternalError' },
    503: { $ref: '#/components/responses/ServiceUnavailable' },
  };

  const paths: Record<string, unknown> = {};
  const undocumented = Object.keys(OPERATION_TEXT).filter((name) => !API_ROUTES.some((route) => route.name === name));
  if (undocumented.length > 0) throw new Error(`OPERATION_TEXT describes operations the gateway's table does not have: ${undocumented.join(', ')}`);
  for (const route of API_ROUTES) {
    const operation = OPERATION_TEXT[route.name];
    if (operation === undefined) throw new Error(`route ${route.name} (${route.pattern}) of the gateway's table has no text in OPERATION_TEXT`);
    const component = componentOfSchema(route.schema);
    const body = component === undefined ? responseSchema(route.schema) : { $ref: componentRef(component) };
    paths[route.pattern] = {
      get: {
        operationId: route.name,
        tags: [operation.tag],
        summary: operation.summary,
        description: operation.description,
        parameters: [...operation.parameters, 'IfNoneMatch', 'AcceptEncoding', 'SnapshotPin'].map((name) => ({ $ref: `#/components/parameters/${name}` })),
        responses: sortedByStatus({
          200: {
            description: `${operation.summary}.`,
            headers: {
              ETag: headerRef('ETag'),
              'Cache-Control': headerRef('Cache-Control'),
              'Content-Encoding': headerRef('Content-Encoding'),
              'Marquee-Snapshot-Id': headerRef('Marquee-Snapshot-Id'),
              ...COUNTED,
              'Access-Control-Allow-Origin': headerRef('Access-Control-Allow-Origin'),
              Vary: headerRef('Vary'),
              'X-Content-Type-Options': headerRef('X-Content-Type-Options'),
              'X-Request-Id': headerRef('X-Request-Id'),
            },
            content: { [JSON_TYPE]: { schema: body, examples: { [operation.example]: exampleOf(operation.example, body) } } },
          },
          304: { $ref: '#/components/responses/NotModified' },
          400: { $ref: `#/components/responses/${operation.badRequest ?? 'InvalidSnapshotPin'}` },
          ...accessResponses,
          409: { $ref: '#/components/responses/SnapshotNotCurrent' },
          ...(operation.gone ? { 410: { $ref: `#/components/responses/${operation.gone}` } } : {}),
          404: { $ref: `#/components/responses/${operation.notFound}` },
          405: { $ref: '#/components/responses/MethodNotAllowed' },
          406: { $ref: '#/components/responses/NotAcceptable' },
        }),
      },
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Marquee integration API',
      description: DESCRIPTION,
      version: VERSION,
    },
    servers: [{ url: API_BASE, description: 'This gateway; every path below begins here.' }],
    // Either header carries the key (docs/api.md §5): one security requirement each.
    security: [{ BearerKey: [] }, { ApiKeyHeader: [] }],
    tags: [
      { name: 'Organization', description: "The organization's profile, team, speakers and sponsor pool." },
      { name: 'Events', description: 'Published events, their programme, speakers and sponsors.' },
      { name: 'Changes', description: 'What changed between snapshots, and when the clock next changes an answer: for sites that rebuild incrementally.' },
    ],
    paths,
    'x-unknown-paths': {
      description: 'Any other path below the base answers like this once the key has passed: 404 `NOT_FOUND`, never 405.',
      responses: sortedByStatus({ ...accessResponses, 404: { $ref: '#/components/responses/NotFound' } }),
    },
    components: {
      schemas,
      responses,
      parameters: {
        ...EVENTS_PARAMETERS,
        IdOrSlug: {
          name: 'idOrSlug',
          in: 'path',
          required: true,
          description: "The event's id (a UUID, in any letter case) or its slug within the key's organization.",
          schema: { type: 'string', minLength: 1 },
          example: examples.event.target.split('/').pop(),
        },
        ...CHANGES_PARAMETERS,
        SnapshotPin: {
          name: 'Marquee-Snapshot-Id',
          in: 'header',
          required: false,
          description:
            'A snapshot id an earlier answer named: the answer comes from that snapshot while it is current or stopped being current less than the pin window ago, else 409 `SNAPSHOT_NOT_CURRENT`.',
          schema: { type: 'string', pattern: SNAPSHOT_ID },
        },
        AcceptEncoding: {
          name: 'Accept-Encoding',
          in: 'header',
          required: false,
          description:
            `The content codings the client can decode (RFC 9110 §12.5.3). \`br\` and \`gzip\` are served for answers of ${MIN_CODED_BYTES.toLocaleString('en-US')} bytes or more, br when both are equally welcome; ` +
            'without this header the answer is the JSON as it is. Refusing `identity` while accepting neither br nor gzip is 406 `NOT_ACCEPTABLE`. ' +
            'Browsers, `fetch()`, `curl --compressed` and `requests` send it and decode by themselves.',
          schema: { type: 'string' },
          example: 'br, gzip',
        },
        IfNoneMatch: {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: 'An `ETag` received earlier (or a comma-separated list of them, or `*`). When it matches, the answer is 304 without a body.',
          schema: { type: 'string' },
        },
      },
      headers: HEADERS,
      securitySchemes: {
        BearerKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'The API key as a bearer token: `Authorization: Bearer <key>`.',
        },
        ApiKeyHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Api-Key',
          description: 'The API key in its own header: `X-Api-Key: <key>`.',
        },
      },
    },
  };
}

/** Responses in ascending status order, as a reader scans them (object keys that are integers sort anyway; this says so). */
function sortedByStatus(responses: Record<number, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}
