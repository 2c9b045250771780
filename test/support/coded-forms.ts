// What a publish leaves of its objects' coded forms (snapshot/codings.ts, snapshot/layout.ts
// codedObjectKey), checked the way a gateway reads them: for every object the current manifest
// names, each coding asked for is stored beside the JSON when the JSON is worth coding and decodes
// to the JSON's bytes, and no other coded form is there.
import { expect } from 'vitest';
import { CODINGS, type Coding, decode, STORED_CODINGS, worthCoding } from '../../snapshot/codings.ts';
import { codedObjectKey, objectKey } from '../../snapshot/layout.ts';
import { readManifest, readPointer } from '../../snapshot/reader.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';

/** Checks the current snapshot's coded forms against `codings` (default: what a build stores unless told, gzip); returns how many of its objects have them (a test that sees none proves nothing). */
export async function expectCodedForms(store: SnapshotStore, orgId: string, codings: readonly Coding[] = STORED_CODINGS): Promise<number> {
  const pointer = await readPointer(store, orgId);
  const manifest = await readManifest(store, orgId, pointer!.snapshotId!, pointer!.manifestHash!);
  let coded = 0;
  for (const hash of new Set(Object.values(manifest!.resources))) {
    const json = (await store.get(objectKey(orgId, hash)))!;
    const expected = worthCoding(json.length) ? codings : [];
    if (expected.length > 0) coded++;
    for (const coding of CODINGS) {
      const bytes = await store.get(codedObjectKey(orgId, hash, coding));
      if (!expected.includes(coding)) {
        expect(bytes, `${coding} form of ${hash} (${json.length} bytes)`).toBeUndefined();
        continue;
      }
      expect(bytes, `${coding} form of ${hash} (${json.length} bytes)`).toBeDefined();
      expect(bytes!.length, `${coding} form of ${hash}`).toBeLessThan(json.length);
      expect(decode(coding, bytes!).equals(json), `${coding} form of ${hash} decodes to its JSON`).toBe(true);
    }
  }
  return coded;
}

/** Resources of which some are well over the size worth coding (a speaker list) and some below it. */
export function resourcesWithLargeOnes(orgId: string, name: string): Array<{ path: string; value: unknown }> {
  return [
    { path: '/organization', value: { id: orgId, name } },
    { path: '/team', value: [] },
    {
      path: '/speakers',
      value: Array.from({ length: 30 }, (_, i) => ({ id: `speaker-${i}`, name: `${name} speaker ${i}`, bio: `Speaks about the ${i}th topic of ${name}, at length.` })),
    },
  ];
}
