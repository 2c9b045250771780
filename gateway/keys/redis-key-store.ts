// The key store in Redis (docs/design.md "Keys", "Production shape"), shared by every gateway and
// written by `keys create|update|roll|revoke` on any machine. Only the SHA-256 of a secret is stored.
//
// Layout, below a namespace (default `marquee:`):
//   key:{<secretHash>}      hash: the record's fields (those that are null absent; origins as JSON)
//   key-ids                 hash: key id → secret hash, for `keys revoke` and `keys list`
//   organization-keys:<id>  set: the secret hashes of one organization's keys, so listing one is cheap
// The braces make the secret hash the record's Redis Cluster hash tag: the key verdicts' script
// (access/redis-key-verdicts.ts) touches the record and the key's rate bucket, tagged the same.
// Records are never deleted, so a change (each a script that first checks the record exists)
// cannot race a removal. Instants are ISO texts as toISOString writes them, so they compare as
// text, in Lua too: a scheduled revocation keeps the earliest instant, a last use the latest.
import type { Redis } from 'ioredis';
import { type KeyChanges, type KeyRecord, type KeyStore, mintKey, type NewKey } from './key-store.ts';

/** The record's fields, in the order an HMGET of them answers; the key verdicts' script reads the same. */
export const RECORD_FIELDS = ['id', 'organizationId', 'label', 'origins', 'createdAt', 'revokedAt', 'revocationScheduled', 'expiresAt', 'prefix', 'lastUsedAt'] as const;

/** An HMGET of RECORD_FIELDS as a record; undefined when the hash does not exist. */
export function recordOf(values: ReadonlyArray<string | null>, secretHash: string): KeyRecord | undefined {
  const [id, organizationId, label, origins, createdAt, revokedAt, revocationScheduled, expiresAt, prefix, lastUsedAt] = values;
  if (id == null) return undefined;
  if (organizationId == null || origins == null || createdAt == null) throw new Error(`key store: the record of key ${id} is incomplete`);
  return {
    id,
    organizationId,
    label: label ?? null,
    origins: JSON.parse(origins) as string[],
    createdAt,
    expiresAt: expiresAt ?? null,
    revokedAt: revokedAt ?? null,
    revocationScheduled: revocationScheduled != null,
    prefix: prefix ?? null,
    lastUsedAt: lastUsedAt ?? null,
    secretHash,
  };
}

/** The Redis key of a record. */
export function recordKey(namespace: string, secretHash: string): string {
  return `${namespace}key:{${secretHash}}`;
}

// KEYS: the record; ARGV: ISO instant, 'outright' | 'scheduled'. key-store.ts's revokedState:
// an outright revocation is never changed; otherwise the earlier instant is kept, and an outright
// one replaces a scheduled one (revocationScheduled is present, as '1', only while scheduled).
// Answers 1 when the record exists.
const REVOKE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local current = redis.call('HGET', KEYS[1], 'revokedAt')
local scheduled = redis.call('HEXISTS', KEYS[1], 'revocationScheduled') == 1
if current and not scheduled then return 1 end
local at = ARGV[1]
if current and current < at then at = current end
redis.call('HSET', KEYS[1], 'revokedAt', at)
if ARGV[2] == 'scheduled' then redis.call('HSET', KEYS[1], 'revocationScheduled', '1') else redis.call('HDEL', KEYS[1], 'revocationScheduled') end
return 1`;

// KEYS: the record; ARGV: ISO instant. Keeps the later last use; nothing for a record that is gone.
const LAST_USED_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local current = redis.call('HGET', KEYS[1], 'lastUsedAt')
if not current or ARGV[1] > current then redis.call('HSET', KEYS[1], 'lastUsedAt', ARGV[1]) end
return 1`;

