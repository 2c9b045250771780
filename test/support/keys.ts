// Keys for tests: a throwaway file-backed store, and an in-memory store that counts lookups
// (to prove that malformed keys never reach a store).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileKeyStore } from '../../records/keys/file-store.ts';
import type { KeyRecord, KeyStore, NewKey } from '../../records/keys/key-store.ts';
import { InMemoryKeyStore } from '../../records/keys/memory-store.ts';

export interface TemporaryKeyFile {
  dir: string;
  path: string;
  /** A store on the file; call again for another "process" on the same file. */
  open(): FileKeyStore;
  remove(): Promise<void>;
}

export async function temporaryKeyFile(): Promise<TemporaryKeyFile> {
  const dir = await mkdtemp(join(tmpdir(), 'marquee-keys-'));
  const path = join(dir, 'keys.json');
  return {
    dir,
    path,
    open: () => new FileKeyStore(path),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A key and its secret, created through the store like `keys create` would. */
export async function issueKey(store: KeyStore, key: Partial<NewKey> & { organizationId: string }): Promise<{ record: KeyRecord; secret: string }> {
  return store.create({ label: null, origins: [], ...key });
}

/** An in-memory KeyStore that counts `findBySecretHash` calls, and answers them asynchronously. */
export class CountingKeyStore extends InMemoryKeyStore {
  lookups = 0;

  override async findBySecretHash(secretHash: string): Promise<KeyRecord | undefined> {
    this.lookups += 1;
    return super.findBySecretHash(secretHash);
  }
}
