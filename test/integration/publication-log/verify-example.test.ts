// examples/verify-publication-log.mjs, the auditors' independent verifier, run as they would run it
// (node, the files, nothing of Marquee's; test/support/example-verifiers.ts) on checkpoints, proofs
// and leaves made from a real log: it accepts what holds, and refuses an edited checkpoint, another
// key, a tampered proof, an object that is not the one logged, the checkpoint of a log rewritten by
// someone holding the signing key, and leaves changed, removed or reordered since a checkpoint.
import { createHash, createPrivateKey } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicationLogOrigin, signCheckpoint } from '../../../records/publication-log/checkpoint.ts';
import { leafBytes, logEntry } from '../../../records/publication-log/log-entry.ts';
import { databasePublicationLog } from '../../../records/publication-log/log-store.ts';
import { completedSubtrees, consistencyProof, leafHash, rangeHash } from '../../../records/publication-log/merkle.ts';
import { consistencyProofDocument, inclusionProofDocument, proofDocumentBytes } from '../../../records/publication-log/proof-documents.ts';
import { newSigningKeyPem, Signer } from '../../../snapshot/signing.ts';
import { exportLeaves, verifyPublicationLogExample } from '../../support/example-verifiers.ts';
import { logDatabases, logRecord, logRecords } from '../../support/publication-log.ts';

const ORIGIN = publicationLogOrigin('https://cdn.example.com/marquee');
const NOW = new Date('2026-11-26T12:00:00.000Z');

const databases = logDatabases();
let dir: string;
const file = (name: string) => join(dir, name);

/** The verifier's exit status and all it printed. */
async function verifier(...args: string[]): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await verifyPublicationLogExample(...args);
  return { code, out: `${stdout}${stderr}` };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'marquee-verify-log-'));
  const pem = newSigningKeyPem();
  const key = createPrivateKey(pem);
  const signer = new Signer(key);
  const other = new Signer(createPrivateKey(newSigningKeyPem()));
  await writeFile(file('key.json'), JSON.stringify(signer.record(NOW)));
  await writeFile(file('other-key.json'), JSON.stringify(other.record(NOW)));
  // A record that names the right key id over another key: the verifier must not believe its name.
  await writeFile(file('forged-key.json'), JSON.stringify({ ...other.record(NOW), keyId: signer.keyId }));

  const db = (await databases.backends.find((backend) => backend.name === 'PGlite')!.open())[0]!;
  const log = databasePublicationLog(db, { now: () => NOW });
  await log.append(logRecords(0, 10));
  await writeFile(file('old.checkpoint'), signCheckpoint({ origin: ORIGIN, size: 10, rootHash: await log.root(10) }, key));
  for (let from = 10; from < 1010; from += 250) await log.append(logRecords(from, 250));
  const newNote = signCheckpoint({ origin: ORIGIN, size: 1010, rootHash: await log.root(1010) }, key);
  await writeFile(file('new.checkpoint'), newNote);
  await writeFile(file('new-edited.checkpoint'), newNote.replace('\n1010\n', '\n1009\n'));

  const logged = (await log.entriesSince(4, 1))[0]!;
  const inclusion = inclusionProofDocument(ORIGIN, 1010, logged, await log.inclusionProof(4, 1010));
  await writeFile(file('inclusion.json'), proofDocumentBytes(inclusion));
  const flipped = Buffer.from(inclusion.proof[2]!, 'base64');
  flipped[0]! ^= 1;
  await writeFile(file('inclusion-tampered.json'), proofDocumentBytes({ ...inclusion, proof: inclusion.proof.map((hash, at) => (at === 2 ? flipped.toString('base64') : hash)) }));
  const otherLeaf = leafBytes({ ...logged.entry, hash: createHash('sha256').update('another manifest').digest('hex') });
  await writeFile(file('inclusion-other-leaf.json'), proofDocumentBytes({ ...inclusion, leaf: otherLeaf.toString('base64') }));
  // The manifest logged at seq 4: logRecord's hash is the SHA-256 of "record 4".
  expect(logged.entry.hash).toBe(createHash('sha256').update('record 4').digest('hex'));
  await writeFile(file('manifest.json'), 'record 4');
  await writeFile(file('other-manifest.json'), 'record 5');

  await writeFile(file('consistency.json'), proofDocumentBytes(consistencyProofDocument(ORIGIN, 10, 1010, await log.consistencyProof(10, 1010))));

  // The leaves as an auditor takes them from the database, and the same with one changed, one
  // removed, two swapped, the last cut off, and one appended past the newer checkpoint (logged
  // since: not a break).
  const exported = (await readFile(await exportLeaves(db, file('leaves.txt')), 'utf8')).split('\n').slice(0, -1);
  expect(exported).toHaveLength(1010);
  const lines = (edited: string[]) => `${edited.join('\n')}\n`;
  await writeFile(
    file('leaves-changed.txt'),
    lines(exported.map((leaf, seq) => (seq === 4 ? leaf.replace(logged.entry.hash, createHash('sha256').update('another').digest('hex')) : leaf))),
  );
  const next = leafBytes(logEntry(logRecord(1010), NOW)).toString('utf8');
  // Leaf 500 removed and the next one logged: as many leaves as the newer checkpoint's.
  await writeFile(file('leaves-removed.txt'), lines([...exported.filter((_, seq) => seq !== 500), next]));
  await writeFile(file('leaves-swapped.txt'), lines([exported[1]!, exported[0]!, ...exported.slice(2)]));
  await writeFile(file('leaves-grown.txt'), lines([...exported, next]));
  await writeFile(file('leaves-truncated.txt'), lines(exported.slice(0, 1009)));

  // The same log rewritten at seq 4 by someone who holds the signing key: its checkpoint at 1,010 is
  // signed as well as the real one, and its own consistency proof holds for its own past only.
  const leaves = [...logRecords(0, 4), logRecord(4, 'rewritten '), ...logRecords(5, 1005)].map((record) => leafHash(leafBytes(logEntry(record, NOW))));
  const stored = new Map(completedSubtrees(0, [], leaves).map((subtree) => [`${subtree.level}:${subtree.index}`, subtree.hash]));
  const read = (level: number, index: number) => stored.get(`${level}:${index}`);
  await writeFile(file('rewritten.checkpoint'), signCheckpoint({ origin: ORIGIN, size: 1010, rootHash: rangeHash(0, 1010, read) }, key));
  await writeFile(file('rewritten-consistency.json'), proofDocumentBytes(consistencyProofDocument(ORIGIN, 10, 1010, consistencyProof(10, 1010, read))));
}, 120_000);

