// The snapshot chains the pin checker judges by (invariants.ts checkPinWindow), read straight from
// the store once every fault has healed: from each organization's pointer back along
// previousSnapshotId, the way a gateway walks to find when a pinned snapshot stopped being current
// (gateway/snapshot-cache/pinned-snapshots.ts). Only the chain, never the store's listing: a manifest
// left by a publish that lost the pointer names the same predecessor as the real successor.
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3RVER_CREDENTIALS } from '../../test/support/s3.ts';
import { PREFIX } from '../soak/world.ts';
import type { SnapshotRecord } from './history.ts';
import type { ChaosWorld } from './world.ts';

/** Snapshots published this long before the campaign's clock began are older than any pin it sent could need. */
const BEFORE_START_MS = 60_000;
const MAX_STEPS = 2_000;

export async function readChains(world: ChaosWorld, organizationIds: readonly string[]): Promise<SnapshotRecord[]> {
  const store = new S3Client({ endpoint: world.bucket.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
  // The builders stamp publishedAt with this machine's wall clock: its instant on the campaign's clock.
  const offset = Date.now() - performance.now();
  const read = async (key: string) => {
    const object = await store.send(new GetObjectCommand({ Bucket: world.bucket.bucket, Key: `${PREFIX}/${key}` }), { abortSignal: AbortSignal.timeout(10_000) });
    return JSON.parse(await object.Body!.transformToString()) as Record<string, unknown>;
  };
  try {
    const chains = await Promise.all(
      organizationIds.map(async (organizationId) => {
        const records: SnapshotRecord[] = [];
        let snapshotId = (await read(`orgs/${organizationId}/current.json`)).snapshotId as string | null;
        for (let step = 0; snapshotId !== null && step < MAX_STEPS; step++) {
          const manifest = await read(`orgs/${organizationId}/snapshots/${snapshotId}.json`);
          const publishedAt = Date.parse(manifest.publishedAt as string) - offset;
          records.push({ organizationId, snapshotId, previousSnapshotId: manifest.previousSnapshotId as string | null, publishedAt });
          if (publishedAt < -BEFORE_START_MS) break;
          snapshotId = manifest.previousSnapshotId as string | null;
        }
        return records.reverse();
      }),
    );
    return chains.flat();
  } finally {
    store.destroy();
  }
}
