// The messages a publish sends (docs/design.md "Webhooks"): `snapshot.published` when what the API
// answers for the organization changed — the API paths changed, with the ETag each answers at the
// publish, and the paths removed — and `organization.state_changed` when it was suspended, closed
// or reactivated. Pure: from what the publish replaced and what it wrote. No key and no personal
// field is ever part of one: paths, ETags, ids and instants only.
import { answeredTag } from '../../snapshot/clock-rendering/answered-tag.ts';
import type { OrganizationState } from '../../snapshot/manifest.ts';
import { API_BASE, isClockDependent, resourceAt } from '../../snapshot/resource-catalog.ts';

export type MessageType = 'snapshot.published' | 'organization.state_changed' | 'webhook.test';

export interface WebhookMessage {
  type: MessageType;
  /** ISO instant the event happened (the publish). */
  timestamp: string;
  data: Record<string, unknown>;
}

/** What one publish changed for the organization: the stored resources (path → hash) served before and now. */
export interface PublishedChange {
  organizationId: string;
  organizationSlug: string;
  snapshotId: string | null;
  publishedAt: string;
  state: OrganizationState;
  /** null: nothing was published for it before. */
  previousState: OrganizationState | null;
  /** Resource paths (below the API base) to their content hashes, as served before and after; empty when not active. */
  before: Readonly<Record<string, string>>;
  after: Readonly<Record<string, string>>;
  /** The stored bytes of `after`'s resources: what the answers the gateway computes are tagged from. */
  stored: ReadonlyMap<string, Buffer>;
}

/**
 * The ETag the gateway answers for a changed path at the publish. The events list and an event's
 * detail carry clock fields the gateway computes per request, so theirs is computed as the gateway
 * computes it, for the instant of the publish; the clock may change it later without a message.
 */
function etagAt(change: PublishedChange, path: string): string {
  const hash = change.after[path]!;
  const kind = resourceAt(path)?.kind;
  if (kind === undefined || !isClockDependent(kind)) return `"${hash}"`;
  const bytes = change.stored.get(path);
  if (bytes === undefined) throw new Error(`the publish of organization ${change.organizationId} reports ${path} changed but not its bytes`);
  return `"${answeredTag(kind, hash, bytes, Date.parse(change.publishedAt))}"`;
}

/** The messages a publish sends, in the order to send them; none when nothing a site sees changed. */
export function messagesOf(change: PublishedChange): WebhookMessage[] {
  const messages: WebhookMessage[] = [];
  const common = { organizationId: change.organizationId, organizationSlug: change.organizationSlug, snapshotId: change.snapshotId, publishedAt: change.publishedAt };
  const stateChanged = change.previousState !== change.state && !(change.previousState === null && change.state === 'active');
  if (stateChanged) {
    messages.push({ type: 'organization.state_changed', timestamp: change.publishedAt, data: { ...common, state: change.state, previousState: change.previousState } });
  }
  if (change.state === 'active') {
    const changed = Object.keys(change.after)
      .filter((path) => change.before[path] !== change.after[path])
      .sort()
      .map((path) => ({ path: `${API_BASE}${path}`, etag: etagAt(change, path) }));
    const removed = Object.keys(change.before)
      .filter((path) => !(path in change.after))
      .sort()
      .map((path) => `${API_BASE}${path}`);
    if (changed.length > 0 || removed.length > 0) {
      messages.push({ type: 'snapshot.published', timestamp: change.publishedAt, data: { ...common, state: change.state, changed, removed } });
    }
  }
  return messages;
}

/** The message `webhooks test` sends: says nothing changed, names the organization and the endpoint. */
export function testMessage(organizationId: string, organizationSlug: string, endpointId: string, now: Date): WebhookMessage {
  return { type: 'webhook.test', timestamp: now.toISOString(), data: { organizationId, organizationSlug, endpointId } };
}
