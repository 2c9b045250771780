// Fuzzed HTTP for the gateway, shared by the fuzz properties (test/integration/gateway/
// fuzz.property.test.ts) and the fuzz script against the real process (scripts/fuzz.ts): requests
// built as raw bytes over every endpoint, header and query parameter (random bytes, overlong
// values, unicode and percent-encoding tricks, repeated and conflicting key headers, malformed
// If-None-Match), a raw-socket client that also pipelines, and the oracle every answer must meet
// (docs/api.md §7): a documented status, never a 5xx, problem+json with its errorCode for errors,
// and never a byte of an organization the request's key does not belong to.
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import fc from 'fast-check';
import { PlatformFixture } from './platform-fixture.ts';

export const API = '/api/integration/v1';

/** Every status docs/api.md documents (§4.4 for 204, §7 for the rest), 500 excepted. */
export const DOCUMENTED_STATUSES: ReadonlySet<number> = new Set([200, 204, 304, 400, 401, 403, 404, 405, 408, 417, 429, 431]);

/** One organization as the fuzzer knows it: its keys, and what identifies its data in a body. */
interface FuzzOrganization {
  id: string;
  keys: string[];
  /** A string in this organization's data and in no other's (its name). */
  marker: string;
  /** UUIDs found in this organization's 200 bodies. */
  ids: Set<string>;
  /** Path (of PIPELINE_PATHS) → the 200 body and ETag its keys get. */
  answers: Map<string, { body: string; etag: string }>;
  slugs: string[];
  eventIds: string[];
}

export interface FuzzWorld {
  organizations: [FuzzOrganization, FuzzOrganization];
}

/** What the request's credentials amount to, so the oracle knows what may come back. */
type Credential =
  | { kind: 'none' }
  | { kind: 'valid'; owner: number }
  /** Two different values in the key headers (§5.9): 401 whatever else the request says. */
  | { kind: 'conflicting' }
  | { kind: 'invalid' };

