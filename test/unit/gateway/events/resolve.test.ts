import { describe, expect, it } from 'vitest';
import { resolveEventId } from '../../../../gateway/events/resolve.ts';
import { manifestView } from '../../../../gateway/snapshot-cache/manifest-view.ts';
import type { Manifest } from '../../../../snapshot/manifest.ts';

const ID = '0a1b2c3d-0000-4000-8000-000000000001';
const OTHER = '0a1b2c3d-0000-4000-8000-000000000002';
const manifest = manifestView(
  {
    resources: {
      [`/events/${ID}`]: 'h1',
      [`/events/${ID}/sessions`]: 'h2',
      '/organization': 'h3',
    },
    // A slug that looks like another event's id, and one whose event is not in this snapshot.
    slugs: { spring: ID, [OTHER]: ID, gone: OTHER },
    snapshotId: '20260101T000000000Z-000000000000',
  } as unknown as Manifest,
  'manifest-hash',
);

describe('resolveEventId', () => {
  it('finds an event by id, case-insensitively, and by slug', () => {
    expect(resolveEventId(manifest, ID)).toBe(ID);
    expect(resolveEventId(manifest, ID.toUpperCase())).toBe(ID);
    expect(resolveEventId(manifest, 'spring')).toBe(ID);
  });

  it('falls back to the slug when an id-shaped input is no event id', () => {
    expect(resolveEventId(manifest, OTHER)).toBe(ID);
  });

  it('finds nothing for unknown input, inherited names, sub-resource paths or a dangling slug', () => {
    for (const input of ['autumn', '', '__proto__', 'constructor', 'toString', `${ID}/sessions`, '../organization', 'gone', 'SPRING']) {
      expect(resolveEventId(manifest, input)).toBeUndefined();
    }
  });
});
