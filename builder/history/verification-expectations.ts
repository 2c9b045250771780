// What a verification checks a store against, and how its report says so, for every door that
// verifies: `marquee verify` (bin/commands/snapshots.ts) and the admin API and console
// (admin/verification-admin.ts). With the platform database: every organization it knows and those
// it records as built into this store (expected-publications.ts), and, when the database holds the
// publication log of this store, every publication it logged (logged-publications.ts); without it (`--store-only`): the
// store alone, which cannot tell a history removed whole from one never published, as `against`
// says. One assembly, so the CLI and the admin port cannot check different things under one name.
import type { SqlQueries } from '../../records/database/sql.ts';
import { findOrganization } from '../platform/organizations.ts';
import { isUuid } from '../../snapshot/layout.ts';
import { databaseExpectations } from './expected-publications.ts';
import { logExpectations } from './logged-publications.ts';
import type { Expectations } from './verify-history.ts';

export interface VerificationBasis {
  /** undefined: the store alone. */
  expected: Expectations | undefined;
  /** The organization asked for, by id; undefined when every one is. */
  orgId: string | undefined;
  /** What the store was checked against, in words, as the report's `against` says it. */
  against: string;
}

export const STORE_ONLY_AGAINST = 'the store alone (--store-only): a history removed whole reads as nothing published';

/**
 * What the platform database says must be in `store` (its description, as builds record it), of
 * every organization or of `org` (an id or a slug). An id is not looked up: an organization the
 * platform deleted keeps its history; a slug it does not know is OrganizationNotFoundError.
 */
export async function databaseBasis(
  db: SqlQueries & { readonly description: string },
  store: { readonly description: string },
  org?: string,
  /** `verify --since`: of the publication log, only what it logged from this seq on (a kept checkpoint's size). */
  fromSeq?: number,
): Promise<VerificationBasis> {
  const orgId = org === undefined ? undefined : isUuid(org) ? org.toLowerCase() : (await findOrganization(db, org)).id;
  const expected = await databaseExpectations(db, store.description, orgId);
  const logged = await logExpectations(db, store.description, orgId, fromSeq);
  // Merged per organization: every organization either knows, with all both say; and a log rewritten
  // where its rows name no organization is told to every one, since nothing says whose it was.
  if (typeof logged !== 'string') {
    for (const [id, list] of logged.byOrganization) expected.set(id, [...(expected.get(id) ?? []), ...list]);
    if (logged.everyOrganization.length > 0) for (const [id, list] of expected) expected.set(id, [...list, ...logged.everyOrganization]);
  }
  return {
    expected,
    orgId,
    against:
      `the platform database ${db.description}: every organization it knows, and those it records as built into this store` +
      (typeof logged === 'string'
        ? ` (not its publication log: ${logged})`
        : fromSeq === undefined
          ? ', and every publication its publication log records'
          : `, and every publication its publication log records from leaf ${fromSeq} on`),
  };
}
