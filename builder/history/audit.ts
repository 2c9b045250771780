// `marquee audit`: reads every published object of every organization through the SnapshotStore
// interface alone (so it works on every backend) and reports what must never be there
// (docs/api.md §1): e-mail addresses other than the organization's own contact address, ids and
// slugs of other organizations; and what breaks content addressing: objects no manifest names,
// manifests naming objects that are missing, objects whose bytes do not hash to their name, coded
// forms that do not decode to them or stand without their JSON; and state records
// (snapshot/state-records.ts) that are not what their name says. The history's own evidence is
// checked as `verify` checks it, with the same expectations (what the platform database says was
// published into the store) and the same refusals of a store that is missing, cannot be read or
// holds nothing: an organization whose history was removed whole is a finding of its own kind,
// 'missing-history', as are its other breaks, 'broken-history'.
//
// Two passes with I/O only at the edges: `indexOrganization` reads one organization's pointer,
// manifests and /organization resources into an index; `storeIndex` joins those indexes once;
// `objectScanner` is a pure scan of one parsed object against them. Reads go a few at a time
// (against S3, a thousand organizations' objects one after the other took minutes), and the report
// lists its findings in the same order whatever order the reads finished in.
import { decode } from '../../snapshot/codings.ts';
import { sha256Hex } from '../../snapshot/hash.ts';
import { manifestKey, objectKey, objectPrefix, pointerKey, stateRecordPrefix } from '../../snapshot/layout.ts';
import type { Manifest } from '../../snapshot/manifest.ts';
import { listSnapshotIds, parsePointer } from '../../snapshot/reader.ts';
import { resourceAt, resourcePath } from '../../snapshot/resource-catalog.ts';
import { parseStateRecord, stateMarkOf } from '../../snapshot/state-records.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';
import { describeError } from '../../runtime/errors.ts';
import { mapConcurrently } from '../concurrently.ts';
import { type ObjectFiles, objectFiles } from '../object-files.ts';
import { DEFAULT_GRACE_MINUTES } from '../retention.ts';
import { type Expectations, SigningKeys, storeOrganizations, verifyOrganization } from './verify-history.ts';

/** Organizations indexed at once, and objects read at once within one. */
const ORGANIZATIONS_AT_ONCE = 4;
const OBJECTS_AT_ONCE = 16;

type FindingKind =
  | 'foreign-email'
  | 'foreign-id'
  | 'foreign-slug'
  | 'orphan-object'
  | 'missing-object'
  | 'corrupt-object'
  /** A coded form (`{hash}.json.br`, `.json.gz`) that does not decode, or decodes to bytes of another hash. */
  | 'corrupt-coded-form'
  /** A coded form whose object's JSON is not in the store. */
  | 'coded-form-without-json'
  | 'broken-snapshot'
  | 'broken-state-record'
  | 'broken-history'
  /** The store holds no pointer and no manifest of an organization that was published into it (verify's 'history-missing'). */
  | 'missing-history';

interface AuditFinding {
  organizationId: string;
  kind: FindingKind;
  /** The API path the object is served at, when a manifest names it. */
  path?: string;
  /** The object's hash (its name in the store). */
  object?: string;
  detail: string;
}

export interface AuditReport {
  organizations: number;
  objects: number;
  findings: AuditFinding[];
}

export interface AuditOptions {
  /** Unreferenced objects younger than this are not orphans yet: a build may be publishing them. */
  graceMinutes?: number;
  now?: Date;
  /** What records outside the store say must be in it (verify-history.ts): its organizations are audited too. */
  expected?: Expectations;
}

/** What the audit knows of one organization before it reads its objects. */
interface OrganizationIndex {
  id: string;
  /** Its organization slugs over its whole history (manifests' organizationSlug, /organization's slug). */
  slugs: Set<string>;
  /** Its event slugs over its whole history (the manifests' slug maps). */
  eventSlugs: Set<string>;
  /** Its event ids over its whole history (slug maps and /events/{id} paths). */
  eventIds: Set<string>;
  /** Lower-cased contact addresses of its /organization resources over its history. */
  emails: Set<string>;
  /** Object hash → the first API path a manifest serves it at. */
  referenced: Map<string, string>;
  findings: AuditFinding[];
}

