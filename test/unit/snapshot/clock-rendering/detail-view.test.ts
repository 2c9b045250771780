import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../snapshot/canonical.ts';
import { keyOrderOf } from '../../../../snapshot/key-order.ts';
import { contentObject } from '../../../../snapshot/hash.ts';
import { SchemaSet } from '../../../../snapshot/schemas.ts';
import type { EventDetail } from '../../../../snapshot/schema-types.ts';
import { EventDetailView } from '../../../../snapshot/clock-rendering/detail-view.ts';
import { storedDetail } from '../../../support/stored-events.ts';

const at = (text: string) => Date.parse(text);
const stored = contentObject(
  storedDetail({
    n: 1,
    start: '2026-05-01T09:00:00Z',
    end: '2026-05-01T17:00:00Z',
    registrationStart: '2026-04-01T00:00:00Z',
    registrationEnd: '2026-04-20T00:00:00Z',
  }),
);
const view = EventDetailView.parse(stored.hash, stored.bytes);
const detailAt = (now: number) => JSON.parse(view.at(now).bytes.toString('utf8')) as EventDetail;

describe('EventDetailView', () => {
  it('replaces the stored clock with timing and isRegistrationOpen, in canonical bytes', () => {
    const representation = view.at(at('2026-04-10T00:00:00Z'));
    const parsed = JSON.parse(representation.bytes.toString('utf8')) as EventDetail;
    expect(parsed).toMatchObject({ timing: 'upcoming', isRegistrationOpen: true });
    expect('clock' in parsed).toBe(false);
    expect(representation.bytes.toString('utf8')).toBe(canonicalJson(parsed, keyOrderOf('event-detail')));
    expect(new SchemaSet().validate('event-detail', parsed)).toEqual({ valid: true });
  });

  it('walks closed → open → closed → ongoing → past; the tag follows the state, not the time', () => {
    const walk = ['2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z', '2026-04-20T00:00:00Z', '2026-05-01T09:00:00Z', '2026-05-01T17:00:00Z'];
    expect(walk.map((t) => [detailAt(at(t)).timing, detailAt(at(t)).isRegistrationOpen])).toEqual([
      ['upcoming', false],
      ['upcoming', true],
      ['upcoming', false],
      ['ongoing', false],
      ['past', false],
    ]);
    const tags = walk.map((t) => view.at(at(t)).etag);
    // Closed before the window and closed after it is the same state: the same bytes and tag.
    expect(tags[2]).toBe(tags[0]);
    expect(new Set(tags).size).toBe(walk.length - 1);
    for (const t of walk) expect(view.at(at(t) + 3_600_000 - 1).etag).toBe(view.at(at(t)).etag);
  });

  it('tells the tag it answers without rendering, at every instant of the walk and between', () => {
    const detail = JSON.parse(stored.bytes.toString('utf8')) as Parameters<typeof EventDetailView.tagAt>[1];
    const instants = ['2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z', '2026-04-20T00:00:00Z', '2026-05-01T09:00:00Z', '2026-05-01T17:00:00Z'].flatMap((t) => [
      at(t) - 1,
      at(t),
      at(t) + 1,
    ]);
    for (const now of instants) expect(EventDetailView.tagAt(stored.hash, detail, now)).toBe(view.at(now).etag);
  });
});
