// Signed history (docs/design.md "History as evidence"): each manifest and state record is signed
// with Ed25519 by the builders' signing key, and the public half of every key that ever signed is
// published in the store, one immutable record per key, so that anyone holding a copy of the store
// can check a signature without Marquee's code. Rotation adds a record and removes none: old
// signatures keep verifying.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { contentObject, sha256Hex } from './hash.ts';

/** Where the public keys are published: `signing-keys/{keyId}.json`, written once, never replaced. */
export const SIGNING_KEYS_PREFIX = 'signing-keys/';
export const signingKeyRecordKey = (keyId: string): string => `${SIGNING_KEYS_PREFIX}${keyId}.json`;

/** A signature as a signed document carries it. */
export interface Signature {
  /** The first 16 hex digits of the SHA-256 of the public key's SPKI DER bytes. */
  keyId: string;
  /** base64 of the 64 signature bytes. */
  value: string;
}

/** What the store says of one public key. */
export interface SigningKeyRecord {
  format: 1;
  keyId: string;
  algorithm: 'Ed25519';
  /** The public key, SPKI PEM. */
  publicKey: string;
  /** When the key was first published: it signs nothing published before. */
  validFrom: string;
}

/**
 * The bytes a signature covers: the document's canonical RFC 8785 form without its `signature`
 * member. Any RFC 8785 implementation reproduces them from the stored JSON.
 */
function signedBytes(document: object): Buffer {
  const { signature: _signature, ...rest } = document as { signature?: unknown };
  return contentObject(rest).bytes;
}

export class Signer {
  readonly keyId: string;
  readonly publicKeyPem: string;
  readonly publicKey: KeyObject;
  constructor(private readonly privateKey: KeyObject) {
    this.publicKey = createPublicKey(privateKey);
    this.keyId = keyIdOf(this.publicKey);
    this.publicKeyPem = this.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  }

  /**
   * The Ed25519 signature of a signed note's text (c2sp.org/signed-note: the publication log's
   * checkpoints, records/publication-log/checkpoint-store.ts), so the log is vouched for by the key
   * that signs history. Only a note's text: it ends in a newline and does not begin with "{", so it
   * can never be the canonical JSON of a document this key signs (signedBytes), nor the reverse.
   */
  signNoteText(text: string): Buffer {
    if (!text.endsWith('\n') || text.startsWith('{')) throw new RangeError('a note text ends in a newline and does not begin with "{"');
    return sign(null, Buffer.from(text, 'utf8'), this.privateKey);
  }

  /** `document` with its signature (any signature it had is replaced). */
  sign<T extends object>(document: T): T & { signature: Signature } {
    const value = sign(null, signedBytes(document), this.privateKey).toString('base64');
    return { ...document, signature: { keyId: this.keyId, value } };
  }

  record(validFrom: Date): SigningKeyRecord {
    return { format: 1, keyId: this.keyId, algorithm: 'Ed25519', publicKey: this.publicKeyPem, validFrom: validFrom.toISOString() };
  }
}

/** A signer from a PKCS#8 PEM file's text; `where` names the file in the message when it is not an Ed25519 private key. */
export function signerFromPem(pem: string, where: string): Signer {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (error) {
    throw new Error(`${where} does not hold a PEM private key (make one with: marquee signing-key create FILE)`, { cause: error });
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`${where} holds a ${key.asymmetricKeyType ?? 'secret'} key, not Ed25519 (make one with: marquee signing-key create FILE)`);
  return new Signer(key);
}

/** A new Ed25519 private key as PKCS#8 PEM. */
export function newSigningKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

function keyIdOf(publicKey: KeyObject): string {
  return sha256Hex(publicKey.export({ type: 'spki', format: 'der' })).slice(0, 16);
}

/** The record's bytes checked; a string saying what is wrong otherwise. */
export function parseSigningKeyRecord(keyId: string, bytes: Uint8Array): { record: SigningKeyRecord; publicKey: KeyObject } | string {
  let record: Partial<SigningKeyRecord>;
  let publicKey: KeyObject;
  try {
    record = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<SigningKeyRecord>;
    publicKey = createPublicKey(String(record.publicKey));
  } catch {
    return 'not a key record';
  }
  if (record.algorithm !== 'Ed25519' || publicKey.asymmetricKeyType !== 'ed25519') return 'not an Ed25519 key';
  // The name vouches for the key: a record whose key does not hash to its id was replaced.
  if (record.keyId !== keyId || keyIdOf(publicKey) !== keyId) return 'its public key does not match its id';
  return { record: record as SigningKeyRecord, publicKey };
}

export function signatureHolds(document: object, signature: Signature, publicKey: KeyObject): boolean {
  try {
    return verify(null, signedBytes(document), publicKey, Buffer.from(signature.value, 'base64'));
  } catch {
    return false;
  }
}