export async function auditStore(store: SnapshotStore, options: AuditOptions = {}): Promise<AuditReport> {
  const graceMinutes = options.graceMinutes ?? DEFAULT_GRACE_MINUTES;
  const cutoff = new Date((options.now ?? new Date()).getTime() - graceMinutes * 60_000);
  const expected = options.expected ?? new Map();
  const inStore = await storeOrganizations(store, expected);
  const ids = [...new Set([...inStore, ...expected.keys()])].sort();
  const indexes = await mapConcurrently(ids, ORGANIZATIONS_AT_ONCE, (orgId) => indexOrganization(store, orgId));
  const all = storeIndex(indexes);
  const report: AuditReport = { organizations: indexes.length, objects: 0, findings: [] };
  for (const index of indexes) {
    report.findings.push(...index.findings);
    const scan = objectScanner(index, all);
    const objects = [...objectFiles(index.id, await store.list(objectPrefix(index.id)))];
    const audited = await mapConcurrently(objects, OBJECTS_AT_ONCE, async ([hash, files]) => {
      const object = files.json === undefined ? undefined : await auditObject(store, index, scan, hash, cutoff);
      const coded: AuditFinding[] = [];
      for (const form of files.coded) coded.push(...(await auditCodedForm(store, index, hash, form, object !== undefined)));
      return { object, coded };
    });
    for (const { object, coded } of audited) {
      // An object is its JSON: one deleted since the listing (gc) is not counted.
      if (object !== undefined) report.objects++;
      report.findings.push(...(object ?? []), ...coded);
    }
  }
  // The history's own evidence, checked as `verify` checks it: an edited or removed past manifest,
  // a forged signature, a pointer moved back.
  const keys = new SigningKeys(store);
  const verifications = await mapConcurrently(indexes, ORGANIZATIONS_AT_ONCE, (index) => verifyOrganization(store, index.id, keys, expected.get(index.id)));
  for (const verification of verifications) {
    // Missing and edited objects are reported above, each with its path.
    if (verification.break === undefined || verification.break.kind === 'object-missing' || verification.break.kind === 'object-edited') continue;
    const { snapshotId, kind, detail } = verification.break;
    report.findings.push({
      organizationId: verification.organizationId,
      kind: kind === 'history-missing' ? 'missing-history' : 'broken-history',
      detail: `${snapshotId} (${kind}): ${detail}`,
    });
  }
  return report;
}

/** What is wrong with one of the organization's objects; undefined when it is gone since the listing. */
async function auditObject(
  store: SnapshotStore,
  index: OrganizationIndex,
  scan: (value: unknown) => ObjectFinding[],
  hash: string,
  cutoff: Date,
): Promise<AuditFinding[] | undefined> {
  const key = objectKey(index.id, hash);
  const bytes = await store.get(key);
  if (bytes === undefined) return undefined;
  const findings: AuditFinding[] = [];
  const path = index.referenced.get(hash);
  const at = { organizationId: index.id, ...(path === undefined ? {} : { path }), object: hash };
  if (sha256Hex(bytes) !== hash) findings.push({ ...at, kind: 'corrupt-object', detail: 'its bytes do not hash to its name' });
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    findings.push({ ...at, kind: 'corrupt-object', detail: 'not JSON' });
    return findings;
  }
  for (const finding of scan(value)) findings.push({ ...at, ...finding });
  if (path === undefined) {
    const written = await store.modifiedAt(key);
    if (written === undefined || written < cutoff) {
      findings.push({ ...at, kind: 'orphan-object', detail: `no manifest names it (written ${written?.toISOString() ?? 'at an unknown time'})` });
    }
  }
  return findings;
}

/**
 * What is wrong with one of an object's coded forms: it must decode to bytes of the hash that names
 * it (the JSON's), as a gateway checks it before serving it, and its JSON must be there (a publish
 * writes the JSON first, retention deletes it last). An object without coded forms is no finding:
 * published before they were stored, too small to be worth them, or with SNAPSHOT_CODINGS=none.
 */
