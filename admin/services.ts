// The control plane's operations (docs/design.md "Admin API and console"): one member per
// operations module (organization-admin.ts, build-admin.ts, keys/key-admin.ts, webhook-admin.ts,
// snapshot-admin.ts, verification-admin.ts, checkpoint-admin.ts, usage-admin.ts, credentials/credential-admin.ts), which the CLI's commands call too. The JSON API (api.ts, api-routes.ts) and
// the console (console/) are doors over this one object: a new area of operations is a module
// beside those, one member here, its routes and its pages. Every door is given these operations
// with each state-changing one recording its audit entry (trail/recorded-operations.ts).
import type { BuildRuns } from '../builder/runs/build-runs.ts';
import type { SqlQueries } from '../records/database/sql.ts';
import type { KeyStore } from '../records/keys/key-store.ts';
import type { PublicationLog } from '../records/publication-log/log-store.ts';
import type { AnswerAsOf } from '../snapshot/as-of-answer.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { type AdminCredentialOperations, adminCredentialOperations } from './credentials/credential-admin.ts';
import { type AuditOperations, auditOperations } from './trail/audit-admin.ts';
import type { AuditTrail } from '../records/trail/audit-trail.ts';
import { auditRecorder, recordedServices } from './trail/recorded-operations.ts';
import { type BuildOperations, type BuildQueue, buildOperations } from './build-admin.ts';
import { type CheckpointOperations, checkpointOperations } from './checkpoint-admin.ts';
import { type KeyOperations, keyOperations } from './keys/key-admin.ts';
import { type OrganizationOperations, organizationDirectory, organizationOperations } from './organization-admin.ts';
import { type SnapshotOperations, snapshotOperations } from './snapshot-admin.ts';
import { type UsageOperations, usageOperations } from './usage-admin.ts';
import { type VerificationOperations, verificationOperations } from './verification-admin.ts';
import { type WebhookOperations, type WebhookParts, webhookOperations } from './webhook-admin.ts';
import type { KnownSecret } from '../records/trail/audit-entry.ts';

export interface AdminServices {
  organizations: OrganizationOperations;
  builds: BuildOperations;
  keys: KeyOperations;
  webhooks: WebhookOperations;
  snapshots: SnapshotOperations;
  /** Named admin credentials, and the admin port's check of one. */
  admins: AdminCredentialOperations;
  audit: AuditOperations;
  /** Histories verified as `marquee verify` does, and every organization's as a background job. */
  verifications: VerificationOperations;
  /** The publication log's latest checkpoint in the store, checked, as `marquee checkpoint --json` prints it. */
  checkpoints: CheckpointOperations;
  /** Requests per key over time, by outcome, route and refused origin (records/usage/). */
  usage: UsageOperations;
}

export interface AdminServiceParts {
  /** Its description is what verifications say they checked against, as the CLI's. */
  db: SqlQueries & { readonly description: string };
  store: SnapshotStore;
  keys: KeyStore;
  webhooks: Omit<WebhookParts, 'organizations'>;
  runs: BuildRuns;
  builds: BuildQueue;
  /** Where every state-changing operation records its entry. */
  trail: AuditTrail;
  /** Where a failed requested build's rejection goes (it has no caller waiting for it). */
  onBuildError: (error: unknown) => void;
  /** What an API path answered at an instant: the gateway's (gateway/as-of.ts). */
  answerAsOf: AnswerAsOf;
  /** The publication log the process's publishes append to: an answer's inclusion proof is read from it. */
  publicationLog?: PublicationLog;
  /** Secrets known by value (ADMIN_TOKEN) that the trail names by a marker wherever a change or reason would quote one. */
  knownSecrets?: readonly KnownSecret[];
}

export function createAdminServices(parts: AdminServiceParts): AdminServices {
  const { db, store, runs, trail } = parts;
  const organizations = organizationDirectory(async () => db);
  const recorder = auditRecorder(async () => trail, organizations, parts.knownSecrets);
  const keys = keyOperations(parts.keys, organizations);
  const services: AdminServices = {
    organizations: organizationOperations({ db, store, runs }),
    builds: buildOperations({ runs, queue: parts.builds, organizations, onBuildError: parts.onBuildError }),
    keys,
    webhooks: webhookOperations({ ...parts.webhooks, organizations }),
    snapshots: snapshotOperations(store, async (idOrSlug) => (await organizations.find(idOrSlug)).id, parts.answerAsOf, parts.publicationLog),
    admins: adminCredentialOperations(db),
    audit: auditOperations({ trail, store, organizations, recorder }),
    verifications: verificationOperations({ db, store }),
    checkpoints: checkpointOperations(store, parts.publicationLog),
    usage: usageOperations({ db, keys, organizations }),
  };
  return recordedServices(services, recorder);
}
