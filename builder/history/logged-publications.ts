// What the publication log (records/publication-log/) says must be in a snapshot store, for verify
// and audit (verify-history.ts `Expectations`): per organization, every manifest and state record
// it logged and did not log as removed since (retention's pruning, a publish's withdrawal), each
// with the SHA-256 of its bytes; and which manifests it knows at all, so one in the store that it
// does not know, newer than the organization's first entry, is `unlogged` (older ones predate the
// log, or its backfill).
//
// The log names no store: its entries are those of every store the database's builds published
// into. So it is checked against a store only when the builds the database records
// (marquee_built_versions) went into that store alone; with builds into several stores (or none),
// nothing here says which entry belongs where, and the log is left out, as `against` says.
// From a kept checkpoint on (`verify --since`, since-checkpoint.ts), the checkpoint, signed under
// the store's origin, says whose log it is: then only the publications logged since its size are
// asked of the store.
//
// The log's rows are read checked against its tree (log-store.ts): a row that is not the tree's
// leaf at its seq, or a seq missing, is the log rewritten, `log-rewritten` for the organizations
// the row names, or for every organization when it names none (a row deleted: whose it was, nothing
// says). And the log is read before any organization is verified, beside builders that go on
// publishing: each organization's expectations carry `again`, its entries read once more (one
// indexed read), which verify asks before it reports a break that a publication since would explain.
import type { SqlClient, SqlQueries } from '../../records/database/sql.ts';
import type { LogEntry } from '../../records/publication-log/log-entry.ts';
import { databasePublicationLog, type LogRead, type RewrittenLeaf } from '../../records/publication-log/log-store.ts';
import { instantOfName } from '../../snapshot/layout.ts';
import type { Expectation } from './verify-history.ts';

const PAGE = 5000;

/** Why the log is not checked against `store`, or undefined when it is. */
async function notThisStoresLog(db: SqlQueries, store: string, fromSeq: number | undefined): Promise<string | undefined> {
  const [table] = await db.query<{ present: boolean }>(`SELECT to_regclass('marquee_publication_log') IS NOT NULL AS present`);
  if (!table?.present) return 'the database has no publication log (its migration is not applied)';
  if (fromSeq !== undefined) return undefined;
  const stores = await db.query<{ store: string }>('SELECT DISTINCT store FROM marquee_built_versions ORDER BY store');
  if (stores.length === 1 && stores[0]!.store === store) return undefined;
  if (stores.length === 0) return 'the database records no build into any store, so its publication log names none';
  return `the database records builds into ${stores.length === 1 ? 'another store' : `${stores.length} stores`}, and its publication log does not say which entry went where`;
}

interface OrganizationLog {
  manifests: Map<string, string>;
  stateRecords: Map<string, string>;
  /** The instant of the first document it logged: manifests older than it predate the log. */
  since: Date | undefined;
  /** Its rows that are not the tree's leaves. */
  rewritten: RewrittenLeaf[];
}

/** What the log says of the store: per organization, and to every organization (rows rewritten that name none). */
interface LogExpectations {
  byOrganization: Map<string, Expectation[]>;
  everyOrganization: Expectation[];
}

/**
 * The log's expectations of `store` (its description), of every organization or `only` one, to
 * merge with the platform database's; or a string saying why the log is left out. With `fromSeq`,
 * only of the entries from that seq on, and no `unlogged` check.
 */