async function auditCodedForm(store: SnapshotStore, index: OrganizationIndex, hash: string, form: ObjectFiles['coded'][number], jsonRead: boolean): Promise<AuditFinding[]> {
  const bytes = await store.get(form.key);
  if (bytes === undefined) return []; // deleted since the listing (gc)
  const path = index.referenced.get(hash);
  const at = { organizationId: index.id, ...(path === undefined ? {} : { path }), object: hash };
  const findings: AuditFinding[] = [];
  let decoded: Buffer | undefined;
  try {
    decoded = decode(form.coding, bytes);
  } catch (error) {
    findings.push({ ...at, kind: 'corrupt-coded-form', detail: `${form.key}: not ${form.coding} data (${describeError(error)})` });
  }
  if (decoded !== undefined && sha256Hex(decoded) !== hash)
    findings.push({ ...at, kind: 'corrupt-coded-form', detail: `${form.key}: it decodes to bytes that do not hash to its name` });
  // Asked again when the listing had no JSON: written since, by a publish of the same object.
  if (!jsonRead && !(await store.has(objectKey(index.id, hash)))) {
    findings.push({ ...at, kind: 'coded-form-without-json', detail: `${form.key}: its object's JSON ${objectKey(index.id, hash)} is not in the store` });
  }
  return findings;
}

/**
 * Reads an organization's pointer and every manifest of its history, and checks that each object
 * a manifest names is there and hashes to its name. Collects its slugs, event ids and contact
 * addresses, which the scan of every other organization's objects needs.
 */
async function indexOrganization(store: SnapshotStore, orgId: string): Promise<OrganizationIndex> {
  const index: OrganizationIndex = {
    id: orgId,
    slugs: new Set(),
    eventSlugs: new Set(),
    eventIds: new Set(),
    emails: new Set(),
    referenced: new Map(),
    findings: [],
  };
  const broken = (detail: string) => index.findings.push({ organizationId: orgId, kind: 'broken-snapshot', detail });
  const manifestHashes = new Map<string, string>();
  const manifests: Manifest[] = [];
  // Newest first, so that `referenced` names the path an object has in the latest snapshot.
  for (const snapshotId of (await listSnapshotIds(store, orgId)).reverse()) {
    const bytes = await store.get(manifestKey(orgId, snapshotId));
    if (bytes === undefined) continue;
    manifestHashes.set(snapshotId, sha256Hex(bytes));
    let manifest: Manifest;
    try {
      manifest = JSON.parse(bytes.toString('utf8')) as Manifest;
    } catch {
      broken(`manifest ${snapshotId} is not JSON`);
      continue;
    }
    if (manifest.organizationId !== orgId || manifest.snapshotId !== snapshotId) {
      broken(`manifest ${snapshotId} names organization ${manifest.organizationId} and snapshot ${manifest.snapshotId}`);
      continue;
    }
    manifests.push(manifest);
  }
  index.findings.push(...(await auditStateRecords(store, orgId)));
  const pointerBytes = await store.get(pointerKey(orgId));
  if (pointerBytes !== undefined) {
    try {
      const pointer = parsePointer(orgId, pointerBytes);
      if (pointer.snapshotId !== null) {
        const hash = manifestHashes.get(pointer.snapshotId);
        if (hash === undefined) broken(`the pointer names snapshot ${pointer.snapshotId}, which is missing`);
        else if (hash !== pointer.manifestHash) broken(`the pointer's manifestHash does not match snapshot ${pointer.snapshotId}`);
      }
    } catch (error) {
      broken((error as Error).message);
    }
  }
  // Every object a manifest names is checked for presence once, for the newest snapshot naming
  // it: its bytes are hashed once, by the scan of the organization's objects.
  const namedBy = new Map<string, string>();
  for (const manifest of manifests) {
    if (typeof manifest.organizationSlug === 'string') index.slugs.add(manifest.organizationSlug);
    for (const [slug, eventId] of Object.entries(manifest.slugs ?? {})) {
      index.eventSlugs.add(slug);
      index.eventIds.add(eventId.toLowerCase());
    }
    for (const [path, hash] of Object.entries(manifest.resources ?? {})) {
      const eventId = resourceAt(path)?.eventId;
      if (eventId !== undefined) index.eventIds.add(eventId.toLowerCase());
      if (!index.referenced.has(hash)) {
        index.referenced.set(hash, path);
        namedBy.set(hash, manifest.snapshotId);
      }
    }
  }
  const named = [...index.referenced];
  const present = await mapConcurrently(named, OBJECTS_AT_ONCE, ([hash]) => store.has(objectKey(orgId, hash)));
  for (const [i, [hash, path]] of named.entries()) {
    if (!present[i]) {
      index.findings.push({ organizationId: orgId, kind: 'missing-object', path, object: hash, detail: `snapshot ${namedBy.get(hash)} names it, but it is not in the store` });
    } else if (path === resourcePath.organization) {
      const bytes = await store.get(objectKey(orgId, hash));
      // A tampered object is reported by the scan; its slug and address are not trusted here.
      if (bytes !== undefined && sha256Hex(bytes) === hash) {
        const organization = parseOrNull(bytes) as { slug?: unknown; email?: unknown } | null;
        if (typeof organization?.slug === 'string') index.slugs.add(organization.slug);
        if (typeof organization?.email === 'string') index.emails.add(organization.email.toLowerCase());
      }
    }
  }
  return index;
}

