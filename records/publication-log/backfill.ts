// Backfill of the publication log from a store with history published before the log existed
// (`marquee checkpoint --backfill`): every manifest and state record the store holds that the log
// does not know is appended, once, oldest first per organization (manifests and state records
// merged by the instant their names begin with), one append per organization. Each entry's `at` is
// the backfill's instant, not the publication's (that is inside the document, which `hash` covers):
// a checkpoint after a backfill vouches that these documents were in the store then, and for what
// is appended after it that it was logged before anything named it; nothing about the time before.
// Run again, it appends nothing: what the log knows, by organization, kind and id, is left out.
import { sha256Hex } from '../../snapshot/hash.ts';
import { instantOfName, manifestKey, stateRecordName } from '../../snapshot/layout.ts';
import { listOrganizationIds, listSnapshotIds } from '../../snapshot/reader.ts';
import { listStateMarks } from '../../snapshot/state-records.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';
import type { LogRecord } from './log-entry.ts';
import type { PublicationLog } from './log-store.ts';

export interface BackfillReport {
  organizations: number;
  manifests: number;
  stateRecords: number;
}

interface Found {
  at: number;
  record: LogRecord;
}

export async function backfillPublicationLog(store: SnapshotStore, log: PublicationLog): Promise<BackfillReport> {
  const report: BackfillReport = { organizations: 0, manifests: 0, stateRecords: 0 };
  for (const organizationId of await listOrganizationIds(store)) {
    report.organizations++;
    // Known by kind and id, removed or not: a removed document is not in the store to find again.
    const known = new Set((await log.entriesOf(organizationId)).map(({ entry }) => `${entry.kind === 'removal' ? entry.removed : entry.kind}:${entry.id}`));
    const found: Found[] = [];
    for (const id of await listSnapshotIds(store, organizationId)) {
      if (known.has(`manifest:${id}`)) continue;
      const bytes = await store.get(manifestKey(organizationId, id));
      if (bytes === undefined) continue;
      found.push({ at: instantOfName(id)?.getTime() ?? 0, record: { kind: 'manifest', organizationId, id, hash: sha256Hex(bytes) } });
    }
    for (const mark of await listStateMarks(store, organizationId)) {
      const id = stateRecordName(mark.key);
      if (known.has(`state-record:${id}`)) continue;
      const bytes = await store.get(mark.key);
      if (bytes === undefined) continue;
      found.push({ at: mark.at.getTime(), record: { kind: 'state-record', organizationId, id, hash: sha256Hex(bytes) } });
    }
    // Stable: a manifest and a state record of the same instant keep the order above (the manifest first).
    found.sort((a, b) => a.at - b.at);
    await log.append(found.map(({ record }) => record));
    for (const { record } of found) {
      if (record.kind === 'manifest') report.manifests++;
      else report.stateRecords++;
    }
  }
  return report;
}
