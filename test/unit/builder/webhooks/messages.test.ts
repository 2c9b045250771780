import { describe, expect, it } from 'vitest';
import { messagesOf, type PublishedChange } from '../../../../builder/webhooks/messages.ts';

const base: PublishedChange = {
  organizationId: 'org-1',
  organizationSlug: 'nordic',
  snapshotId: 'snap-2',
  publishedAt: '2026-11-26T10:00:00.000Z',
  state: 'active',
  previousState: 'active',
  before: { '/organization': 'a1', '/team': 't1', '/events': 'e1', '/events/ev-1': 'd1', '/events/ev-1/sessions': 's1', '/events/ev-2': 'd2' },
  after: { '/organization': 'a1', '/team': 't2', '/events': 'e2', '/events/ev-1': 'd1', '/events/ev-1/sessions': 's2' },
};

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
          // The events list depends on the clock: named, with no ETag to compare.
          { path: '/api/integration/v1/events', etag: null },
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
});
