// The control plane's operations (docs/design.md "Admin API and console"), one interface that both
// the JSON API (admin/api.ts) and the console (admin/console/) consume, and its implementation
// composed from the same builder and gateway modules the CLI calls: one behaviour, two doors.
// Organizations are named by id or slug everywhere; an unknown one is an AdminError naming it.
import type { BuildRun, BuildRuns, LastBuild } from '../builder/runs/build-runs.ts';
import { diffSnapshots, type HistoryEntry, type SnapshotDiff, snapshotHistory } from '../builder/audit/history.ts';
import { findOrganization, listNamedOrganizations, type OrganizationRef, organizationSlugs } from '../builder/platform/organizations.ts';
import type { SqlQueries } from '../builder/platform/sql.ts';
import type { WebhookOperations } from '../builder/webhooks/webhook-admin.ts';
import { type AsOfAnswer, answerAsOf } from '../gateway/as-of.ts';
import type { KeyStore } from '../gateway/keys/key-store.ts';
import { type KeyRequests, keyRequests } from './keys/key-requests.ts';
import { parseZonedInstant, ZONED_INSTANT_EXAMPLE } from '../runtime/instant.ts';
import type { OrganizationState } from '../snapshot/manifest.ts';
import { readPointer } from '../snapshot/reader.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { badRequest } from './errors.ts';

/** A row of the organizations page: the platform's state, the store's current snapshot, the latest build of this process. */
export interface OrganizationOverview {
  id: string;
  slug: string;
  name: string;
  state: OrganizationState;
  /** From the pointer; null when never published, or suspended/closed. */
  snapshotId: string | null;
  /** When the pointer last changed; null when never published. */
  publishedAt: string | null;
  lastBuild: LastBuild | null;
}

export interface AdminServices {
  /** Id or slug → the organization; an OrganizationNotFoundError (404) naming it when there is none. */
  organization(idOrSlug: string): Promise<OrganizationRef>;
  organizations(): Promise<OrganizationOverview[]>;
  builds: {
    /** Newest first; the last runs only (builder/runs/build-runs.ts). */
    list(): BuildRun[];
    get(runId: string): BuildRun | undefined;
    /** Queues a build of these organizations (ids or slugs; none: all) and returns at once with the queued run. */
    start(organizations?: readonly string[]): Promise<BuildRun>;
  };
  keys: KeyRequests;
  /** Webhook endpoints, their attempts, test messages and redelivery (builder/webhooks/webhook-admin.ts). */
  webhooks: WebhookOperations;
  /** Newest first, as `history --json` (plus `current`, which the console marks). */
  history(organization: string): Promise<HistoryEntry[]>;
  /** As `diff --json`; `from`/`to` are snapshot ids or `current`. */
  diff(organization: string, from: string, to: string): Promise<SnapshotDiff>;
  /** What the API path returned at that instant (its status, body, the snapshot then and the state then). */
  asOf(organization: string, at: string, path: string): Promise<AsOfAnswer>;
}

/** What a build request needs of the runner: queue now, run in its turn. */
interface BuildQueue {
  queue(trigger: 'manual', organizationIds?: string[]): { run: BuildRun; results: Promise<unknown> };
}

export interface AdminServiceParts {
  db: SqlQueries;
  store: SnapshotStore;
  keys: KeyStore;
  webhooks: WebhookOperations;
  runs: BuildRuns;
  builds: BuildQueue;
  /** Where a failed manual build's rejection goes (it has no caller waiting for it). */
  onBuildError: (error: unknown) => void;
}

export function createAdminServices(parts: AdminServiceParts): AdminServices {
  const { db, store, runs } = parts;
  const organization = (idOrSlug: string): Promise<OrganizationRef> => findOrganization(db, idOrSlug);
  const keys = keyRequests(parts.keys, organization, (ids) => organizationSlugs(db, ids));
  return {
    organization,
    organizations: async () => {
      const rows = await listNamedOrganizations(db);
      return Promise.all(
        rows.map(async (row) => {
          const pointer = await readPointer(store, row.id);
          return {
            id: row.id,
            slug: row.slug,
            name: row.name,
            state: row.status,
            snapshotId: pointer?.snapshotId ?? null,
            publishedAt: pointer?.publishedAt ?? null,
            lastBuild: runs.lastBuildOf(row.id) ?? null,
          };
        }),
      );
    },
    builds: {
      list: () => runs.list(),
      get: (runId) => runs.get(runId),
      start: async (names = []) => {
        const ids: string[] = [];
        for (const name of names) ids.push((await organization(name)).id);
        const queued = parts.builds.queue('manual', ids.length > 0 ? ids : undefined);
        queued.results.catch(parts.onBuildError);
        return queued.run;
      },
    },
    keys,
    webhooks: parts.webhooks,
    history: async (name) => snapshotHistory(store, (await organization(name)).id),
    diff: async (name, from, to) => diffSnapshots(store, (await organization(name)).id, from, to),
    asOf: async (name, at, path) => {
      const instant = parseZonedInstant(at);
      if (instant === undefined) throw badRequest(`at must be an ISO 8601 instant with a zone (e.g. ${ZONED_INSTANT_EXAMPLE}), got ${JSON.stringify(at)}`);
      return answerAsOf(store, (await organization(name)).id, instant, path);
    },
  };
}
