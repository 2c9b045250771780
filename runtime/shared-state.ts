// Where the state that several Marquee processes share lives, as every seam with more than one
// backend is told it: Redis when REDIS_URL is set (the gateways' copy of the keys, whose durable
// record is then in the platform database; rate-limit counts, the publish channel, build locks;
// shared by every gateway and builder), otherwise this machine — files under
// MARQUEE_HOME and each process's own memory. Each seam chooses its backend from this in one
// place of its own (snapshot/publish-channel-backends.ts, builder/fleet-backends.ts,
// gateway/access/access-backends.ts, records/keys/key-backends.ts; the snapshot store has
// SNAPSHOT_STORE and snapshot/stores/store-backends.ts).
import { mkdir } from 'node:fs/promises';
import { describeError, OperatorError } from './errors.ts';
export interface SharedState {
  /** REDIS_URL; undefined: embedded. */
  readonly redisUrl: string | undefined;
  /** MARQUEE_HOME, absolute: where embedded state is kept. */
  readonly home: string;
}

/**
 * Creates MARQUEE_HOME when missing, owner-only whatever the umask (its contents are no other
 * account's: docs/reliability.md "What an attacker on the machine can do"); one that cannot be is
 * named at once.
 */
export async function ensureHome(home: string): Promise<void> {
  try {
    await mkdir(home, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new OperatorError(`MARQUEE_HOME=${home} cannot be created: ${describeError(error)}`, { cause: error });
  }
}