export interface FuzzRequest {
  bytes: Buffer;
  method: string;
  credential: Credential;
  /** True when the bytes were mangled at random: anything documented may answer, or nothing. */
  mangled: boolean;
  /**
   * Answered before the key is checked, or never checked for one: OPTIONS, Expect, a head over
   * the limit, a method the parser refuses, or a path outside the API base.
   */
  preempted: boolean;
  /** A short account of the request, for failure messages. */
  summary: string;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** The UUIDs in a text, lower case. */
function uuidsIn(text: string): Set<string> {
  return new Set(Array.from(text.matchAll(UUID), (match) => match[0].toLowerCase()));
}

// ---------------------------------------------------------------------------------------------
// The organizations.

/** Slugs both fuzz organizations use: a key must find its own organization's event by them. */
const SHARED_SLUGS = ['spring-gala', 'summit'];

/**
 * An organization with something in every resource and fresh random ids everywhere, so no id of
 * one appears in another's data; its name (the marker) is unique too.
 */
export function fuzzOrganizationFixture(label: string): PlatformFixture {
  const unique = randomUUID().slice(0, 8);
  const slug = `${label.toLowerCase()}-${unique}`;
  const fixture = new PlatformFixture({ id: randomUUID(), name: `${label} ${unique}`, slug, email: `hello@${slug}.example` });
  fixture.teamMember({ id: randomUUID(), fullName: `${label} Member` });
  const speaker = fixture.speaker({ id: randomUUID(), name: `${label} Speaker` });
  const sponsor = fixture.sponsor({ id: randomUUID(), name: `${label} Sponsor`, isOrganizationSponsor: true });
  const days = [-40, 0, 60];
  for (const [index, slugOfEvent] of [...SHARED_SLUGS, `${label.toLowerCase()}-only`].entries()) {
    const start = new Date(Date.parse('2026-03-01T09:00:00Z') + days[index]! * 86_400_000);
    const event = fixture.event({
      id: randomUUID(),
      name: `${label} Event ${index}`,
      slug: slugOfEvent,
      startsAt: start.toISOString().replace('.000', ''),
      endsAt: new Date(start.getTime() + 2 * 86_400_000).toISOString().replace('.000', ''),
    });
    const session = fixture.session(event, { id: randomUUID(), name: `${label} Session`, startsAt: event.startsAt, endsAt: event.endsAt });
    fixture.bill(session, speaker);
    fixture.place(event, sponsor, { tier: 'Gold' });
  }
  fixture.event({ id: randomUUID(), name: `${label} Draft`, slug: `${label.toLowerCase()}-draft`, status: 'draft' });
  return fixture;
}

/** Paths both organizations answer 200 (by the shared slugs), each with its own data. */
const PIPELINE_PATHS = [
  `${API}/organization`,
  `${API}/team`,
  `${API}/speakers`,
  `${API}/sponsors`,
  `${API}/events?timing=all`,
  `${API}/events/${SHARED_SLUGS[0]}`,
  `${API}/events/${SHARED_SLUGS[1]}/sessions`,
  `${API}/events/${SHARED_SLUGS[0]}/speakers`,
];

/** The paths whose 200 bodies make up an organization's data. */
function dataPaths(fixture: PlatformFixture): string[] {
  const paths = ['/organization', '/team', '/speakers', '/sponsors', '/events?timing=all&pageSize=100'];
  for (const event of fixture.events.filter((row) => row.status === 'published')) {
    paths.push(`/events/${event.slug}`, `/events/${event.id}/sessions`, `/events/${event.id}/speakers`, `/events/${event.id}/sponsors`);
  }
  return paths.map((path) => `${API}${path}`);
}

/**
 * The world as a client with the keys sees it: every 200 body of each organization read with its
 * first key (through `get`), and the ids in them.
 */
export async function discoverWorld(
  fixtures: [PlatformFixture, PlatformFixture],
  keys: [string[], string[]],
  get: (path: string, key: string) => Promise<{ status: number; body: string; etag?: string | undefined }>,
): Promise<FuzzWorld> {
  const organizations = await Promise.all(
    fixtures.map(async (fixture, index): Promise<FuzzOrganization> => {
      const ids = new Set<string>();
      for (const path of dataPaths(fixture)) {
        const reply = await get(path, keys[index]![0]!);
        if (reply.status !== 200) throw new Error(`${path} answered ${reply.status} for ${fixture.organization.name}: ${reply.body}`);
        for (const id of uuidsIn(reply.body)) ids.add(id);
      }
      const answers = new Map<string, { body: string; etag: string }>();
      for (const path of PIPELINE_PATHS) {
        const reply = await get(path, keys[index]![0]!);
        if (reply.status !== 200 || reply.etag === undefined) throw new Error(`${path} answered ${reply.status} for ${fixture.organization.name}: ${reply.body}`);
        answers.set(path, { body: reply.body, etag: reply.etag });
      }
      if (!ids.has(fixture.organization.id)) throw new Error(`${fixture.organization.name}: its id is in none of its bodies`);
      const published = fixture.events.filter((row) => row.status === 'published');
      return {
        id: fixture.organization.id,
        keys: keys[index]!,
        marker: fixture.organization.name,
        ids,
        answers,
        slugs: [...published.map((row) => row.slug), ...fixture.events.filter((row) => row.status !== 'published').map((row) => row.slug)],
        eventIds: fixture.events.map((row) => row.id),
      };
    }),
  );
  return { organizations: [organizations[0]!, organizations[1]!] };
}

// ---------------------------------------------------------------------------------------------
// Generators.

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 40 });
const anyText = fc.string({ unit: 'grapheme', maxLength: 40 });
const latin1 = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((code) => String.fromCharCode(code)), maxLength: 40 });
const randomBytes = fc.uint8Array({ minLength: 1, maxLength: 200 });
const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/);