/** Every key under the organization's states/ is a state record whose content matches its name. */
async function auditStateRecords(store: SnapshotStore, orgId: string): Promise<AuditFinding[]> {
  const findings: AuditFinding[] = [];
  const prefix = stateRecordPrefix(orgId);
  for (const key of await store.list(prefix)) {
    const broken = (detail: string) => findings.push({ organizationId: orgId, kind: 'broken-state-record', detail: `${key}: ${detail}` });
    const mark = stateMarkOf(key.slice(prefix.length), key);
    if (mark === undefined) {
      broken('not a state record name ({instant}-{state}.json)');
      continue;
    }
    const bytes = await store.get(key);
    if (bytes === undefined) continue; // deleted since the listing (gc)
    const record = parseStateRecord(orgId, bytes);
    if (typeof record === 'string') broken(record);
    else if (record.state !== mark.state || Date.parse(record.publishedAt) !== mark.at.getTime()) broken(`it says ${record.state} at ${record.publishedAt}`);
  }
  return findings;
}

function parseOrNull(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
}

/**
 * A practical e-mail address: local part, '@', a domain of dot-separated labels ending in a
 * letters-only top-level label. Addresses written percent-encoded (`a%40b.example`) are not seen.
 * The look-behind starts a match only where a run of local-part characters starts, so a long word
 * costs linear time, not quadratic; strings without '@' are not searched at all.
 */
const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.([A-Za-z]{2,63})\b/g;
/**
 * A "top-level domain" that is a file extension is an image or document name with a density
 * suffix (`logo@2x.png`), not an address: the one false positive image URLs produce.
 */
const FILE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'svg', 'webp', 'avif', 'ico', 'bmp', 'tif', 'tiff', 'heic', 'pdf']);
const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

type ObjectFinding = Pick<AuditFinding, 'kind' | 'detail'>;

/** Every organization's ids and slugs, each with (one of) its owners: built once per audit. */
interface StoreIndex {
  /** Organization and event ids (lower case) → whose and what. */
  ids: Map<string, { owner: string; what: string }>;
  organizationSlugs: Map<string, string>;
  eventSlugs: Map<string, string>;
}

function storeIndex(indexes: readonly OrganizationIndex[]): StoreIndex {
  const all: StoreIndex = { ids: new Map(), organizationSlugs: new Map(), eventSlugs: new Map() };
  for (const index of indexes) {
    all.ids.set(index.id.toLowerCase(), { owner: index.id, what: `the id of organization ${index.id}` });
    for (const eventId of index.eventIds) {
      if (!all.ids.has(eventId)) all.ids.set(eventId, { owner: index.id, what: `the id of an event of organization ${index.id}` });
    }
    for (const slug of index.slugs) if (!all.organizationSlugs.has(slug)) all.organizationSlugs.set(slug, index.id);
    for (const slug of index.eventSlugs) if (!all.eventSlugs.has(slug)) all.eventSlugs.set(slug, index.id);
  }
  return all;
}

