// Reads an organization's current snapshot the way a gateway would and checks that it is whole:
// the pointer names a manifest whose hash matches, and every object it names exists and matches.
import { readManifest, readObjectBytes, readPointer } from '../../snapshot/reader.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';

export async function readWholeSnapshot(store: SnapshotStore, orgId: string): Promise<{ snapshotId: string | null; resources: Record<string, unknown> }> {
  const pointer = await readPointer(store, orgId);
  if (!pointer) throw new Error(`organization ${orgId} has no pointer`);
  if (!pointer.snapshotId || !pointer.manifestHash) return { snapshotId: null, resources: {} };
  const manifest = await readManifest(store, orgId, pointer.snapshotId, pointer.manifestHash);
  if (!manifest) throw new Error(`pointer names missing manifest ${pointer.snapshotId}`);
  const resources: Record<string, unknown> = {};
  for (const [path, hash] of Object.entries(manifest.resources)) {
    const bytes = await readObjectBytes(store, orgId, hash);
    if (!bytes) throw new Error(`manifest ${manifest.snapshotId} names missing object ${hash} (${path})`);
    resources[path] = JSON.parse(bytes.toString('utf8'));
  }
  return { snapshotId: manifest.snapshotId, resources };
}