// KEYS: the record; ARGV: origins JSON or '', 'set' | 'clear' | 'keep' for the label, the label.
// Changes only an existing record: an update never creates a partial one.
const UPDATE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] ~= '' then redis.call('HSET', KEYS[1], 'origins', ARGV[1]) end
if ARGV[2] == 'set' then redis.call('HSET', KEYS[1], 'label', ARGV[3]) elseif ARGV[2] == 'clear' then redis.call('HDEL', KEYS[1], 'label') end
return 1`;

interface StoreCommands {
  marqueeKeyRevoke(record: string, at: string, kind: 'outright' | 'scheduled'): Promise<number>;
  marqueeKeyLastUsed(record: string, at: string): Promise<number>;
  marqueeKeyUpdate(record: string, origins: string, labelChange: 'set' | 'clear' | 'keep', label: string): Promise<number>;
}

export interface RedisKeyStoreOptions {
  /** Prefix of every Redis key the store reads and writes; default `marquee:`. */
  namespace?: string;
  now?: () => Date;
}

export class RedisKeyStore implements KeyStore {
  private readonly namespace: string;
  private readonly now: () => Date;
  private readonly redis: Redis & StoreCommands;

  constructor(redis: Redis, options: RedisKeyStoreOptions = {}) {
    this.namespace = options.namespace ?? 'marquee:';
    this.now = options.now ?? (() => new Date());
    if (!('marqueeKeyRevoke' in redis)) {
      redis.defineCommand('marqueeKeyRevoke', { numberOfKeys: 1, lua: REVOKE_LUA });
      redis.defineCommand('marqueeKeyLastUsed', { numberOfKeys: 1, lua: LAST_USED_LUA });
      redis.defineCommand('marqueeKeyUpdate', { numberOfKeys: 1, lua: UPDATE_LUA });
    }
    this.redis = redis as Redis & StoreCommands;
  }

  async findBySecretHash(secretHash: string): Promise<KeyRecord | undefined> {
    return recordOf(await this.redis.hmget(recordKey(this.namespace, secretHash), ...RECORD_FIELDS), secretHash);
  }

  async findById(id: string): Promise<KeyRecord | undefined> {
    const secretHash = await this.redis.hget(this.idsKey(), id);
    return secretHash === null ? undefined : this.findBySecretHash(secretHash);
  }

  async create(key: NewKey): Promise<{ record: KeyRecord; secret: string }> {
    const { record, secret } = mintKey(key, this.now());
    const fields: Record<string, string> = { id: record.id, organizationId: record.organizationId, origins: JSON.stringify(record.origins), createdAt: record.createdAt };
    if (record.label !== null) fields.label = record.label;
    if (record.expiresAt !== null) fields.expiresAt = record.expiresAt;
    if (record.prefix !== null) fields.prefix = record.prefix;
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

  async update(id: string, changes: KeyChanges): Promise<KeyRecord | undefined> {
    const secretHash = await this.redis.hget(this.idsKey(), id);
    if (secretHash === null) return undefined;
    const origins = changes.origins === undefined ? '' : JSON.stringify(changes.origins);
    const labelChange = changes.label === undefined ? 'keep' : changes.label === null ? 'clear' : 'set';
    if (!(await this.redis.marqueeKeyUpdate(recordKey(this.namespace, secretHash), origins, labelChange, changes.label ?? ''))) return undefined;
    return this.findBySecretHash(secretHash);
  }

  revoke(id: string, at: Date): Promise<boolean> {
    return this.applyRevocation(id, at, 'outright');
  }

  scheduleRevocation(id: string, at: Date): Promise<boolean> {
    return this.applyRevocation(id, at, 'scheduled');
  }

  async recordUse(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    if (lastUsed.size === 0) return;
    const ids = [...lastUsed.keys()];
    const hashes = await this.redis.hmget(this.idsKey(), ...ids);
    // Auto-pipelined when the connection has it: one round trip for a gateway's whole report.
    await Promise.all(
      ids.map((id, i) => {
        const secretHash = hashes[i];
        if (secretHash == null) return undefined;
        return this.redis.marqueeKeyLastUsed(recordKey(this.namespace, secretHash), lastUsed.get(id)!.toISOString());
      }),
    );
  }

  async list(organizationId?: string): Promise<KeyRecord[]> {
    const hashes = organizationId === undefined ? await this.redis.hvals(this.idsKey()) : await this.redis.smembers(this.organizationKey(organizationId));
    const records = await Promise.all(hashes.map((secretHash) => this.findBySecretHash(secretHash)));
    return records.filter((record) => record !== undefined);
  }

  private async applyRevocation(id: string, at: Date, kind: 'outright' | 'scheduled'): Promise<boolean> {
    const secretHash = await this.redis.hget(this.idsKey(), id);
    if (secretHash === null) return false;
    return (await this.redis.marqueeKeyRevoke(recordKey(this.namespace, secretHash), at.toISOString(), kind)) === 1;
  }

  private idsKey(): string {
    return `${this.namespace}key-ids`;
  }

  private organizationKey(organizationId: string): string {
    return `${this.namespace}organization-keys:${organizationId}`;
  }
}