export async function logExpectations(db: SqlQueries, store: string, only?: string, fromSeq?: number): Promise<LogExpectations | string> {
  const excluded = await notThisStoresLog(db, store, fromSeq);
  if (excluded !== undefined) return excluded;
  // Reads only: no transaction is ever asked of it.
  const log = databasePublicationLog(db as SqlClient);
  const from = fromSeq ?? 0;
  const byOrganization = new Map<string, OrganizationLog>();
  const everyOrganization: RewrittenLeaf[] = [];
  const organization = (id: string) => {
    let org = byOrganization.get(id);
    if (org === undefined) byOrganization.set(id, (org = newOrganizationLog()));
    return org;
  };
  const take = ({ entries, rewritten }: Pick<LogRead, 'entries' | 'rewritten'>) => {
    for (const { seq, entry } of entries) if (seq >= from && entry.kind !== 'trail-head') takeEntry(organization(entry.organizationId), entry);
    for (const leaf of rewritten) {
      if (leaf.last < from) continue;
      if (leaf.organizationIds.length === 0) everyOrganization.push(leaf);
      for (const id of leaf.organizationIds) organization(id).rewritten.push(leaf);
    }
  };
  if (only !== undefined) take(await log.readOf(only));
  else
    for (let seq: number | undefined = from; seq !== undefined; ) {
      const page = await log.readSince(seq, PAGE);
      take(page);
      seq = page.next;
    }

  const expectations = new Map<string, Expectation[]>();
  for (const [orgId, org] of byOrganization) {
    // Read again, this organization's entries alone, as they are when verify comes to it.
    const again = async (): Promise<Expectation[]> => {
      const read = await log.readOf(orgId);
      const now = newOrganizationLog();
      for (const { seq, entry } of read.entries) if (seq >= from && entry.kind !== 'trail-head') takeEntry(now, entry);
      now.rewritten = read.rewritten.filter((leaf) => leaf.last >= from);
      return organizationExpectations(now, fromSeq, undefined);
    };
    expectations.set(orgId, organizationExpectations(org, fromSeq, again));
  }
  return { byOrganization: expectations, everyOrganization: everyOrganization.map((leaf) => rewrittenExpectation(leaf, fromSeq, undefined)) };
}

const newOrganizationLog = (): OrganizationLog => ({ manifests: new Map(), stateRecords: new Map(), since: undefined, rewritten: [] });

/** One entry of the organization's, oldest first: the first names the instant it is logged from. */
function takeEntry(org: OrganizationLog, entry: Exclude<LogEntry, { kind: 'trail-head' }>): void {
  org.since ??= instantOfName(entry.id);
  if (entry.kind === 'manifest') org.manifests.set(entry.id, entry.hash);
  else if (entry.kind === 'state-record') org.stateRecords.set(entry.id, entry.hash);
  else (entry.removed === 'manifest' ? org.manifests : org.stateRecords).set(entry.id, REMOVED);
}

function organizationExpectations(org: OrganizationLog, fromSeq: number | undefined, again: Expectation['again']): Expectation[] {
  const says = (what: string) => `the publication log records ${what} published into this store, and no removal of it`;
  const list: Expectation[] = org.rewritten.map((leaf) => rewrittenExpectation(leaf, fromSeq, again));
  for (const [snapshotId, manifestHash] of org.manifests)
    if (manifestHash !== REMOVED) list.push({ says: says(`snapshot ${snapshotId}`), snapshot: { snapshotId, manifestHash }, again });
  for (const [name, hash] of org.stateRecords) if (hash !== REMOVED) list.push({ says: says(`state record ${name}`), stateRecord: { name, hash }, again });
  if (org.since !== undefined && fromSeq === undefined)
    list.push({
      says: 'the publication log records every manifest published into this store since its first entry',
      logged: { since: org.since, manifests: new Set(org.manifests.keys()) },
      again,
    });
  return list;
}

function rewrittenExpectation(leaf: RewrittenLeaf, fromSeq: number | undefined, again: Expectation['again']): Expectation {
  const since = fromSeq === undefined ? '' : ` since the checkpoint of ${fromSeq} leaves`;
  return { says: `the publication log was rewritten or forked${since}: ${leaf.problem}`, rewritten: { leaf: leaf.seq }, again };
}

/** A removed document's place in the maps: it was logged (not unlogged), and is not expected. */
const REMOVED = 'removed';
