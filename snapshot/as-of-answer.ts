// What the integration API answered at a past instant (docs/design.md "Guarantees, for auditors"):
// the contract between the gateway, which computes it with its own routes and rendering
// (gateway/as-of.ts), and the control plane's doors that serve it to auditors (`show`, the admin
// API's as-of, the console), which are handed the gateway's function by bin/.
import type { OrganizationState } from './manifest.ts';
import type { ListableSource } from './reader.ts';
import type { Signature } from './signing.ts';

export interface AsOfAnswer {
  /** The HTTP status the gateway answered with; 404 when nothing was published then. */
  status: number;
  /** The JSON body: the resource, or its problem+json. */
  body: unknown;
  /** The snapshot that was current; null when the organization was suspended or closed, or had nothing published then. */
  snapshotId: string | null;
  /** The organization's state then; null when nothing it had published then is still in the store. */
  state: OrganizationState | null;
  /**
   * What the answer rests on, for an auditor's file: the manifest's hash (SHA-256 of its stored
   * bytes) and signature (null when unsigned) of the snapshot then, and the ETag the answer
   * carried (null for an error, which carries none).
   */
  evidence: { manifestHash: string | null; signature: Signature | null; etag: string | null };
}

/**
 * What GET `apiPath` answered at `at` for organization `orgId`. `apiPath` is below
 * /api/integration/v1 (`/events?timing=past&page=2`, `/events/{slug}/sessions`); the base may be
 * included. Expected outcomes (404, 403 ORGANIZATION_SUSPENDED, 400) are answers; a broken or
 * unreachable store throws.
 */
export type AnswerAsOf = (store: ListableSource, orgId: string, at: Date, apiPath: string) => Promise<AsOfAnswer>;
