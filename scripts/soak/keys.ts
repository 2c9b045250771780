// The soak's keys: created through admin/keys/key-admin.ts on the store `marquee keys` writes (the
// database's record, copied to Redis: records/keys/key-backends.ts), a sample through the real CLI; spread evenly over the organizations, each remembered with its organization. Requests
// take the active keys in turn, so each key's share of the rate is even and can be kept under its
// 600 a minute (docs/api.md §8). During the run keys are created and revoked; a revoked key leaves
// the rotation before its revocation starts, and the instant its revocation returned is kept:
// from then on every answer to it must be 401.
import { createKey, noSlugs, revokeKey } from '../../admin/keys/key-admin.ts';
import type { KeyStore } from '../../records/keys/key-store.ts';
import type { CliRun } from '../../test/support/cli.ts';

export interface SoakKey {
  id: string;
  secret: string;
  organization: number;
  /** performance.now() when the revocation was asked for; requests sent before may be answered either way. */
  revokingSince?: number;
  /** performance.now() when the revocation returned: from then on, 401 only. */
  revokedAt?: number;
}

/** Keys created at once: enough to keep Redis busy without queueing thousands of transactions. */
const CREATE_CONCURRENCY = 200;

/** `count` keys, key i for organization i mod organizations, created `CREATE_CONCURRENCY` at a time. */
export async function createKeys(store: KeyStore, organizationIds: readonly string[], count: number): Promise<SoakKey[]> {
  const keys: SoakKey[] = [];
  for (let from = 0; from < count; from += CREATE_CONCURRENCY) {
    const batch = Array.from({ length: Math.min(CREATE_CONCURRENCY, count - from) }, (_, offset) => createOne(store, organizationIds, (from + offset) % organizationIds.length));
    keys.push(...(await Promise.all(batch)));
  }
  return keys;
}

export async function createOne(store: KeyStore, organizationIds: readonly string[], organization: number): Promise<SoakKey> {
  const created = await createKey(store, { organizationId: organizationIds[organization]!, origins: [], label: 'soak' });
  return { id: created.id, secret: created.key, organization };
}

/** A key made by `marquee keys create`, the operator's way: the CLI and the store must agree. */
export async function createWithCli(cli: (args: string[]) => Promise<CliRun>, organizationIds: readonly string[], organization: number): Promise<SoakKey> {
  const run = await cli(['keys', 'create', '--org', organizationIds[organization]!, '--label', 'soak (cli)', '--json']);
  if (run.code !== 0) throw new Error(`marquee keys create exited ${run.code}: ${run.stderr.trim()}`);
  const created = JSON.parse(run.stdout) as { id: string; key: string };
  return { id: created.id, secret: created.key, organization };
}

export async function revokeWithCli(cli: (args: string[]) => Promise<CliRun>, id: string): Promise<void> {
  const run = await cli(['keys', 'revoke', id]);
  if (run.code !== 0) throw new Error(`marquee keys revoke exited ${run.code}: ${run.stderr.trim()}`);
}

/** The active keys in a shuffled rotation, and the revoked ones. */
export class KeyRing {
  private readonly active: SoakKey[];
  private next = 0;
  readonly revoked: SoakKey[] = [];
  revocations = 0;
  creations = 0;

  constructor(keys: SoakKey[]) {
    this.active = shuffle([...keys]);
  }

  /** The next key in turn. */
  take(): SoakKey {
    this.next = (this.next + 1) % this.active.length;
    return this.active[this.next]!;
  }

  add(key: SoakKey): void {
    this.active.push(key);
    this.creations += 1;
  }

  /**
   * Takes a random active key out of the rotation, then revokes it with `revoke` (the store or the
   * CLI). Kept active and unrevoked when the revocation fails, so a failure never makes a valid
   * key look revoked.
   */
  async revokeOne(revoke: (id: string) => Promise<void>): Promise<SoakKey> {
    const at = Math.floor(Math.random() * this.active.length);
    const key = this.active[at]!;
    this.active[at] = this.active.at(-1)!;
    this.active.pop();
    key.revokingSince = performance.now();
    try {
      await revoke(key.id);
    } catch (error) {
      delete key.revokingSince;
      this.active.push(key);
      throw error;
    }
    key.revokedAt = performance.now();
    this.revoked.push(key);
    this.revocations += 1;
    return key;
  }
}

export const revokeInStore = (store: KeyStore) => async (id: string) => {
  await revokeKey(store, id, noSlugs);
};

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
