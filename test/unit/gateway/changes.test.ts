import { describe, expect, it } from 'vitest';
import { ChangeAnswers } from '../../../gateway/changes.ts';
import type { ManifestView } from '../../../gateway/snapshot-cache/manifest-view.ts';
import { EventIndexView } from '../../../snapshot/clock-rendering/index-view.ts';
import { contentObject } from '../../../snapshot/hash.ts';
import type { Changes } from '../../../snapshot/schema-types.ts';
import { inIndexOrder, storedSummary } from '../../support/stored-events.ts';
import { fixtureUuid } from '../../support/platform-fixture.ts';

const index = contentObject(
  inIndexOrder([
    storedSummary({ n: 1, start: '2026-03-01T14:00:00Z', end: '2026-03-01T16:00:00Z' }),
    storedSummary({ n: 2, start: '2026-04-01T09:00:00Z', end: '2026-04-01T17:00:00Z' }),
  ]),
);
const view = EventIndexView.parse(index.hash, index.bytes);

function manifest(id: string, resources: Record<string, string>): ManifestView {
  return {
    snapshotId: id,
    hash: id.slice(-12).repeat(6).slice(0, 64),
    resources: new Map(Object.entries({ '/events': index.hash, ...resources })),
    slugs: new Map(),
    previousSnapshotId: null,
    previousHash: null,
    publishedAt: 0,
  };
}

const team = (n: number) => String(n).repeat(64);
const first = manifest('20260301T100000000Z-aaaaaaaaaaaa', { '/team': team(1), [`/events/${fixtureUuid(1)}`]: team(3) });
const second = manifest('20260301T110000000Z-bbbbbbbbbbbb', { '/team': team(2), [`/events/${fixtureUuid(1)}`]: team(3) });
const body = (answers: ChangeAnswers, since: ManifestView | null, now: number) => JSON.parse(answers.answer(second, since, view, now).bytes.toString('utf8')) as Changes;

describe('ChangeAnswers', () => {
  it('keeps an answer while the clock cannot change it, and computes it again once it can', () => {
    const answers = new ChangeAnswers(1 << 20);
    const noon = Date.parse('2026-03-01T12:00:00Z');
    const kept = answers.answer(second, first, view, noon);
    expect(answers.answer(second, first, view, noon + 60_000)).toBe(kept);
    expect(answers.stats.hits).toBe(1);
    expect(body(answers, first, noon)).toMatchObject({ since: first.snapshotId, removed: [], nextClockChangeAt: '2026-03-01T14:00:00Z' });
    expect(body(answers, first, noon).changed.map((entry) => entry.path)).toEqual(['/api/integration/v1/team']);
    // At 14:00 the first event starts: its tags and the next change are others.
    const later = answers.answer(second, first, view, Date.parse('2026-03-01T14:00:00Z'));
    expect(later).not.toBe(kept);
    expect(later.etag).not.toBe(kept.etag);
    expect(JSON.parse(later.bytes.toString('utf8')).nextClockChangeAt).toBe('2026-03-01T16:00:00Z');
  });

  it('keeps nothing beyond its budget, and still answers', () => {
    const answers = new ChangeAnswers(0);
    const noon = Date.parse('2026-03-01T12:00:00Z');
    expect(answers.answer(second, null, view, noon).etag).toBe(answers.answer(second, null, view, noon).etag);
    expect(answers.stats.weight).toBe(0);
    expect(body(answers, null, noon).changed).toHaveLength(3);
  });
});
