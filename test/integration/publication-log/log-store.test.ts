// The publication log's relations on PostgreSQL 15 and on PGlite: appends from two clients at once
// make one gapless log whose root is the naive recomputation from its leaves; the log cannot be
// edited; a consistency proof from 10 to 1,010 leaves verifies, and one from a rewritten log does not.
import { afterAll, describe, expect, it } from 'vitest';
import { leafBytes, type LogEntry, parseLeaf } from '../../../records/publication-log/log-entry.ts';
import { databasePublicationLog } from '../../../records/publication-log/log-store.ts';
import { leafHash, rootOf, verifyConsistency, verifyInclusion } from '../../../records/publication-log/merkle.ts';
import { LOG_ORGANIZATIONS, logDatabases, logRecord, logRecords } from '../../support/publication-log.ts';

const databases = logDatabases();
afterAll(() => databases.close());

const NOW = new Date('2026-11-26T12:00:00.000Z');
const clock = () => NOW;

describe.each(databases.backends)('the publication log on $name', (backend) => {
  it('appends in order, numbers from 0, and reads back the exact leaves', async () => {
    const [db] = await backend.open();
    const log = databasePublicationLog(db!, { now: clock });
    expect(await log.size()).toBe(0);
    expect(await log.append([])).toEqual([]);
    expect(await log.append(logRecords(0, 3))).toEqual([0, 1, 2]);
    expect(await log.append(logRecords(3, 8))).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await log.size()).toBe(11);

    const all = await log.entriesSince(0);
    expect(all.map((logged) => logged.seq)).toEqual([...Array(11).keys()]);
    all.forEach((logged, seq) => {
      expect(logged.entry).toEqual({ ...logRecord(seq), at: NOW.toISOString() });
      expect(logged.leaf).toEqual(leafBytes(logged.entry));
      expect(parseLeaf(logged.leaf)).toEqual(logged.entry);
      expect(logged.leafHash).toEqual(leafHash(logged.leaf));
    });
    expect((await log.entriesSince(9)).map((logged) => logged.seq)).toEqual([9, 10]);
    expect((await log.entriesSince(2, 3)).map((logged) => logged.seq)).toEqual([2, 3, 4]);
    const ofFirst = await log.entriesOf(LOG_ORGANIZATIONS[0]);
    expect(ofFirst.map((logged) => logged.seq)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(ofFirst.every((logged) => logged.entry.kind !== 'trail-head' && logged.entry.organizationId === LOG_ORGANIZATIONS[0])).toBe(true);

    for (let size = 1; size <= 11; size++) expect(await log.root(size)).toEqual(rootOf(all.slice(0, size).map((logged) => logged.leafHash)));
    expect(await log.root()).toEqual(await log.root(11));
    await expect(log.root(12)).rejects.toThrow(/holds 11 leaves/);
    await expect(log.inclusionProof(3, 12)).rejects.toThrow(/holds 11 leaves/);
    await expect(log.consistencyProof(0, 11)).rejects.toThrow(RangeError);
  });

  it('refuses a malformed record without appending anything', async () => {
    const [db] = await backend.open();
    const log = databasePublicationLog(db!);
    await log.append(logRecords(0, 2));
    await expect(log.append([logRecord(2), { kind: 'manifest', organizationId: LOG_ORGANIZATIONS[0], id: 'not-a-snapshot-id', hash: 'a'.repeat(64) }])).rejects.toThrow(
      /snapshot id/,
    );
    await expect(log.append([{ ...logRecord(3), hash: 'A'.repeat(64) }])).rejects.toThrow(/hex/);
    expect(await log.size()).toBe(2);
  });

  it('takes appends from two clients at once into one log without a fork or a gap', async () => {
    const [first, second] = await backend.open(2);
    const logs = [databasePublicationLog(first!), databasePublicationLog(second!)];
    // Each client appends its own stream, in batches of 1 to 4, all of them at once.
    const appended = await Promise.all(
      logs.map((log, client) =>
        Promise.all(
          Array.from({ length: 30 }, async (_, batch) => {
            const records = logRecords(batch * 10, 1 + (batch % 4), `client ${client} `);
            const seqs = await log.append(records);
            return records.map((record, offset) => ({ record, seq: seqs[offset]! }));
          }),
        ),
      ),
    );
    const total = appended.flat(2).length;
    expect(total).toBe(2 * 73);
    expect(await logs[0]!.size()).toBe(total);
    const entries = await logs[1]!.entriesSince(0, total + 1);
    expect(entries.map((logged) => logged.seq)).toEqual([...Array(total).keys()]);
    // Every record is at the seq its append answered, once.
    for (const { record, seq } of appended.flat(2)) {
      const { at: _at, ...stored } = entries[seq]!.entry as LogEntry & { at: string };
      expect(stored).toEqual(record);
    }
    // A batch's leaves are consecutive: one append, one transaction, nothing between.
    for (const batch of appended.flat(1)) expect(batch.map(({ seq }) => seq)).toEqual(batch.map((_, offset) => batch[0]!.seq + offset));
    expect(await logs[0]!.root()).toEqual(rootOf(entries.map((logged) => leafHash(logged.leaf))));
    for (const seq of [0, 1, total - 1, Math.floor(total / 3)]) {
      const proof = await logs[seq % 2]!.inclusionProof(seq, total);
      expect(verifyInclusion(seq, total, entries[seq]!.leafHash, proof, await logs[0]!.root(total))).toBe(true);
    }
  });

  it('refuses UPDATE, DELETE and TRUNCATE of its leaves and subtrees', async () => {
    const [db] = await backend.open();
    const log = databasePublicationLog(db!);
    await log.append(logRecords(0, 4));
    for (const statement of [
      `UPDATE marquee_publication_log SET kind = 'manifest' WHERE seq = 3`,
      `UPDATE marquee_publication_log SET leaf = leaf || '\\x20'::bytea WHERE seq = 0`,
      'DELETE FROM marquee_publication_log WHERE seq = 3',
      'TRUNCATE marquee_publication_log CASCADE',
      `UPDATE marquee_publication_log_subtrees SET hash = decode(repeat('00', 32), 'hex') WHERE level = 2`,
      'DELETE FROM marquee_publication_log_subtrees WHERE level = 0 AND index = 3',
      'TRUNCATE marquee_publication_log_subtrees',
    ]) {
      await expect(db!.query(statement), statement).rejects.toThrow(/append-only/);
    }
    expect(await log.size()).toBe(4);
    expect(await log.root()).toEqual(rootOf((await log.entriesSince(0)).map((logged) => logged.leafHash)));
  });

  it('proves 1,010 leaves consistent with its first 10, and a rewritten log not', async () => {
    const [db, rewrittenDb] = [(await backend.open())[0]!, (await backend.open())[0]!];
    const log = databasePublicationLog(db, { now: clock });
    // The same history but for one manifest's hash at seq 4, which an owner rewrote.
    const rewritten = databasePublicationLog(rewrittenDb, { now: clock });
    await log.append(logRecords(0, 10));
    await rewritten.append([...logRecords(0, 4), logRecord(4, 'rewritten '), ...logRecords(5, 5)]);
    const root10 = await log.root(10);
    expect(await rewritten.root(10)).not.toEqual(root10);
    for (let from = 10; from < 1010; from += 200) {
      await log.append(logRecords(from, 200));
      await rewritten.append(logRecords(from, 200));
    }
    expect(await log.size()).toBe(1010);
    const root1010 = await log.root(1010);
    expect(root1010).toEqual(rootOf((await log.entriesSince(0, 2000)).map((logged) => logged.leafHash)));

    const proof = await log.consistencyProof(10, 1010);
    expect(proof.length).toBeLessThanOrEqual(2 * 10);
    expect(verifyConsistency(10, 1010, root10, root1010, proof)).toBe(true);
    expect(await log.consistencyProof(1010, 1010)).toEqual([]);

    // The rewritten log's own proof and root: consistent with its own past, never with the real one.
    const rewrittenProof = await rewritten.consistencyProof(10, 1010);
    const rewrittenRoot = await rewritten.root(1010);
    expect(verifyConsistency(10, 1010, await rewritten.root(10), rewrittenRoot, rewrittenProof)).toBe(true);
    expect(verifyConsistency(10, 1010, root10, rewrittenRoot, rewrittenProof)).toBe(false);
    expect(verifyConsistency(10, 1010, root10, rewrittenRoot, proof)).toBe(false);

    for (const seq of [0, 4, 9, 10, 511, 1009]) {
      const leaf = (await log.entriesSince(seq, 1))[0]!;
      expect(verifyInclusion(seq, 1010, leaf.leafHash, await log.inclusionProof(seq, 1010), root1010)).toBe(true);
      expect(verifyInclusion(seq, 1010, leaf.leafHash, await log.inclusionProof(seq, 1010), rewrittenRoot)).toBe(false);
    }
  });
});