function segmentArbitrary(world: FuzzWorld): fc.Arbitrary<string> {
  const [a, b] = world.organizations;
  const known = [...a.slugs, ...b.slugs, ...a.eventIds, ...b.eventIds, a.id, b.id];
  return fc.oneof(
    fc.constantFrom(...known),
    fc.constantFrom(...known).map((value) => value.toUpperCase()),
    fc.constantFrom(...known).map((value) => encodeURIComponent(value).replace(/[a-z]/g, (letter) => `%${letter.charCodeAt(0).toString(16)}`)),
    anyText.map(encodeURIComponent),
    printable.map((text) => text.replace(/[?#/ ]/g, '')),
    fc.constantFrom(
      '..',
      '.',
      '%2e%2e',
      '%2E%2E',
      '%2F',
      '..%2F..%2Forgs',
      '%00',
      '%',
      '%Z',
      '%ZZ',
      '%C0%AE',
      '%E2%80%AE',
      '%ED%A0%80',
      '%F4%90%80%80',
      '%FF',
      '__proto__',
      'constructor',
      '+',
      '%20',
      '',
    ),
    fc.constantFrom('events', 'organization', 'sessions'),
    // Overlong: a 10,000-character slug, and its encoded unicode cousin.
    fc.constantFrom('x'.repeat(10_000), encodeURIComponent('é'.repeat(1_500))),
  );
}

const ROUTES = [
  '/organization',
  '/team',
  '/speakers',
  '/sponsors',
  '/events',
  '/events/{s}',
  '/events/{s}/sessions',
  '/events/{s}/speakers',
  '/events/{s}/sponsors',
  '/{s}',
  '/events/{s}/{s}',
];

const queryValue = fc.oneof(
  fc.constantFrom(
    'upcoming',
    'ongoing',
    'past',
    'all',
    'ALL',
    'Past',
    '1',
    '2',
    '20',
    '100',
    '101',
    '0',
    '-1',
    '1e3',
    '0x10',
    ' 1',
    '1.0',
    '2147483647',
    '2147483648',
    '99999999999999999999',
    '',
  ),
  fc.integer().map(String),
  anyText.map(encodeURIComponent),
  printable.map((text) => text.replace(/[#& ]/g, '')),
  fc.constant('9'.repeat(8_000)),
);
const queryName = fc.oneof(fc.constantFrom('timing', 'page', 'pageSize', 'PAGE', 'page[]', 'timing%00', '__proto__', 'constructor'), token);
const query = fc.oneof(
  fc.constant(''),
  fc.constant('?'),
  fc.array(fc.tuple(queryName, queryValue), { minLength: 1, maxLength: 4 }).map((pairs) => `?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`),
);

export function pathArbitrary(world: FuzzWorld): fc.Arbitrary<string> {
  const base = fc.oneof(
    { weight: 8, arbitrary: fc.constant(API) },
    { weight: 1, arbitrary: fc.constantFrom('/API/Integration/V1', '/api/integration/v2', '/api/integration', '', '/api//integration/v1', '/healthz', '/openapi.json', '/docs') },
  );
  return fc
    .tuple(base, fc.constantFrom(...ROUTES), segmentArbitrary(world), segmentArbitrary(world), fc.constantFrom('', '', '', '/', '//'), query)
    .map(([prefix, route, first, second, trailing, search]) => `${prefix}${route.replace('{s}', first).replace('{s}', second)}${trailing}${search}`);
}

type HeaderLine = [string, string];

export interface CredentialChoice {
  lines: HeaderLine[];
  credential: Credential;
}

const bearer = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'BeArEr');

export function credentialArbitrary(world: FuzzWorld): fc.Arbitrary<CredentialChoice> {
  const [a, b] = world.organizations;
  const owner = fc.integer({ min: 0, max: 1 });
  const keyOf = (index: number, pick: number) => {
    const keys = world.organizations[index]!.keys;
    return keys[pick % keys.length]!;
  };
  const valid = fc.tuple(owner, fc.nat(), bearer, fc.constantFrom('x-api-key', 'bearer', 'both', 'twice')).map(([index, pick, scheme, how]): CredentialChoice => {
    const key = keyOf(index, pick);
    const lines: HeaderLine[] =
      how === 'x-api-key'
        ? [['X-Api-Key', key]]
        : how === 'bearer'
          ? [['Authorization', `${scheme} ${key}`]]
          : how === 'both'
            ? [
                ['X-Api-Key', key],
                ['Authorization', `${scheme} ${key}`],
              ]
            : [
                ['X-Api-Key', key],
                ['x-api-key', key],
              ];
    return { lines, credential: { kind: 'valid', owner: index } };
  });
  return fc.oneof(
    { weight: 6, arbitrary: valid },
    { weight: 3, arbitrary: conflictingArbitrary(a.keys, b.keys) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.constantFrom<HeaderLine[]>([['X-Api-Key', '']], [['Authorization', 'Bearer']], [['Authorization', 'Bearer ']], [['Authorization', `Basic ${a.keys[0]}`]]),
          fc.constant<HeaderLine[]>([
            ['X-Api-Key', a.keys[0]!],
            ['Authorization', `Basic ${a.keys[0]}`],
          ]),
          printable.map((text): HeaderLine[] => [['X-Api-Key', `mqk_${text.trim()}`]]),
          latin1.map((text): HeaderLine[] => [['Authorization', `Bearer ${text.trim()}`]]),
          fc.constantFrom<HeaderLine[]>([['X-Api-Key', `mqk_${'A'.repeat(8_000)}`]], [['Authorization', `Bearer ${'b'.repeat(8_000)}`]]),
          // A valid key with one character changed: the checksum or the lookup refuses it.
          fc.tuple(fc.nat(), fc.integer({ min: 4, max: 39 })).map(([pick, at]): HeaderLine[] => {
            const key = keyOf(0, pick);
            return [['X-Api-Key', `${key.slice(0, at)}${key[at] === 'Z' ? 'Y' : 'Z'}${key.slice(at + 1)}`]];
          }),
        )
        .map((lines): CredentialChoice => ({ lines, credential: { kind: 'invalid' } })),
    },
    { weight: 1, arbitrary: fc.constant<CredentialChoice>({ lines: [], credential: { kind: 'none' } }) },
  );
}

/** Two different key values in the key headers, in any order and case: always 401 (§5.9). */
function conflictingArbitrary(aKeys: string[], bKeys: string[]): fc.Arbitrary<CredentialChoice> {
  const pair = fc.oneof(
    fc.tuple(fc.constantFrom(...aKeys), fc.constantFrom(...bKeys)),
    fc.tuple(fc.constantFrom(...bKeys), fc.constantFrom(...aKeys)),
    fc.tuple(
      fc.constantFrom(...aKeys),
      printable.map((text) => `mqk_${text}`),
    ),
  );
  return fc
    .tuple(pair, fc.constantFrom('both', 'x-api-key twice', 'authorization twice', 'all three'), bearer, fc.constantFrom('X-Api-Key', 'x-api-key', 'X-API-KEY'))
    .map(([[first, second], how, scheme, name]): CredentialChoice => {
      const lines: HeaderLine[] =
        how === 'both'
          ? [
              [name, first],
              ['Authorization', `${scheme} ${second}`],
            ]
          : how === 'x-api-key twice'
            ? [
                ['X-Api-Key', first],
                [name, second],
              ]
            : how === 'authorization twice'
              ? [
                  ['Authorization', `${scheme} ${first}`],
                  ['authorization', `Bearer ${second}`],
                ]
              : [
                  ['X-Api-Key', first],
                  ['Authorization', `Bearer ${first}`],
                  [name, second],
                ];
      return { lines, credential: { kind: 'conflicting' } };
    });
}

/** Malformed, foreign and real entity tags (both organizations' own, weak, in lists). */
export function ifNoneMatchArbitrary(world: FuzzWorld): fc.Arbitrary<string> {
  const tags = world.organizations.flatMap((organization) => [...organization.answers.values()].map((answer) => answer.etag));
  const real = fc.constantFrom(...tags);
  return fc.oneof(
    { weight: 2, arbitrary: ifNoneMatch },
    fc.constant('*'),
    real,
    real.map((tag) => `W/${tag}`),
    fc.tuple(real, real, ifNoneMatch).map(([first, second, junk]) => `${first}, ${junk}, ${second}`),
  );
}

const ifNoneMatch = fc.oneof(
  fc.constantFrom('*', '"', '""', 'W/', 'W/"', 'W/""', '"abc', 'abc"', '"a", "b"', ',,,', '"a" "b"', 'w/"x"', '"\u00e9"', `"${'0'.repeat(64)}"`, `W/"${'f'.repeat(64)}"`),
  latin1,
  fc.constant(`"${'e'.repeat(8_000)}"`),
  fc
    .array(
      fc.stringMatching(/^[0-9a-f]{64}$/).map((hex) => `"${hex}"`),
      { minLength: 1, maxLength: 5 },
    )
    .map((tags) => tags.join(', ')),
);

/** Headers checked before the key: the request may be answered 417 or 431 whatever its key. */
const preemptingHeader = fc.oneof(
  fc.constantFrom<HeaderLine>(['Expect', 'garbage'], ['Expect', '100-continue'], ['Expect', ''], ['X-Filler', 'f'.repeat(17_000)]),
  latin1.map((value): HeaderLine => ['Expect', value]),
);

const otherHeaderArbitrary = (world: FuzzWorld) =>
  fc.oneof(
    ifNoneMatchArbitrary(world).map((value): HeaderLine => ['If-None-Match', value]),
    fc.constantFrom<HeaderLine>(
      ['Origin', 'https://evil.example'],
      ['Origin', 'null'],
      ['Origin', ''],
      ['Accept', 'text/html'],
      ['Accept-Encoding', 'gzip, br'],
      ['Range', 'bytes=0-1'],
    ),
    latin1.map((value): HeaderLine => ['Origin', value]),
    fc.tuple(token, latin1).map(([name, value]): HeaderLine => [name, value]),
    fc.constantFrom<HeaderLine>(
      ['X-Filler', 'a'.repeat(8_192)],
      ['If-Modified-Since', 'yesterday'],
      ['X-Forwarded-For', '1.2.3.4, ::1, junk'],
      ['Content-Type', 'application/json'],
    ),
  );

const methodArbitrary = fc.oneof(
  { weight: 10, arbitrary: fc.constant('GET') },
  { weight: 2, arbitrary: fc.constant('HEAD') },
  // Preflights on their own: among the other methods they were a handful of 1,500 (204 six times).
  { weight: 1, arbitrary: fc.constant('OPTIONS') },
  { weight: 1, arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'CONNECT', 'PROPFIND', 'get', 'FOO') },
);

interface Mangle {
  kind: 'none' | 'random-bytes' | 'insert-bytes' | 'bare-lf' | 'http10' | 'no-host' | 'body' | 'chunked' | 'truncate';
  bytes: Uint8Array;
  at: number;
}

const mangleArbitrary: fc.Arbitrary<Mangle> = fc.record({
  kind: fc.oneof(
    { weight: 12, arbitrary: fc.constant<Mangle['kind']>('none') },
    { weight: 1, arbitrary: fc.constantFrom<Mangle['kind']>('random-bytes', 'insert-bytes', 'bare-lf', 'http10', 'no-host', 'body', 'chunked', 'truncate') },
  ),
  bytes: randomBytes,
  at: fc.nat(),
});

/** One fuzzed request, as the bytes to write to a socket. */
export function fuzzRequestArbitrary(world: FuzzWorld, options: { mangle?: boolean; conflicting?: boolean } = {}): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: methodArbitrary,
      target: pathArbitrary(world),
      credential: options.conflicting ? conflictingArbitrary(world.organizations[0].keys, world.organizations[1].keys) : credentialArbitrary(world),
      others: fc.array(otherHeaderArbitrary(world), { maxLength: 3 }),
      // A revalidation of whatever the target is (If-None-Match: *), so that a run of 1,500 meets
      // 304 some fifteen times: left to the tags above it met 4 to 8, and a CI run met none.
      revalidate: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      preempting: fc.oneof({ weight: 12, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: preemptingHeader }),
      keyFirst: fc.boolean(),
      mangle: options.mangle === false ? fc.constant<Mangle>({ kind: 'none', bytes: new Uint8Array(), at: 0 }) : mangleArbitrary,
    })
    .map(({ method, target, credential, others: chosen, revalidate, preempting, keyFirst, mangle }) => {
      const others: HeaderLine[] = revalidate ? [...chosen, ['If-None-Match', '*']] : chosen;
      const headers: HeaderLine[] = keyFirst ? [...credential.lines, ...others] : [...others, ...credential.lines];
      if (preempting !== null) headers.push(preempting);
      const bytes = serialize(method, target, headers, mangle);
      const preempted =
        // CONNECT is answered 405 before any key is read (gateway/protocol-errors.ts).
        ['OPTIONS', 'get', 'FOO', 'CONNECT'].includes(method) ||
        !belowBase(target) ||
        // A space or control character in the target: the request line itself is malformed (400).
        /[^\x21-\x7e]/.test(target) ||
        preempting !== null ||
        others.some(([name]) => name.toLowerCase() === 'expect') ||
        // A control character (DEL included) in a header value: a malformed header (400).
        headers.some(([, value]) => Array.from(value).some((char) => char.charCodeAt(0) === 0x7f || (char.charCodeAt(0) < 0x20 && char !== '\t'))) ||
        overLimit(bytes.length);
      return {
        bytes,
        method,
        credential: credential.credential,
        mangled: mangle.kind !== 'none' || ['get', 'FOO'].includes(method),
        preempted,
        summary: `${method} ${target.length > 120 ? `${target.slice(0, 120)}…(${target.length})` : target} [${credential.credential.kind}] ${headers.map(([name, value]) => `${name}(${value.length})`).join(' ')} mangle=${mangle.kind}`,
      };
    });
}

