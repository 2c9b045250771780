// Reading the audit trail, as every door does (`audit-log`, GET /admin/v1/audit-log, the console's
// audit page): entries by organization, actor, action and time (since, inclusive; until,
// exclusive: audit-since.ts), newest first, a page at a time;
// and `verify`, the chain against itself and against the heads kept in the snapshot store.
import type { SnapshotStore } from '../../snapshot/store.ts';
import type { OrganizationDirectory } from '../organization-admin.ts';
import type { AuditAction, AuditChanges, AuditEntry } from '../../records/trail/audit-entry.ts';
import { storedHeads } from '../../records/trail/audit-heads.ts';
import type { AuditTrail } from '../../records/trail/audit-trail.ts';
import { type AuditVerdict, verifyAuditTrail } from '../../records/trail/audit-verify.ts';
import { type AuditRecorder, type AuditSubject, alreadyRecorded, outcomeOf } from './recorded-operations.ts';

const AUDIT_PAGE_DEFAULT = 100;
export const AUDIT_PAGE_MAX = 1000;

export interface AuditQuery {
  /** Id or slug; an id the platform no longer knows still finds its entries. */
  readonly organization?: string;
  readonly actor?: string;
  readonly action?: string;
  readonly since?: Date;
  /** Entries before this instant, exclusive. */
  readonly until?: Date;
  /** The previous page's `next`: entries before this sequence number. */
  readonly before?: number;
  readonly limit?: number;
}

interface AuditPage {
  /** Newest first. */
  readonly entries: AuditEntry[];
  /** `before` for the next page; null on the last. */
  readonly next: number | null;
}

export interface AuditOperations {
  list(query: AuditQuery): Promise<AuditPage>;
  verify(): Promise<AuditVerdict>;
  /**
   * A door's answer to a state-changing request that no operation recorded (its body was refused,
   * its role may not): one `refused` entry, or `failed` for a fault of ours. Nothing when the
   * operation recorded it already.
   */
  recordRefusal(action: AuditAction, error: unknown, subject: AuditSubject & { changes?: AuditChanges }): Promise<void>;
}

export interface AuditParts {
  trail: AuditTrail;
  store: SnapshotStore;
  organizations: OrganizationDirectory;
  recorder: AuditRecorder;
}

export function auditOperations({ trail, store, organizations, recorder }: AuditParts): AuditOperations {
  return {
    recordRefusal: async (action, error, { changes = {}, ...subject }) => {
      if (alreadyRecorded(error)) return;
      await recorder.record({ action, changes, ...subject, ...outcomeOf(error) });
    },
    list: async (query) => {
      const limit = Math.min(query.limit ?? AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX);
      const organizationId =
        query.organization === undefined
          ? undefined
          : await organizations.find(query.organization).then(
              (found) => found.id,
              // An organization removed from the platform keeps its entries, under its id.
              () => query.organization,
            );
      const entries = await trail.list({
        limit: limit + 1,
        ...(organizationId !== undefined ? { organizationId } : {}),
        ...(query.actor !== undefined ? { actor: query.actor } : {}),
        ...(query.action !== undefined ? { action: query.action } : {}),
        ...(query.since !== undefined ? { since: query.since } : {}),
        ...(query.until !== undefined ? { until: query.until } : {}),
        ...(query.before !== undefined ? { beforeSeq: query.before } : {}),
      });
      const page = entries.slice(0, limit);
      return { entries: page, next: entries.length > limit ? page[page.length - 1]!.seq : null };
    },
    verify: async () => verifyAuditTrail(trail.walk(), await storedHeads(store)),
  };
}
