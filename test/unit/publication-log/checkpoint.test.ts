// Checkpoints as C2SP signed notes: the exact bytes (c2sp.org/tlog-checkpoint, c2sp.org/signed-note),
// checked against the two published examples — signed-note.md's own (C2SP/C2SP, commit 5ba5ee8: the
// verifier key example.com/foo+530d903a+… verifies its note) and the Go reference implementation's
// (golang.org/x/mod/sumdb/note/note.go package documentation, golang/mod commit fe2ec04: the
// PeterNeumann key signs its two-line text into exactly the note shown; Ed25519 is deterministic,
// so signing here must give the same bytes) — then the round trip with the snapshot signing key,
// and every edit refused.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type Checkpoint,
  checkpointText,
  noteKeyId,
  parseCheckpointText,
  parseSignedNote,
  publicationLogOrigin,
  signCheckpoint,
  signNote,
  verifierKey,
  verifyCheckpoint,
  verifyNote,
} from '../../../records/publication-log/checkpoint.ts';
import { leafHash, rootOf } from '../../../records/publication-log/merkle.ts';
import { newSigningKeyPem, parseSigningKeyRecord, Signer } from '../../../snapshot/signing.ts';

/** An Ed25519 private key from its 32-byte seed: the fixed PKCS#8 prefix, then the seed. */
const privateFromSeed = (seed: Buffer) => createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
/** An Ed25519 public key from its 32 bytes: the fixed SPKI prefix, then the key. */
const publicFromBytes = (bytes: Buffer) => createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), bytes]), format: 'der', type: 'spki' });

