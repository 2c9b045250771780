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
import type { SqlClient, SqlQueries } from '../../records/database/sql.ts';
import type { LogEntry } from '../../records/publication-log/log-entry.ts';
import { databasePublicationLog } from '../../records/publication-log/log-store.ts';
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
}

/**
 * The log's expectations of `store` (its description), of every organization or `only` one: a
 * Map to merge with the platform database's, or a string saying why the log is left out. With
 * `fromSeq`, only of the entries from that seq on, and no `unlogged` check.
 */
export async function logExpectations(db: SqlQueries, store: string, only?: string, fromSeq?: number): Promise<Map<string, Expectation[]> | string> {
  const excluded = await notThisStoresLog(db, store, fromSeq);
  if (excluded !== undefined) return excluded;
  // Reads only: no transaction is ever asked of it.
  const log = databasePublicationLog(db as SqlClient);
  const byOrganization = new Map<string, OrganizationLog>();
  const take = (entry: LogEntry) => {
    if (entry.kind === 'trail-head') return;
    let org = byOrganization.get(entry.organizationId);
    if (org === undefined) byOrganization.set(entry.organizationId, (org = { manifests: new Map(), stateRecords: new Map(), since: instantOfName(entry.id) }));
    if (entry.kind === 'manifest') org.manifests.set(entry.id, entry.hash);
    else if (entry.kind === 'state-record') org.stateRecords.set(entry.id, entry.hash);
    else (entry.removed === 'manifest' ? org.manifests : org.stateRecords).set(entry.id, REMOVED);
  };
  if (only !== undefined) {
    for (const { seq, entry } of await log.entriesOf(only)) if (seq >= (fromSeq ?? 0)) take(entry);
  } else
    for (let seq = fromSeq ?? 0; ; ) {
      const page = await log.entriesSince(seq, PAGE);
      for (const { entry } of page) take(entry);
      if (page.length < PAGE) break;
      seq = page.at(-1)!.seq + 1;
    }

  const expectations = new Map<string, Expectation[]>();
  for (const [orgId, org] of byOrganization) {
    const says = (what: string) => `the publication log records ${what} published into this store, and no removal of it`;
    const list: Expectation[] = [];
    for (const [snapshotId, manifestHash] of org.manifests)
      if (manifestHash !== REMOVED) list.push({ says: says(`snapshot ${snapshotId}`), snapshot: { snapshotId, manifestHash } });
    for (const [name, hash] of org.stateRecords) if (hash !== REMOVED) list.push({ says: says(`state record ${name}`), stateRecord: { name, hash } });
    if (org.since !== undefined && fromSeq === undefined)
      list.push({
        says: 'the publication log records every manifest published into this store since its first entry',
        logged: { since: org.since, manifests: new Set(org.manifests.keys()) },
      });
    expectations.set(orgId, list);
  }
  return expectations;
}

/** A removed document's place in the maps: it was logged (not unlogged), and is not expected. */
const REMOVED = 'removed';