/** Whether the request target is below the API base path, where every request needs a key (§4.4). */
export function belowBase(target: string): boolean {
  return target.toLowerCase().startsWith(`${API}/`) || /^\/api\/integration\/v1($|\?)/i.test(target);
}

/** Request heads near or over the 16 KiB header limit may be answered 431 before the key is read. */
export function overLimit(headBytes: number): boolean {
  return headBytes > 15 * 1024;
}

function serialize(method: string, target: string, headers: HeaderLine[], mangle: Mangle): Buffer {
  const version = mangle.kind === 'http10' ? 'HTTP/1.0' : 'HTTP/1.1';
  const lines = [`${method} ${target} ${version}`];
  if (mangle.kind !== 'no-host') lines.push('Host: 127.0.0.1');
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  if (mangle.kind === 'body') lines.push(`Content-Length: ${mangle.bytes.length}`);
  if (mangle.kind === 'chunked') lines.push('Transfer-Encoding: chunked');
  lines.push('Connection: close');
  let head = `${lines.join('\r\n')}\r\n\r\n`;
  if (mangle.kind === 'bare-lf') head = head.replaceAll('\r\n', '\n');
  // latin1: header values carry bytes 0x80-0xFF as themselves (obs-text).
  const bytes = Buffer.from(head, 'latin1');
  switch (mangle.kind) {
    case 'random-bytes':
      return Buffer.from(mangle.bytes);
    case 'insert-bytes': {
      const at = mangle.at % bytes.length;
      return Buffer.concat([bytes.subarray(0, at), mangle.bytes, bytes.subarray(at)]);
    }
    case 'truncate':
      return bytes.subarray(0, mangle.at % bytes.length);
    case 'body':
      return Buffer.concat([bytes, mangle.bytes]);
    case 'chunked':
      return Buffer.concat([bytes, Buffer.from(`${mangle.bytes.length.toString(16)}\r\n`), mangle.bytes, Buffer.from('\r\n0\r\n\r\n')]);
    default:
      return bytes;
  }
}

