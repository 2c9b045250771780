// A key store in this process's memory: for tests and embedding, where no other process shares
// the keys. Passes the same contract as the file and Redis stores (test/contracts/key-store.ts).
import type { Awaitable } from '../../runtime/awaitable.ts';
import { changedRecord, revokedState, type KeyChanges, type KeyRecord, type KeyStore, mintKey, type NewKey } from './key-store.ts';

export class InMemoryKeyStore implements KeyStore {
  private readonly records = new Map<string, KeyRecord>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  /** Synchronous; typed Awaitable so that a test's store may answer later. */
  findBySecretHash(secretHash: string): Awaitable<KeyRecord | undefined> {
    for (const record of this.records.values()) if (record.secretHash === secretHash) return { ...record };
    return undefined;
  }

  async findById(id: string): Promise<KeyRecord | undefined> {
    const record = this.records.get(id);
    return record && { ...record };
  }

  async create(key: NewKey): Promise<{ record: KeyRecord; secret: string }> {
    const { record, secret } = mintKey(key, this.now());
    this.records.set(record.id, record);
    return { record: { ...record }, secret };
  }

  async update(id: string, changes: KeyChanges): Promise<KeyRecord | undefined> {
    const record = this.records.get(id);
    if (record === undefined) return undefined;
    const changed = changedRecord(record, changes);
    this.records.set(id, changed);
    return { ...changed };
  }

  revoke(id: string, at: Date): Promise<boolean> {
    return this.applyRevocation(id, at, false);
  }

  scheduleRevocation(id: string, at: Date): Promise<boolean> {
    return this.applyRevocation(id, at, true);
  }

  private async applyRevocation(id: string, at: Date, scheduled: boolean): Promise<boolean> {
    const record = this.records.get(id);
    if (record === undefined) return false;
    this.records.set(id, { ...record, ...revokedState(record, at.toISOString(), scheduled) });
    return true;
  }

  async recordUse(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    for (const [id, at] of lastUsed) {
      const record = this.records.get(id);
      const iso = at.toISOString();
      if (record !== undefined && (record.lastUsedAt === null || record.lastUsedAt < iso)) this.records.set(id, { ...record, lastUsedAt: iso });
    }
  }

  async list(organizationId?: string): Promise<KeyRecord[]> {
    return [...this.records.values()].filter((record) => organizationId === undefined || record.organizationId === organizationId).map((record) => ({ ...record }));
  }
}
