// The SnapshotStore contract (test/contracts/snapshot-store.ts) against the in-memory store.
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { snapshotStoreContract } from '../../contracts/snapshot-store.ts';

snapshotStoreContract('MemoryStore', {
  setup: () => ({ store: new MemoryStore() }),
});
