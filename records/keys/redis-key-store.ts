// The key store in Redis (docs/design.md "Keys", "Production shape"), shared by every gateway and
// written by `keys create|update|roll|revoke` on any machine. Only the SHA-256 of a secret is stored.
//
// Layout, below a namespace (default `marquee:`):
//   key:{<secretHash>}      hash: the record's fields (those that are null absent; origins as JSON)
//   key-ids                 hash: key id → secret hash, for `keys revoke` and `keys list`
//   organization-keys:<id>  set: the secret hashes of one organization's keys, so listing one is cheap
//   key-uses                hash: key id → latest use reported by gateways and not yet copied into
//                           the durable record (records/keys/key-keeper.ts takes them)
//   keys-synced             string: the durable store's change number up to which every record is
//                           here, or `reloading:<token>` while a keeper refills (absent: never
//                           filled, or the data was lost). A number is also the copy's mark of
//                           completeness: gateways answer a key missing beside it 401, and one
//                           missing without it 503 (access/redis-key-verdicts.ts)
// With a durable store (records/keys/postgres-key-store.ts) this is the gateways' copy of it: `put`
// writes a whole record there, and a record also keeps the durable `change` it was copied at, so
// copies that arrive out of order never put an older state over a newer one.
// The braces make the secret hash the record's Redis Cluster hash tag, which the key's rate bucket
// shares; the key verdicts' batch script (gateway/access/verdict-batch.ts) touches many keys' of
// both and the marker at once, on one Redis (not Redis Cluster).
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

/** A record's stored fields: those that are null absent, origins as JSON, revocationScheduled as '1' when true. */
function fieldsOf(record: KeyRecord): Record<string, string> {
  const fields: Record<string, string> = { id: record.id, organizationId: record.organizationId, origins: JSON.stringify(record.origins), createdAt: record.createdAt };
  if (record.label !== null) fields.label = record.label;
  if (record.expiresAt !== null) fields.expiresAt = record.expiresAt;
  if (record.revokedAt !== null) fields.revokedAt = record.revokedAt;
  if (record.revocationScheduled) fields.revocationScheduled = '1';
  if (record.prefix !== null) fields.prefix = record.prefix;
  if (record.lastUsedAt !== null) fields.lastUsedAt = record.lastUsedAt;
  return fields;
}

/** The Redis key of a record. */
export function recordKey(namespace: string, secretHash: string): string {
  return `${namespace}key:{${secretHash}}`;
}

/**
 * The Redis key of the `keys-synced` marker: a change number once a keeper has filled the copy
 * whole, and the gateways' mark that the copy is complete (access/redis-key-verdicts.ts); gone
 * with the data whenever Redis loses it.
 */
export function syncedKey(namespace: string): string {
  return `${namespace}keys-synced`;
}

/** What the marker holds while a keeper refills the copy: not complete yet. */
export const RELOADING = 'reloading:';

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

// KEYS: the record; ARGV: the durable change number, the record's fields as a JSON object (those
// that are null absent). Replaces the record unless it was copied at this change or a later one;
// keeps the later of the two last uses (gateways write theirs here first). Answers 1 when written.
const PUT_LUA = `
local stored = redis.call('HGET', KEYS[1], 'change')
if stored and tonumber(stored) >= tonumber(ARGV[1]) then return 0 end
local lastUsed = redis.call('HGET', KEYS[1], 'lastUsedAt')
local fields = cjson.decode(ARGV[2])
redis.call('DEL', KEYS[1])
for name, value in pairs(fields) do redis.call('HSET', KEYS[1], name, value) end
if lastUsed and (not fields.lastUsedAt or lastUsed > fields.lastUsedAt) then redis.call('HSET', KEYS[1], 'lastUsedAt', lastUsed) end
redis.call('HSET', KEYS[1], 'change', ARGV[1])
return 1`;

// KEYS: key-uses; ARGV: key id, ISO instant, … Keeps the later instant per key id.
const NOTE_USES_LUA = `
for i = 1, #ARGV, 2 do
  local current = redis.call('HGET', KEYS[1], ARGV[i])
  if not current or ARGV[i + 1] > current then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1`;

