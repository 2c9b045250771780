// A running builder keeps the publication log's checkpoint in the store while the log grows
// (records/publication-log/checkpoint-keeping.ts), and logs the audit trail's head beside it: run
// in-process on an embedded platform with a short test-only interval instead of the half minute,
// never a sleep.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openBuilderProcess } from '../../../bin/builder-process.ts';
import { parseConfig } from '../../../bin/config.ts';
import { BackendStates } from '../../../runtime/backend-states.ts';
import { ProcessReadiness } from '../../../runtime/readiness.ts';
import { openFreshPglite } from '../../support/fresh-pglite.ts';
import { latestCheckpoint, verifyStoredCheckpoint } from '../../../records/publication-log/checkpoint-store.ts';
import { databasePublicationLog } from '../../../records/publication-log/log-store.ts';
import { migrateMarquee } from '../../../records/schema/migrate.ts';
import { databaseAuditTrail } from '../../../records/trail/audit-trail.ts';
import type { AuditRecord } from '../../../records/trail/audit-entry.ts';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { newSnapshotId } from '../../../snapshot/layout.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { seeded } from '../../support/sample-build.ts';
import { until } from '../../support/until.ts';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-builder-checkpoints-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const RECORD: AuditRecord = {
  actor: 'root',
  actorRole: 'owner',
  door: 'api',
  action: 'key.created',
  organizationId: null,
  targetId: 'key_1',
  outcome: 'ok',
  reason: null,
  requestId: null,
  clientAddress: null,
  changes: {},
};

it('a running builder writes a checkpoint of the grown log within its interval, and logs the trail head once', async () => {
  const config = parseConfig({ MARQUEE_HOME: home, PORT: '0', ADMIN_PORT: '0', LOG_FORMAT: 'json' }, home, false, { builds: true });
  const db = await seeded(await openFreshPglite());
  await migrateMarquee(db);
  // An admin's change before the builder starts: its first look at the head logs it.
  const head = await databaseAuditTrail(db).append(RECORD);
  const log = new RecordingLog();
  const builder = await openBuilderProcess(config, db, { log, readiness: new ProcessReadiness(new BackendStates()), checkpointIntervalMs: 25 });
  const publicationLog = databasePublicationLog(db);
  const origin = config.publicationLogOrigin as string;
  try {
    await builder.run('manual');
    // The run's own checkpoint, at its end, covers what it published.
    const afterRun = await publicationLog.size();
    expect(afterRun).toBeGreaterThan(0);
    expect((await latestCheckpoint(builder.store))?.size).toBeGreaterThanOrEqual(afterRun - 1);

    // Another process (the CLI's build) appends: the builder's keeper checkpoints it within its interval.
    const hash = createHash('sha256').update('another publish').digest('hex');
    await publicationLog.append([{ kind: 'manifest', organizationId: SAMPLE.organizations.nordic.id, id: newSnapshotId(new Date(), hash), hash }]);
    const grown = await publicationLog.size();
    const kept = await until('a checkpoint of the grown log', async () => {
      const latest = await latestCheckpoint(builder.store);
      return latest !== undefined && latest.size >= grown && latest;
    });
    expect(await verifyStoredCheckpoint(builder.store, kept, origin)).toMatchObject({ size: grown, rootHash: await publicationLog.root(grown) });
    // Looked at every few seconds, logged once.
    const heads = (await publicationLog.entriesSince(0)).filter(({ entry }) => entry.kind === 'trail-head');
    expect(heads.map(({ entry }) => entry)).toEqual([expect.objectContaining({ id: String(head.seq), hash: head.hash })]);
  } finally {
    await builder.close();
  }
  expect(log.lines.filter((line) => line.level !== 'info')).toEqual([]);
});