// ---------------------------------------------------------------------------------------------
// Pipelines: several keys' requests on one connection.

export interface PipelinedRequest {
  bytes: Buffer;
  head: boolean;
  /** Whose key it carries. */
  owner: number;
  path: string;
  /** Its If-None-Match: its own organization's tag (304), the other's (200), or none. */
  tag: 'own' | 'other' | 'none';
}

/** 2 to 12 requests of both organizations' keys, to write on one connection in a few arbitrary cuts. */
export function pipelineArbitrary(world: FuzzWorld): fc.Arbitrary<{ requests: PipelinedRequest[]; splits: number[] }> {
  const one = fc
    .record({
      owner: fc.integer({ min: 0, max: 1 }),
      pick: fc.nat(),
      path: fc.constantFrom(...PIPELINE_PATHS),
      head: fc.boolean(),
      header: fc.constantFrom('x-api-key', 'bearer'),
      tag: fc.constantFrom<PipelinedRequest['tag']>('none', 'none', 'own', 'other'),
    })
    .map(({ owner, pick, path, head, header, tag }): PipelinedRequest => {
      const organization = world.organizations[owner]!;
      const key = organization.keys[pick % organization.keys.length]!;
      const lines = [`${head ? 'HEAD' : 'GET'} ${path} HTTP/1.1`, 'Host: 127.0.0.1', header === 'bearer' ? `Authorization: Bearer ${key}` : `X-Api-Key: ${key}`];
      if (tag !== 'none') lines.push(`If-None-Match: ${world.organizations[tag === 'own' ? owner : 1 - owner]!.answers.get(path)!.etag}`);
      return { bytes: Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head, owner, path, tag };
    });
  return fc.record({ requests: fc.array(one, { minLength: 2, maxLength: 12 }), splits: fc.array(fc.nat(), { maxLength: 4 }) });
}

