import { describe, expect, it } from 'vitest';
import { ObjectCache } from '../../../../gateway/snapshot-cache/object-cache.ts';
import { contentObject } from '../../../../snapshot/hash.ts';
import { objectKey } from '../../../../snapshot/layout.ts';
import { SnapshotIntegrityError } from '../../../../snapshot/reader.ts';
import { MemoryStore } from '../../../../snapshot/stores/memory.ts';

const ORG = '00000000-0000-4000-8000-000000000001';

describe('ObjectCache', () => {
  it('reads an object once and serves it from memory afterwards', async () => {
    const store = new MemoryStore();
    const object = contentObject({ hello: 'world' });
    await store.put(objectKey(ORG, object.hash), object.bytes);
    const cache = new ObjectCache(store, 1024);
    expect((await cache.representation(ORG, object.hash)).bytes.equals(object.bytes)).toBe(true);
    await store.delete(objectKey(ORG, object.hash));
    expect((await cache.representation(ORG, object.hash)).bytes.equals(object.bytes)).toBe(true);
  });

  it('refuses a missing or corrupt object', async () => {
    const store = new MemoryStore();
    const object = contentObject({ hello: 'world' });
    const cache = new ObjectCache(store, 1024);
    await expect(cache.representation(ORG, object.hash)).rejects.toThrow(SnapshotIntegrityError);
    await store.put(objectKey(ORG, object.hash), Buffer.from('{"hello":"mallory"}'));
    await expect(cache.representation(ORG, object.hash)).rejects.toThrow(SnapshotIntegrityError);
  });
});