afterAll(async () => {
  await databases.close();
  await rm(dir, { recursive: true, force: true });
});

describe('examples/verify-publication-log.mjs', () => {
  it('verifies a checkpoint, an inclusion with the object in hand, and the log only growing', async () => {
    const checkpoint = await verifier('checkpoint', file('new.checkpoint'), '--key', file('other-key.json'), '--key', file('key.json'), '--origin', ORIGIN);
    expect(checkpoint).toMatchObject({ code: 0 });
    expect(checkpoint.out).toContain(`${ORIGIN}, 1010 leaves`);
    const inclusion = await verifier('inclusion', file('new.checkpoint'), file('inclusion.json'), '--key', file('key.json'), '--object', file('manifest.json'));
    expect(inclusion).toMatchObject({ code: 0 });
    expect(inclusion.out).toContain('leaf 4 is in the tree');
    expect(inclusion.out).toContain('"kind":"manifest"');
    const consistency = await verifier('consistency', file('old.checkpoint'), file('new.checkpoint'), file('consistency.json'), '--key', file('key.json'));
    expect(consistency).toMatchObject({ code: 0 });
    expect(consistency.out).toContain('the log of 1010 leaves extends the log of 10');
  });

  it('refuses an edited checkpoint, another key, a record that lies about its key, another origin', async () => {
    expect(await verifier('checkpoint', file('new-edited.checkpoint'), '--key', file('key.json'))).toMatchObject({ code: 1, out: expect.stringContaining('does not verify') });
    expect(await verifier('checkpoint', file('new.checkpoint'), '--key', file('other-key.json'))).toMatchObject({
      code: 1,
      out: expect.stringContaining('no signature by a given key'),
    });
    expect(await verifier('checkpoint', file('new.checkpoint'), '--key', file('forged-key.json'))).toMatchObject({
      code: 1,
      out: expect.stringContaining('does not hash to its keyId'),
    });
    expect(await verifier('checkpoint', file('new.checkpoint'), '--key', file('key.json'), '--origin', 'elsewhere.example/publication-log')).toMatchObject({ code: 1 });
  });

  it('refuses a tampered inclusion proof, another leaf, an object that is not the one logged', async () => {
    expect(await verifier('inclusion', file('new.checkpoint'), file('inclusion-tampered.json'), '--key', file('key.json'))).toMatchObject({
      code: 1,
      out: expect.stringContaining('not in the checkpoint'),
    });
    expect(await verifier('inclusion', file('new.checkpoint'), file('inclusion-other-leaf.json'), '--key', file('key.json'))).toMatchObject({ code: 1 });
    expect(await verifier('inclusion', file('new.checkpoint'), file('inclusion.json'), '--key', file('key.json'), '--object', file('other-manifest.json'))).toMatchObject({
      code: 1,
      out: expect.stringContaining('is not the logged'),
    });
    // The proof is of the tree of 1,010 leaves, not of the older checkpoint's.
    expect(await verifier('inclusion', file('old.checkpoint'), file('inclusion.json'), '--key', file('key.json'))).toMatchObject({ code: 1 });
  });

  it('refuses the checkpoint of a rewritten log, whatever proof comes with it', async () => {
    // Its signature holds: the key signed it. Only consistency with what was seen before catches it.
    expect(await verifier('checkpoint', file('rewritten.checkpoint'), '--key', file('key.json'))).toMatchObject({ code: 0 });
    for (const proof of ['consistency.json', 'rewritten-consistency.json']) {
      expect(await verifier('consistency', file('old.checkpoint'), file('rewritten.checkpoint'), file(proof), '--key', file('key.json'))).toMatchObject({
        code: 1,
        out: expect.stringContaining('the log was rewritten'),
      });
    }
    expect(await verifier('consistency', file('new.checkpoint'), file('old.checkpoint'), file('consistency.json'), '--key', file('key.json'))).toMatchObject({ code: 1 });
  });

  it('log: the leaves in hand are the log every checkpoint given signed, kept ones included', async () => {
    const held = await verifier('log', file('leaves.txt'), file('old.checkpoint'), file('new.checkpoint'), '--key', file('key.json'), '--origin', ORIGIN);
    expect(held, held.out).toMatchObject({ code: 0 });
    expect(held.out).toContain('1010 leaves (');
    // Leaves logged after the newest checkpoint are the log growing, not a break.
    expect(await verifier('log', file('leaves-grown.txt'), file('old.checkpoint'), file('new.checkpoint'), '--key', file('key.json'))).toMatchObject({ code: 0 });
  });

  it('log: refuses leaves changed, removed, reordered or cut short, and a checkpoint of a rewritten log', async () => {
    for (const [leaves, checkpoint, says] of [
      ['leaves-changed.txt', 'old.checkpoint', 'do not hash to the root'],
      ['leaves-removed.txt', 'new.checkpoint', 'do not hash to the root'],
      ['leaves-swapped.txt', 'old.checkpoint', 'do not hash to the root'],
      ['leaves-truncated.txt', 'new.checkpoint', 'fewer than the 1010'],
      ['leaves.txt', 'rewritten.checkpoint', 'do not hash to the root'],
    ] as const) {
      const refused = await verifier('log', file(leaves), file(checkpoint), '--key', file('key.json'));
      expect({ leaves, checkpoint, code: refused.code, out: refused.out }).toEqual({
        leaves,
        checkpoint,
        code: 1,
        out: expect.stringMatching(new RegExp(`^ok .*\\nFAIL .*${says}.*: the publication log was rewritten or forked since`, 's')),
      });
    }
    // The old checkpoint holds for leaves changed past it; the newer one does not.
    expect(await verifier('log', file('leaves-removed.txt'), file('old.checkpoint'), '--key', file('key.json'))).toMatchObject({ code: 0 });
  });

  it('says how to call it when called wrong', async () => {
    expect(await verifier('inclusion', file('new.checkpoint'))).toMatchObject({ code: 2, out: expect.stringContaining('usage') });
    expect(await verifier('checkpoint', file('missing.checkpoint'), '--key', file('key.json'))).toMatchObject({ code: 2 });
    expect(await verifier('log', file('leaves.txt'), '--key', file('key.json'))).toMatchObject({ code: 2, out: expect.stringContaining('usage') });
  });
});