/** What is wrong with the answers to a pipeline: each must be its own request's, in order. */
export function pipelineProblems(world: FuzzWorld, requests: PipelinedRequest[], responses: RawResponse[], options: { throttled?: boolean } = {}): string[] {
  const problems: string[] = [];
  if (responses.length !== requests.length) problems.push(`${requests.length} requests pipelined, ${responses.length} answers`);
  for (const [index, response] of responses.entries()) {
    const request = requests[index]!;
    const expected = world.organizations[request.owner]!.answers.get(request.path)!;
    const what = `#${index} ${request.head ? 'HEAD' : 'GET'} ${request.path} (organization ${request.owner}, tag ${request.tag})`;
    const status = request.tag === 'own' ? 304 : 200;
    // Against the real process a key may be over its 600 a minute: a 429 is its own answer too.
    if (options.throttled && response.status === 429) {
      problems.push(...leaks(world, { kind: 'valid', owner: request.owner }, response).map((problem) => `${what}: ${problem}`));
      continue;
    }
    if (response.status !== status) problems.push(`${what}: ${response.status}, expected ${status}`);
    if (response.headers.etag !== expected.etag) problems.push(`${what}: ETag ${response.headers.etag}, expected its own organization's ${expected.etag}`);
    if (status === 200 && !request.head && response.body !== expected.body) problems.push(`${what}: a body other than its own organization's`);
    problems.push(...leaks(world, { kind: 'valid', owner: request.owner }, response).map((problem) => `${what}: ${problem}`));
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// A raw-socket client.

export interface RawResponse {
  status: number;
  /** Lower-case names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes the bytes and reads until the server closes (every fuzzed request says Connection:
 * close); undefined when nothing came back. With `halfClose`, also ends the sending side, so a
 * request cut short is answered at once instead of at the headers timeout. Only for those: Node's
 * server answers a client's end by closing, and a request still being served then goes unanswered.
 */
export function sendRaw(port: number, bytes: Buffer, options: { halfClose?: boolean; timeoutMs?: number } = {}): Promise<RawResponse | undefined> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => (options.halfClose ? socket.end(bytes) : socket.write(bytes)));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may close while the request is still being written (a 431): that is its answer.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => {
      const data = Buffer.concat(chunks);
      resolve(data.length === 0 ? undefined : (parseResponses(data, [bytes.subarray(0, 4).toString('latin1') === 'HEAD'])[0] ?? malformed(data)));
    });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
  });
}

