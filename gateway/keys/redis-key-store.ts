// The key store in Redis (docs/design.md "Keys", "Production shape"), shared by every gateway and
// written by `keys create|revoke` on any machine. Only the SHA-256 of a secret is stored.
//
// Layout, below a namespace (default `marquee:`):
//   key:{<secretHash>}      hash: the record's fields (label and revokedAt absent while null; origins as JSON)
//   key-ids                 hash: key id → secret hash, for `keys revoke` and `keys list`
//   organization-keys:<id>  set: the secret hashes of one organization's keys, so listing one is cheap
// The braces make the secret hash the record's Redis Cluster hash tag: the key verdicts' script
// (access/redis-key-verdicts.ts) touches the record and the key's rate bucket, tagged the same.
// Records are never deleted, so a revocation (HSETNX: the first time is kept) cannot race a removal.
import type { Redis } from 'ioredis';
import { type KeyRecord, type KeyStore, mintKey, type NewKey } from './key-store.ts';

/** The record's fields, in the order an HMGET of them answers; the key verdicts' script reads the same. */
export const RECORD_FIELDS = ['id', 'organizationId', 'label', 'origins', 'createdAt', 'revokedAt'] as const;

/** An HMGET of RECORD_FIELDS as a record; undefined when the hash does not exist. */
export function recordOf(values: ReadonlyArray<string | null>, secretHash: string): KeyRecord | undefined {
  const [id, organizationId, label, origins, createdAt, revokedAt] = values;
  if (id == null) return undefined;
  if (organizationId == null || origins == null || createdAt == null) throw new Error(`key store: the record of key ${id} is incomplete`);
  return { id, organizationId, label: label ?? null, origins: JSON.parse(origins) as string[], createdAt, revokedAt: revokedAt ?? null, secretHash };
}

/** The Redis key of a record. */
export function recordKey(namespace: string, secretHash: string): string {
  return `${namespace}key:{${secretHash}}`;
}

export interface RedisKeyStoreOptions {
  /** Prefix of every Redis key the store reads and writes; default `marquee:`. */
  namespace?: string;
  now?: () => Date;
}

export class RedisKeyStore implements KeyStore {
  private readonly namespace: string;
  private readonly now: () => Date;

  constructor(
    private readonly redis: Redis,
    options: RedisKeyStoreOptions = {},
  ) {
    this.namespace = options.namespace ?? 'marquee:';
    this.now = options.now ?? (() => new Date());
  }

  async findBySecretHash(secretHash: string): Promise<KeyRecord | undefined> {
    return recordOf(await this.redis.hmget(recordKey(this.namespace, secretHash), ...RECORD_FIELDS), secretHash);
  }

  async create(key: NewKey): Promise<{ record: KeyRecord; secret: string }> {
    const { record, secret } = mintKey(key, this.now());
    const fields: Record<string, string> = { id: record.id, organizationId: record.organizationId, origins: JSON.stringify(record.origins), createdAt: record.createdAt };
    if (record.label !== null) fields.label = record.label;
    // One transaction: the record and both indexes appear together or not at all.
    const results = await this.redis
      .multi()
      .hset(recordKey(this.namespace, record.secretHash), fields)
      .hset(this.idsKey(), record.id, record.secretHash)
      .sadd(this.organizationKey(record.organizationId), record.secretHash)
      .exec();
    const failed = results?.find(([error]) => error !== null)?.[0];
    if (results === null || failed) throw new Error('key store: creating a key failed', { cause: failed ?? undefined });
    return { record, secret };
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    const secretHash = await this.redis.hget(this.idsKey(), id);
    if (secretHash === null) return false;
    // Set only when absent: revoking again keeps the first time.
    await this.redis.hsetnx(recordKey(this.namespace, secretHash), 'revokedAt', at.toISOString());
    return true;
  }

  async list(organizationId?: string): Promise<KeyRecord[]> {
    const hashes = organizationId === undefined ? await this.redis.hvals(this.idsKey()) : await this.redis.smembers(this.organizationKey(organizationId));
    const records = await Promise.all(hashes.map((secretHash) => this.findBySecretHash(secretHash)));
    return records.filter((record) => record !== undefined);
  }

  private idsKey(): string {
    return `${this.namespace}key-ids`;
  }

  private organizationKey(organizationId: string): string {
    return `${this.namespace}organization-keys:${organizationId}`;
  }
}