describe('the published examples', () => {
  it("signed-note.md's verifier key verifies its note, and names the key as computed here", () => {
    const vkey = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k';
    const note = 'This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n';
    const [name, id, key] = vkey.split('+') as [string, string, string];
    const publicKey = publicFromBytes(Buffer.from(key, 'base64').subarray(1));
    expect(noteKeyId(name, publicKey).toString('hex')).toBe(id);
    expect(verifierKey(name, publicKey)).toBe(vkey);
    const parsed = verifyNote(note, name, [publicKey]);
    expect(parsed).toMatchObject({ text: 'This is an example message.\n' });
    expect(typeof parsed === 'string' ? undefined : parsed.signatures[0]?.keyId.toString('hex')).toBe(id);
    // Any other key under the same name is unknown: its signature is ignored, and none is left.
    expect(verifyNote(note, name, [generateKeyPairSync('ed25519').publicKey])).toMatch(/no signature by a trusted key/);
  });

  it("golang.org/x/mod/sumdb/note's PeterNeumann key signs its text into exactly the note it documents", () => {
    const skey = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
    const vkey = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
    const text = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
    const signed = `${text}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;
    const privateKey = privateFromSeed(Buffer.from(skey.split('+').slice(4).join('+'), 'base64').subarray(1));
    expect(verifierKey('PeterNeumann', createPublicKey(privateKey))).toBe(vkey);
    expect(signNote(text, 'PeterNeumann', privateKey)).toBe(signed);
    expect(verifyNote(signed, 'PeterNeumann', [createPublicKey(privateKey)])).toMatchObject({ text });
  });
});

describe('a checkpoint', () => {
  const privateKey = createPrivateKey(newSigningKeyPem());
  const publicKey = createPublicKey(privateKey);
  const origin = publicationLogOrigin('https://cdn.example.com/marquee/');
  const checkpoint: Checkpoint = { origin, size: 1010, rootHash: rootOf([leafHash(Buffer.from('a')), leafHash(Buffer.from('b'))]) };
  const trust = { origin, publicKeys: [publicKey] };

  it('is three lines, a blank line and one signature line, byte for byte as C2SP writes them', () => {
    expect(origin).toBe('cdn.example.com/marquee/publication-log');
    const note = signCheckpoint(checkpoint, privateKey);
    const keyId = noteKeyId(origin, publicKey);
    const lines = note.split('\n');
    expect(lines.slice(0, 4)).toEqual([origin, '1010', checkpoint.rootHash.toString('base64'), '']);
    expect(lines[5]).toBe('');
    expect(lines).toHaveLength(6);
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/.exec(lines[4]!);
    expect(match?.[1]).toBe(origin);
    const signature = Buffer.from(match![2]!, 'base64');
    expect(signature).toHaveLength(4 + 64);
    expect(signature.subarray(0, 4)).toEqual(keyId);
    // The key id: SHA-256(name || 0x0A || 0x01 || 32-byte key)[:4], and the signature over the text's bytes.
    const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
    expect(
      createHash('sha256')
        .update(`${origin}\n`)
        .update(Buffer.from([1]))
        .update(raw)
        .digest()
        .subarray(0, 4),
    ).toEqual(keyId);
    expect(verify(null, Buffer.from(checkpointText(checkpoint)), publicKey, signature.subarray(4))).toBe(true);
    expect(note).toBe(`${origin}\n1010\n${checkpoint.rootHash.toString('base64')}\n\n\u2014 ${origin} ${signature.toString('base64')}\n`);
  });

  it('round trips, with the snapshot signing key as its record publishes it', () => {
    // The Signer keeps its private key to itself: the same PEM makes the KeyObject that signs checkpoints.
    const pem = newSigningKeyPem();
    const signer = new Signer(createPrivateKey(pem));
    const published = parseSigningKeyRecord(signer.keyId, Buffer.from(JSON.stringify(signer.record(new Date('2026-11-26T10:00:00Z')))));
    if (typeof published === 'string') throw new Error(published);
    const note = signCheckpoint(checkpoint, createPrivateKey(pem));
    expect(verifyCheckpoint(note, { origin, publicKeys: [published.publicKey] })).toEqual(checkpoint);
    // After a rotation the verifier holds every key that ever signed: the old one still verifies its checkpoints.
    expect(verifyCheckpoint(Buffer.from(note), { origin, publicKeys: [publicKey, published.publicKey] })).toEqual(checkpoint);
    expect(verifyCheckpoint(signCheckpoint({ ...checkpoint, size: 0 }, privateKey), trust)).toMatchObject({ size: 0 });
  });

  it('is refused under a wrong key, another origin or another key name', () => {
    const note = signCheckpoint(checkpoint, privateKey);
    expect(verifyCheckpoint(note, { origin, publicKeys: [generateKeyPairSync('ed25519').publicKey] })).toMatch(/no signature by a trusted key/);
    expect(verifyCheckpoint(note, { origin, publicKeys: [] })).toMatch(/no signature by a trusted key/);
    expect(verifyCheckpoint(note, { origin: 'other.example/publication-log', publicKeys: [publicKey] })).toMatch(/no signature by a trusted key/);
    expect(verifyCheckpoint(note, { ...trust, keyName: 'other.example' })).toMatch(/no signature by a trusted key/);
    // Signed under another name by the right key: the origin still has to be the one expected.
    const other = signCheckpoint({ ...checkpoint, origin: 'other.example/publication-log' }, privateKey, origin);
    expect(verifyCheckpoint(other, trust)).toMatch(/is of "other.example\/publication-log"/);
  });

  it('is refused with its size or root edited', () => {
    const note = signCheckpoint(checkpoint, privateKey);
    const otherRoot = leafHash(Buffer.from('c')).toString('base64');
    for (const edited of [note.replace('\n1010\n', '\n1011\n'), note.replace('\n1010\n', '\n101\n'), note.replace(checkpoint.rootHash.toString('base64'), otherRoot)]) {
      expect(edited).not.toBe(note);
      expect(verifyCheckpoint(edited, trust)).toMatch(/does not verify/);
    }
    // A size with a leading zero or a root that is not 32 bytes is no checkpoint, signed or not.
    expect(verifyCheckpoint(signNote(`${origin}\n01010\n${checkpoint.rootHash.toString('base64')}\n`, origin, privateKey), trust)).toMatch(/not a tree size/);
    expect(verifyCheckpoint(signNote(`${origin}\n1010\n${Buffer.alloc(31).toString('base64')}\n`, origin, privateKey), trust)).toMatch(/not a base64 root hash/);
  });

  it('keeps one failing known signature from hiding behind a good one, and ignores unknown ones', () => {
    const note = signCheckpoint(checkpoint, privateKey);
    const other = generateKeyPairSync('ed25519').privateKey;
    const otherLine = signCheckpoint(checkpoint, other).split('\n\n')[1]!;
    const cosigned = `${note}${otherLine}`;
    expect(verifyCheckpoint(cosigned, trust)).toEqual(checkpoint);
    const forged = `${note}\u2014 ${origin} ${Buffer.concat([noteKeyId(origin, publicKey), Buffer.alloc(64)]).toString('base64')}\n`;
    expect(verifyCheckpoint(forged, trust)).toMatch(/does not verify/);
  });

  it('refuses what is not a signed note', () => {
    const note = signCheckpoint(checkpoint, privateKey);
    expect(parseSignedNote(note.replace('\n\n', '\n'))).toMatch(/no blank line/);
    expect(parseSignedNote(note.slice(0, -1))).toMatch(/does not end in a newline/);
    expect(parseSignedNote(note.replace('\u2014', '-'))).toMatch(/not a signature line/);
    expect(parseSignedNote(`${note.slice(0, 5)}\t${note.slice(5)}`)).toMatch(/control character/);
    expect(parseSignedNote(Buffer.concat([Buffer.from(note), Buffer.from([0xff])]))).toBe('not UTF-8');
    expect(parseCheckpointText('a\n1\n')).toBe('fewer than three lines');
    expect(parseCheckpointText(`a\n1\n${checkpoint.rootHash.toString('base64')}\next\n`)).toMatchObject({ extensions: ['ext'] });
  });

  it('has an origin naming the store, or none at all', () => {
    expect(publicationLogOrigin('s3://events-snapshots/prod')).toBe('events-snapshots/prod/publication-log');
    expect(publicationLogOrigin('marquee.example.org')).toBe('marquee.example.org/publication-log');
    expect(() => publicationLogOrigin('https://')).toThrow(RangeError);
    expect(() => publicationLogOrigin('/srv/my snapshots')).toThrow(RangeError);
    expect(() => publicationLogOrigin('a+b')).toThrow(RangeError);
  });
});
