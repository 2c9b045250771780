import { describe, expect, it } from 'vitest';
import { messagesOf, type PublishedChange } from '../../../../builder/webhooks/messages.ts';
import { parseEventsQuery } from '../../../../gateway/events/query.ts';
import { EventDetailView } from '../../../../snapshot/clock-rendering/detail-view.ts';
import { EventIndexView } from '../../../../snapshot/clock-rendering/index-view.ts';
import { storedDetail, storedSummary } from '../../../support/stored-events.ts';

// Stored forms the clock changes: one event before the publish instant and one starting 10:30.
const EVENTS = [
  { n: 1, start: '2026-11-26T08:00:00Z', end: '2026-11-26T09:00:00Z' },
  { n: 2, start: '2026-11-26T10:30:00Z', end: '2026-11-26T12:00:00Z' },
];
const indexBytes = Buffer.from(JSON.stringify(EVENTS.map(storedSummary)));
const detailBytes = Buffer.from(JSON.stringify(storedDetail(EVENTS[1]!)));

const base: PublishedChange = {
  organizationId: 'org-1',
  organizationSlug: 'nordic',
  snapshotId: 'snap-2',
  publishedAt: '2026-11-26T10:00:00.000Z',
  state: 'active',
  previousState: 'active',
  before: { '/organization': 'a1', '/team': 't1', '/events': 'e1', '/events/ev-1': 'd1', '/events/ev-1/sessions': 's1', '/events/ev-2': 'd2' },
  after: { '/organization': 'a1', '/team': 't2', '/events': 'e2', '/events/ev-1': 'd1', '/events/ev-1/sessions': 's2' },
  stored: new Map([
    ['/events', indexBytes],
    ['/events/ev-1', detailBytes],
  ]),
};

/** What the gateway answers at `at` for GET /events without parameters, and for GET /events/ev-1. */
const gatewayListTag = (hash: string, at: string) => EventIndexView.parse(hash, indexBytes).page(Date.parse(at), parseEventsQuery('')).quotedEtag;
const gatewayDetailTag = (hash: string, at: string) => EventDetailView.parse(hash, detailBytes).at(Date.parse(at)).quotedEtag;

describe('messagesOf', () => {
  it('names the changed API paths with the ETag each answers now, and the removed ones', () => {
    const [message, ...rest] = messagesOf(base);
    expect(rest).toEqual([]);
    expect(message).toEqual({
      type: 'snapshot.published',
      timestamp: '2026-11-26T10:00:00.000Z',
      data: {
        organizationId: 'org-1',
        organizationSlug: 'nordic',
        snapshotId: 'snap-2',
        publishedAt: '2026-11-26T10:00:00.000Z',
        state: 'active',
        changed: [
          // The events list depends on the clock: the ETag the gateway answers at the publish.
          { path: '/api/integration/v1/events', etag: gatewayListTag('e2', '2026-11-26T10:00:00.000Z') },
          { path: '/api/integration/v1/events/ev-1/sessions', etag: '"s2"' },
          { path: '/api/integration/v1/team', etag: '"t2"' },
        ],
        removed: ['/api/integration/v1/events/ev-2'],
      },
    });
  });

  it('sends nothing when nothing served changed', () => {
    expect(messagesOf({ ...base, after: base.before })).toEqual([]);
  });

  it('says so when the organization is suspended, and lists everything when it is back', () => {
    const suspended = messagesOf({ ...base, state: 'suspended', snapshotId: null, before: {}, after: {} });
    expect(suspended.map((message) => [message.type, message.data.state, message.data.previousState])).toEqual([['organization.state_changed', 'suspended', 'active']]);
    const back = messagesOf({ ...base, previousState: 'suspended', before: {} });
    expect(back.map((message) => message.type)).toEqual(['organization.state_changed', 'snapshot.published']);
    expect((back[1]!.data.changed as unknown[]).length).toBe(Object.keys(base.after).length);
  });

  it('has no state change for a first publish', () => {
    expect(messagesOf({ ...base, previousState: null, before: {} }).map((message) => message.type)).toEqual(['snapshot.published']);
  });

  it("tags the events list and an event's detail as the gateway answers them at the publish, which the clock may change later", () => {
    const changed = (publishedAt: string) =>
      messagesOf({ ...base, publishedAt, after: { ...base.after, '/events/ev-1': 'd2' } })[0]!.data.changed as Array<{ path: string; etag: string }>;
    const tags = (publishedAt: string) => Object.fromEntries(changed(publishedAt).map(({ path, etag }) => [path, etag]));
    const before = tags('2026-11-26T10:00:00.000Z');
    expect(before['/api/integration/v1/events']).toBe(gatewayListTag('e2', '2026-11-26T10:00:00.000Z'));
    expect(before['/api/integration/v1/events/ev-1']).toBe(gatewayDetailTag('d2', '2026-11-26T10:00:00.000Z'));
    // Published once the second event had started: it is ongoing, and both answers differ.
    const after = tags('2026-11-26T11:00:00.000Z');
    expect(after['/api/integration/v1/events']).toBe(gatewayListTag('e2', '2026-11-26T11:00:00.000Z'));
    expect(after['/api/integration/v1/events/ev-1']).toBe(gatewayDetailTag('d2', '2026-11-26T11:00:00.000Z'));
    expect(after['/api/integration/v1/events']).not.toBe(before['/api/integration/v1/events']);
    expect(after['/api/integration/v1/events/ev-1']).not.toBe(before['/api/integration/v1/events/ev-1']);
    // Stored resources keep their hash as their tag.
    expect(after['/api/integration/v1/team']).toBe('"t2"');
  });
});