function malformed(data: Buffer): RawResponse {
  return { status: Number.NaN, headers: {}, body: data.toString('latin1') };
}

/** Writes several requests on one connection (in `parts` writes, split anywhere) and reads `count` answers in order. */
export function pipeline(port: number, requests: Array<{ bytes: Buffer; head: boolean }>, splits: number[], timeoutMs = 15_000): Promise<RawResponse[]> {
  const all = Buffer.concat(requests.map((request) => request.bytes));
  const cuts = [...new Set(splits.map((split) => split % all.length))].sort((x, y) => x - y);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const heads = requests.map((request) => request.head);
    const socket = connect(port, '127.0.0.1', () => {
      let from = 0;
      for (const cut of [...cuts, all.length]) {
        socket.write(all.subarray(from, cut));
        from = cut;
      }
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const responses = parseResponses(Buffer.concat(chunks), heads);
      if (responses.length === requests.length) {
        socket.destroy();
        resolve(responses);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(parseResponses(Buffer.concat(chunks), heads)));
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`pipeline: no complete answer within ${timeoutMs} ms`)));
  });
}

/** The complete responses at the start of `data`; `heads[i]` says whether the i-th answered a HEAD. */
function parseResponses(data: Buffer, heads: boolean[]): RawResponse[] {
  const responses: RawResponse[] = [];
  let at = 0;
  while (at < data.length) {
    const end = data.indexOf('\r\n\r\n', at, 'latin1');
    if (end < 0) break;
    const [statusLine = '', ...lines] = data.subarray(at, end).toString('latin1').split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!status) break;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const code = Number(status[1]);
    if (code >= 100 && code < 200) {
      // An interim answer (100 Continue to an Expect): the request's own answer follows.
      at = end + 4;
      continue;
    }
    let bodyStart = end + 4;
    let body: Buffer = Buffer.alloc(0);
    const bodiless = heads[responses.length] === true || code === 204 || code === 304;
    if (!bodiless && headers['transfer-encoding']?.toLowerCase() === 'chunked') {
      const parts: Buffer[] = [];
      let complete = false;
      while (true) {
        const lineEnd = data.indexOf('\r\n', bodyStart, 'latin1');
        if (lineEnd < 0) break;
        const size = Number.parseInt(data.subarray(bodyStart, lineEnd).toString('latin1'), 16);
        if (data.length < lineEnd + 2 + size + 2) break;
        if (size === 0) {
          bodyStart = lineEnd + 4;
          complete = true;
          break;
        }
        parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
        bodyStart = lineEnd + 2 + size + 2;
      }
      if (!complete) break;
      body = Buffer.concat(parts);
      at = bodyStart;
    } else {
      const length = bodiless ? 0 : Number(headers['content-length'] ?? Number.NaN);
      if (Number.isNaN(length)) {
        // No framing: the body runs to the end of the connection.
        body = data.subarray(bodyStart);
        at = data.length;
      } else {
        if (data.length < bodyStart + length) break;
        body = data.subarray(bodyStart, bodyStart + length);
        at = bodyStart + length;
      }
    }
    responses.push({ status: code, headers, body: body.toString('utf8') });
  }
  return responses;
}

