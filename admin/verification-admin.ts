// The checks an auditor runs through the admin port (issue 35: every check with an auditor
// credential): one organization's history verified as `marquee verify --org ID --json` gives it,
// and every organization's as a job of this process (verification-jobs.ts), whose result is what
// `verify --all --json` finds, summarized with each broken organization. Both check the store
// against the platform database as the CLI does (builder/history/verification-expectations.ts),
// with the same code: the admin port holds both, so there is no store-only variant here.
import { databaseBasis } from '../builder/history/verification-expectations.ts';
import { neverPublished, type VerificationReport, verificationReport, verificationSummary } from '../builder/history/verification-report.ts';
import { verifyInStore, verifyStore } from '../builder/history/verify-history.ts';
import type { SqlQueries } from '../records/database/sql.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { currentAttribution } from './acting.ts';
import { adminError, organizationNotFound } from './errors.ts';
import { type VerificationJob, type VerificationJobs, verificationJobs } from './verification-jobs.ts';

export interface VerificationOperations {
  /**
   * One organization (id or slug), as `verify --org ID --json`. An id the platform no longer knows
   * is verified from the store (a deleted organization keeps its history); one that neither the
   * platform nor the store knows is ORGANIZATION_NOT_FOUND, where the CLI says "nothing published".
   */
  organization(idOrSlug: string): Promise<VerificationReport>;
  /** Starts verifying every organization in the background, or answers the one running. */
  start(): Promise<VerificationJob>;
  /** VERIFICATION_NOT_FOUND unless this process keeps it. */
  get(id: string): Promise<VerificationJob>;
  /** The verifications this process keeps, newest first. */
  list(): Promise<VerificationJob[]>;
}

export interface VerificationParts {
  db: SqlQueries & { readonly description: string };
  store: SnapshotStore;
  jobs?: VerificationJobs;
}

const verificationNotFound = (id: string) =>
  adminError('VERIFICATION_NOT_FOUND', `no verification ${JSON.stringify(id)} among those this process keeps (the newest 20; a restart forgets them)`);

export function verificationOperations({ db, store, jobs = verificationJobs() }: VerificationParts): VerificationOperations {
  return {
    organization: async (idOrSlug) => {
      const { expected, orgId, against } = await databaseBasis(db, store, idOrSlug);
      const verification = await verifyInStore(store, orgId!, expected?.get(orgId!) ?? []);
      if (!expected?.has(orgId!) && neverPublished(verification)) throw organizationNotFound(idOrSlug);
      return verificationReport(store, against, [verification]);
    },
    start: async () =>
      jobs.start(currentAttribution().actor.name, async (progress) => {
        const { expected, against } = await databaseBasis(db, store);
        const { organizations: verifications } = await verifyStore(store, expected, progress);
        const { ok, organizations } = verificationReport(store, against, verifications);
        return {
          ok,
          store: store.description,
          against,
          summary: verificationSummary(verifications),
          broken: organizations.filter((organization) => !organization.ok),
        };
      }),
    get: async (id) => {
      const job = jobs.get(id);
      if (job === undefined) throw verificationNotFound(id);
      return job;
    },
    list: async () => jobs.list(),
  };
}
