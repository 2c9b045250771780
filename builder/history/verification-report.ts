// A verification's report as every door gives it: `verify --json`'s shape (what `--org` and `--all`
// print, and GET /admin/v1/organizations/{org}/verify answers), and the summary of many
// organizations counted by break kind (what `verify --all` ends with, and a verification job of the
// admin port keeps: admin/verification-admin.ts).
import type { OrganizationVerification } from './verify-history.ts';

/** One organization as the report shows it: without the verified ids, which only answers read (trustsSnapshot). */
export type ReportedVerification = Omit<OrganizationVerification, 'verified'>;

export interface VerificationReport {
  ok: boolean;
  /** The store's description. */
  store: string;
  against: string;
  organizations: ReportedVerification[];
}

/** `verify --json`'s answer. */
export function verificationReport(store: { readonly description: string }, against: string, verifications: readonly OrganizationVerification[]): VerificationReport {
  return {
    ok: verifications.every((verification) => verification.ok),
    store: store.description,
    against,
    organizations: verifications.map(reported),
  };
}

const reported = ({ verified: _verified, ...rest }: OrganizationVerification): ReportedVerification => rest;

/** Holds, with nothing of it in the store: never published into it, as far as what it was checked against says. */
export const neverPublished = (verification: Pick<OrganizationVerification, 'ok' | 'head' | 'beginning' | 'stateRecords'>) =>
  verification.ok && verification.head === null && verification.beginning === 'empty' && verification.stateRecords === 0;

export interface VerificationSummary {
  organizations: number;
  /** Holding, with something published. */
  verified: number;
  neverPublished: number;
  broken: number;
  /** Broken organizations by the kind of their first break. */
  breaks: Record<string, number>;
}

export function verificationSummary(verifications: readonly OrganizationVerification[]): VerificationSummary {
  const never = verifications.filter(neverPublished).length;
  const breaks: Record<string, number> = {};
  for (const { break: found } of verifications) if (found !== undefined) breaks[found.kind] = (breaks[found.kind] ?? 0) + 1;
  const holding = verifications.filter((verification) => verification.ok).length;
  return { organizations: verifications.length, verified: holding - never, neverPublished: never, broken: verifications.length - holding, breaks };
}

/** "5 organizations: 3 verified, 1 never published, 1 broken (history-missing: 1)": the breaks counted by kind. */
export function summaryText(summary: VerificationSummary): string {
  const kinds = Object.entries(summary.breaks)
    .map(([kind, count]) => `${kind}: ${count}`)
    .join(', ');
  return (
    `${summary.organizations} organizations: ${summary.verified} verified, ` +
    `${summary.neverPublished === 0 ? '' : `${summary.neverPublished} never published, `}${summary.broken} broken${summary.broken === 0 ? '' : ` (${kinds})`}`
  );
}