/** A pure scan of `own`'s parsed objects: the findings in one object, without organization, path and object. */
function objectScanner(own: OrganizationIndex, all: StoreIndex): (value: unknown) => ObjectFinding[] {
  const foreignId = (id: string): string | undefined => {
    const found = all.ids.get(id);
    return found === undefined || found.owner === own.id || own.eventIds.has(id) ? undefined : found.what;
  };
  // A slug that is also one of this organization's own is not foreign: event slugs are unique
  // only within an organization, and two organizations may well both have an event "meetup".
  // Otherwise, any owner of it is another organization.
  const slugOwner = (slug: string, kinds: ReadonlyArray<'organization' | 'event'>): string | undefined => {
    if (own.slugs.has(slug) || own.eventSlugs.has(slug)) return undefined;
    const organization = kinds.includes('organization') ? all.organizationSlugs.get(slug) : undefined;
    if (organization !== undefined) return `the slug of organization ${organization}`;
    const event = kinds.includes('event') ? all.eventSlugs.get(slug) : undefined;
    return event === undefined ? undefined : `the slug of an event of organization ${event}`;
  };

  return (value) => {
    const findings: ObjectFinding[] = [];
    walkStrings(value, '', (text, location, member) => {
      for (const match of text.includes('@') ? text.matchAll(EMAIL) : []) {
        if (FILE_EXTENSIONS.has(match[1]!.toLowerCase())) continue;
        if (own.emails.has(match[0].toLowerCase())) continue;
        findings.push({ kind: 'foreign-email', detail: `${location || '/'}: e-mail address ${match[0]}` });
      }
      // Ids are UUIDs: matched exactly, anywhere (values and member names), they cannot be a
      // coincidence.
      for (const match of text.matchAll(UUID_IN_TEXT)) {
        const owner = foreignId(match[0].toLowerCase());
        if (owner !== undefined) findings.push({ kind: 'foreign-id', detail: `${location || '/'}: ${match[0]} is ${owner}` });
      }
      // Slugs are words ("berlin", "meetup"): looked for only where a slug is meant, so that a
      // description mentioning Berlin is not a finding. That is a `slug` member (an organization's
      // or an event's) and a `publicUrl`, whose path ends in {organization slug} or
      // {organization slug}/events/{event slug} (docs/platform.md "Public pages"). Other URLs
      // (websiteUrl, …) are what people typed and may link anywhere.
      if (member === 'slug') {
        const owner = slugOwner(text, ['organization', 'event']);
        if (owner !== undefined) findings.push({ kind: 'foreign-slug', detail: `${location}: "${text}" is ${owner}` });
      } else if (member === 'publicUrl') {
        for (const [slug, kinds] of publicUrlSlugs(text)) {
          const owner = slugOwner(slug, kinds);
          if (owner !== undefined) findings.push({ kind: 'foreign-slug', detail: `${location}: "${slug}" in ${text} is ${owner}` });
        }
      }
    });
    return findings;
  };
}

/** The slugs a public page URL holds, with what each is: `…/{org}` or `…/{org}/events/{event}`. */
function publicUrlSlugs(url: string): Array<[string, Array<'organization' | 'event'>]> {
  let segments: string[];
  try {
    segments = new URL(url).pathname
      .split('/')
      .filter((segment) => segment !== '')
      .map(decodeURIComponent);
  } catch {
    return [];
  }
  const n = segments.length;
  if (n >= 3 && segments[n - 2] === 'events') {
    return [
      [segments[n - 3]!, ['organization']],
      [segments[n - 1]!, ['event']],
    ];
  }
  return n >= 1 ? [[segments[n - 1]!, ['organization']]] : [];
}

/** Calls `visit` for every string in `value`, member names included, with its JSON Pointer and member name. */
function walkStrings(value: unknown, location: string, visit: (text: string, location: string, member: string | undefined) => void, member?: string): void {
  if (typeof value === 'string') visit(value, location, member);
  else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) walkStrings(item, `${location}/${i}`, visit);
  } else if (typeof value === 'object' && value !== null) {
    for (const [name, item] of Object.entries(value)) {
      const at = `${location}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      visit(name, at, undefined);
      walkStrings(item, at, visit, name);
    }
  }
}