// KEYS: key-uses. Empties it and answers what it held, in one step: a use noted meanwhile stays for the next take.
const TAKE_USES_LUA = `
local uses = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
return uses`;

// KEYS: keys-synced; ARGV: change, and the reload's token or ''. With a token: sets the change only
// if that reload still holds the marker (a marker gone meanwhile means the data went with it).
// Without: raises a numeric marker, never lowers it, and never sets one that is absent or reloading.
const SYNCED_LUA = `
local current = redis.call('GET', KEYS[1])
if ARGV[2] ~= '' then
  if current ~= 'reloading:' .. ARGV[2] then return 0 end
  redis.call('SET', KEYS[1], ARGV[1])
  return 1
end
local number = current and tonumber(current)
if not number or number >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

// KEYS: keys-synced; ARGV: the reload's token, and seconds (0: give the claim back). Touches the
// marker only while that reload holds it: 1 then, 0 once it went (with the data) or lapsed.
const RELOAD_CLAIM_LUA = `
if redis.call('GET', KEYS[1]) ~= 'reloading:' .. ARGV[1] then return 0 end
if ARGV[2] == '0' then redis.call('DEL', KEYS[1]) else redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 1`;

interface StoreCommands {
  marqueeKeyRevoke(record: string, at: string, kind: 'outright' | 'scheduled'): Promise<number>;
  marqueeKeyLastUsed(record: string, at: string): Promise<number>;
  marqueeKeyUpdate(record: string, origins: string, labelChange: 'set' | 'clear' | 'keep', label: string): Promise<number>;
  marqueeKeyPut(record: string, change: number, fields: string): Promise<number>;
  marqueeKeyNoteUses(uses: string, ...pairs: string[]): Promise<number>;
  marqueeKeyTakeUses(uses: string): Promise<string[]>;
  marqueeKeySynced(marker: string, change: number, token: string): Promise<number>;
  marqueeKeyReloadClaim(marker: string, token: string, seconds: number): Promise<number>;
}

/** How far the Redis copy is known to follow the durable store (the `keys-synced` marker). */
export type SyncState = { state: 'synced'; change: number } | { state: 'reloading' } | { state: 'empty' };

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
      redis.defineCommand('marqueeKeyPut', { numberOfKeys: 1, lua: PUT_LUA });
      redis.defineCommand('marqueeKeyNoteUses', { numberOfKeys: 1, lua: NOTE_USES_LUA });
      redis.defineCommand('marqueeKeyTakeUses', { numberOfKeys: 1, lua: TAKE_USES_LUA });
      redis.defineCommand('marqueeKeySynced', { numberOfKeys: 1, lua: SYNCED_LUA });
      redis.defineCommand('marqueeKeyReloadClaim', { numberOfKeys: 1, lua: RELOAD_CLAIM_LUA });
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
    // One transaction: the record and both indexes appear together or not at all.
    await this.transaction('creating a key', (multi) => multi.hset(recordKey(this.namespace, record.secretHash), fieldsOf(record)), record);
    return { record, secret };
  }

  /**
   * Writes the durable store's record as it is at `change` (records/keys/postgres-key-store.ts):
   * every field, the indexes, and the later of both last uses. False, changing nothing, when the
   * copy here is from that change or a later one.
   */
  async put(record: KeyRecord, change: number): Promise<boolean> {
    const reply = await this.transaction(
      'copying a key',
      (multi) => multi.marqueeKeyPut(recordKey(this.namespace, record.secretHash), change, JSON.stringify(fieldsOf(record))),
      record,
    );
    return reply === 1;
  }

  /** How far this copy follows the durable store. */
  async syncState(): Promise<SyncState> {
    const marker = await this.redis.get(this.syncedKey());
    if (marker === null) return { state: 'empty' };
    if (marker.startsWith(RELOADING)) return { state: 'reloading' };
    return { state: 'synced', change: Number(marker) };
  }

  /**
   * Claims the refill of an empty copy for `token`, for at most `seconds` (a keeper that dies
   * mid-way lets another start over); false when another keeper holds it or the copy is not empty.
   */
  async beginReload(token: string, seconds: number): Promise<boolean> {
    return (await this.redis.set(this.syncedKey(), `${RELOADING}${token}`, 'EX', seconds, 'NX')) === 'OK';
  }

  /** Holds the refill `token` claimed for `seconds` more; false when the marker went (with the data) or the claim lapsed. */
  async renewReload(token: string, seconds: number): Promise<boolean> {
    return (await this.redis.marqueeKeyReloadClaim(this.syncedKey(), token, seconds)) === 1;
  }

  /** Gives back the refill `token` claimed, unfinished, so that the next sync of any keeper starts it over at once. */
  async abandonReload(token: string): Promise<void> {
    await this.redis.marqueeKeyReloadClaim(this.syncedKey(), token, 0);
  }

  /** Ends the refill `token` holds at `change`; false when the marker went meanwhile (the data went with it: refill again). */
  async finishReload(token: string, change: number): Promise<boolean> {
    return (await this.redis.marqueeKeySynced(this.syncedKey(), change, token)) === 1;
  }

  /** Records that every change up to `change` is here; never lowers the marker, never sets an absent one. */
  async advanceSynced(change: number): Promise<void> {
    await this.redis.marqueeKeySynced(this.syncedKey(), change, '');
  }

  /** Redis's `maxmemory-policy`, as INFO says it (managed Redis often refuses CONFIG); undefined when it does not. */
  async evictionPolicy(): Promise<string | undefined> {
    return /^maxmemory_policy:(\S+)/m.exec(await this.redis.info('memory'))?.[1];
  }

  /** Takes the last uses gateways reported since the last take (key id → instant). */
  async takeUses(): Promise<Map<string, string>> {
    const flat = await this.redis.marqueeKeyTakeUses(this.usesKey());
    const uses = new Map<string, string>();
    for (let i = 0; i + 1 < flat.length; i += 2) uses.set(flat[i]!, flat[i + 1]!);
    return uses;
  }

  /** Gives back uses taken and not recorded, keeping any later one noted meanwhile. */
  async returnUses(uses: ReadonlyMap<string, string>): Promise<void> {
    if (uses.size > 0) await this.redis.marqueeKeyNoteUses(this.usesKey(), ...[...uses].flat());
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
    const known = ids.flatMap((id, i) => (hashes[i] == null ? [] : [[id, hashes[i], lastUsed.get(id)!.toISOString()] as const]));
    if (known.length === 0) return;
    // Auto-pipelined when the connection has it: one round trip for a gateway's whole report. The
    // uses are also noted for the durable store's keeper, which copies them there.
    await Promise.all([
      ...known.map(([, secretHash, at]) => this.redis.marqueeKeyLastUsed(recordKey(this.namespace, secretHash), at)),
      this.redis.marqueeKeyNoteUses(this.usesKey(), ...known.flatMap(([id, , at]) => [id, at])),
    ]);
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

  /** The record written by `write`, with both indexes, in one transaction; answers the write's reply. */
  private async transaction(what: string, write: (multi: ReturnType<Redis['multi']> & StoreCommands) => unknown, record: KeyRecord): Promise<unknown> {
    const multi = this.redis.multi() as ReturnType<Redis['multi']> & StoreCommands;
    write(multi);
    multi.hset(this.idsKey(), record.id, record.secretHash).sadd(this.organizationKey(record.organizationId), record.secretHash);
    const results = await multi.exec();
    const failed = results?.find(([error]) => error !== null)?.[0];
    if (results === null || failed) throw new Error(`key store: ${what} failed`, { cause: failed ?? undefined });
    return results[0]![1];
  }

  private usesKey(): string {
    return `${this.namespace}key-uses`;
  }

  private syncedKey(): string {
    return syncedKey(this.namespace);
  }

  private idsKey(): string {
    return `${this.namespace}key-ids`;
  }

  private organizationKey(organizationId: string): string {
    return `${this.namespace}organization-keys:${organizationId}`;
  }
}