// ---------------------------------------------------------------------------------------------
// The oracle.

/**
 * What is wrong with `response` as the answer to `request`: [] when nothing is. Conflicting key
 * headers may get 429 instead of 401: the real process throttles an address's invalid keys (§5.6).
 */
export function problemsWith(world: FuzzWorld, request: Pick<FuzzRequest, 'method' | 'credential' | 'mangled' | 'preempted'>, response: RawResponse | undefined): string[] {
  if (response === undefined) {
    // A request the parser cannot even answer (cut short, then closed by the client) may get nothing back.
    return request.mangled ? [] : ['no answer'];
  }
  const problems: string[] = [];
  const { status } = response;
  if (!DOCUMENTED_STATUSES.has(status)) problems.push(`undocumented status ${status}`);
  if (status >= 500) problems.push(`server error ${status}`);
  if (status >= 400 && DOCUMENTED_STATUSES.has(status)) {
    if (!response.headers['content-type']?.startsWith('application/problem+json')) problems.push(`error ${status} without problem+json: ${response.headers['content-type']}`);
    if (request.method !== 'HEAD') {
      try {
        const problem = JSON.parse(response.body) as { status?: unknown; errorCode?: unknown };
        if (typeof problem.errorCode !== 'string' || problem.errorCode === '') problems.push(`error ${status} without errorCode`);
        if (problem.status !== status) problems.push(`problem status ${String(problem.status)} on a ${status}`);
      } catch {
        problems.push(`error ${status} with a body that is not JSON: ${response.body.slice(0, 80)}`);
      }
    }
  }
  if (request.credential.kind === 'conflicting' && !request.mangled && !request.preempted && request.method !== 'OPTIONS' && ![401, 429].includes(status)) {
    problems.push(`conflicting key headers answered ${status}, not 401`);
  }
  if (request.credential.kind === 'conflicting' && status === 401 && !response.body.includes('API_KEY_INVALID') && request.method !== 'HEAD') {
    problems.push('conflicting key headers: 401 without API_KEY_INVALID');
  }
  problems.push(...leaks(world, request.credential, response));
  return problems;
}

/** Data of an organization the credential does not name, in the body. */
function leaks(world: FuzzWorld, credential: Credential, response: RawResponse): string[] {
  // A problem's `instance` echoes the client's own path (another organization's id included):
  // the client's input, not that organization's data.
  let body = response.body;
  if (response.status >= 400) {
    try {
      body = JSON.stringify({ ...(JSON.parse(body) as object), instance: null });
    } catch {
      // Not JSON: checked as it is.
    }
  }
  const found = uuidsIn(body);
  const owner = credential.kind === 'valid' ? credential.owner : undefined;
  const ownIds = owner === undefined ? new Set<string>() : world.organizations[owner]!.ids;
  const problems: string[] = [];
  for (const [index, organization] of world.organizations.entries()) {
    if (index === owner) continue;
    const leaked = [...organization.ids].filter((id) => found.has(id) && !ownIds.has(id));
    if (leaked.length > 0) problems.push(`body shows organization ${organization.id}'s ids ${leaked.slice(0, 3).join(', ')} to a ${credential.kind} credential`);
    if (body.includes(organization.marker)) problems.push(`body shows organization ${organization.id}'s name to a ${credential.kind} credential`);
  }
  return problems;
}
