// The audit trail's page: entries newest first, filtered by organization, actor, action and time,
// a page at a time; each entry links to what it acted on (its key, webhook endpoint, build run,
// verification or organization) and to its organization. And the trail verified, as
// `audit-log verify` does.
import { AUDIT_ACTIONS, type AuditEntry } from '../../records/trail/audit-entry.ts';
import { auditWindow } from '../trail/audit-since.ts';
import type { AdminServices } from '../services.ts';
import { type ConsoleRoute, page } from './console-routes.ts';
import type { Pages } from './pages.ts';
import { showInstant } from './relative-time.ts';

const PAGE_SIZE = 50;

/** Where an entry's target is shown in the console, by the area its action names. */
function targetLink(entry: AuditEntry, slugs: ReadonlyMap<string, string>): string | null {
  if (entry.targetId === null) return null;
  const id = encodeURIComponent(entry.targetId);
  // The keys list, at the key's row: every role reads it (the edit page is an operator's form).
  if (entry.action.startsWith('key.')) return `/keys#${id}`;
  if (entry.action.startsWith('webhook.')) return `/webhooks/${id}/attempts`;
  if (entry.action.startsWith('build.')) return `/builds/${id}`;
  if (entry.action.startsWith('verification.')) return `/verifications/${id}`;
  const slug = slugs.get(entry.targetId);
  return slug === undefined ? null : `/organizations/${encodeURIComponent(slug)}/history`;
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

export function auditPages({ services, pages, now }: { services: AdminServices; pages: Pages; now: () => Date }): ConsoleRoute[] {
  return [
    page('/audit-log', 'auditor', async (req, res) => {
      const filter = {
        organization: text(req.query.organization),
        actor: text(req.query.actor),
        action: text(req.query.action),
        since: text(req.query.since),
        until: text(req.query.until),
      };
      const before = /^[0-9]+$/.test(text(req.query.before)) ? Number(text(req.query.before)) : undefined;
      const at = now();
      const page = await services.audit.list({
        limit: PAGE_SIZE,
        ...(filter.organization ? { organization: filter.organization } : {}),
        ...(filter.actor ? { actor: filter.actor } : {}),
        ...(filter.action ? { action: filter.action } : {}),
        // Read as the API reads ?since= and ?until=: a window that would hold nothing is refused, naming both.
        ...auditWindow({ since: filter.since || undefined, until: filter.until || undefined }, { since: 'since', until: 'until' }, at),
        ...(before !== undefined ? { before } : {}),
      });
      const organizations = await services.organizations.list();
      const slugs = new Map(organizations.map((org) => [org.id, org.slug]));
      const entries = page.entries.map((entry) => ({
        ...entry,
        shownAt: showInstant(entry.at, at),
        organizationSlug: entry.organizationId === null ? null : (slugs.get(entry.organizationId) ?? null),
        targetLink: targetLink(entry, slugs),
        changesText: Object.keys(entry.changes).length ? JSON.stringify(entry.changes) : '',
      }));
      const query = new URLSearchParams(Object.entries(filter).filter(([, value]) => value !== ''));
      if (page.next !== null) query.set('before', String(page.next));
      pages.show(
        req,
        res,
        'audit-log.njk',
        'Audit log',
        { entries, filter, organizations, actions: AUDIT_ACTIONS, nextQuery: page.next === null ? null : query.toString() },
        { section: 'audit-log' },
      );
    }),

    page('/audit-log/verify', 'auditor', async (req, res) => {
      const verdict = await services.audit.verify();
      pages.show(req, res, 'audit-verify.njk', 'Audit trail verified', { verdict }, { section: 'audit-log' });
    }),
  ];
}
