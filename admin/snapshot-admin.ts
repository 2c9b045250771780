// What auditors ask of the snapshot store (docs/design.md "Guarantees, for auditors"): an
// organization's history, the diff of two of its snapshots, what an API path answered at an
// instant, and the publication log's inclusion proof of a snapshot's manifest. `history --json`,
// `diff --json` and the admin API print the shapes below; the console shows more of the same
// answers (the current entry, the labelled field changes).
import { diffSnapshots, type HistoryEntry, type SnapshotDiff, SnapshotNotFoundError, snapshotHistory } from '../builder/history/history.ts';
import { type OrganizationVerification, trustsSnapshot, verifyOrganization } from '../builder/history/verify-history.ts';
import { type AnsweringManifest, type InclusionSources, inclusionSources, type ManifestInclusion, manifestInclusion } from '../records/publication-log/answer-inclusion.ts';
import { OperatorError } from '../runtime/errors.ts';
import { sha256Hex } from '../snapshot/hash.ts';
import { isSnapshotId, manifestKey } from '../snapshot/layout.ts';
import { listSnapshotIds, readPointer, SnapshotIntegrityError } from '../snapshot/reader.ts';
import { currentAt, listStateMarks } from '../snapshot/state-records.ts';
import type { AnswerAsOf, AsOfAnswer } from '../snapshot/as-of-answer.ts';
import type { SnapshotStore } from '../snapshot/store.ts';

export interface SnapshotOperations {
  /** Newest first, each entry saying whether it is current. */
  history(organization: string): Promise<HistoryEntry[]>;
  /** `from`/`to` are snapshot ids or `current`. */
  diff(organization: string, from: string, to: string): Promise<SnapshotDiff>;
  /**
   * What the API path (below /api/integration/v1) answered at that instant: its status, body, the
   * snapshot then and the state then, with its evidence. Refused (HistoryBreakError) when the
   * snapshot it would answer from does not verify: a forged past is never answered from.
   */
  asOf(organization: string, at: Date, path: string): Promise<AsOfAnswer>;
  /** The organization's history checked from the current pointer back (builder/history/verify-history.ts). */
  verify(organization: string): Promise<OrganizationVerification>;
  /** The snapshot current at `at` (its id; null when none was, or the organization was suspended or closed then), for `diff --since`. */
  snapshotAt(organization: string, at: Date): Promise<string | null>;
  /**
   * The publication log's inclusion proof of the snapshot's manifest (the bytes the store holds)
   * against the store's newest checkpoint, with that checkpoint's note; or null and why there is
   * none (records/publication-log/answer-inclusion.ts). SnapshotNotFoundError when the store holds
   * no such manifest.
   */
  inclusion(organization: string, snapshotId: string): Promise<SnapshotInclusion>;
}

/** The admin API's inclusion answer: the manifest it proves, and the members `show --evidence` prints beside it. */
type SnapshotInclusion = AnsweringManifest & ManifestInclusion;

/** Where an organization's history breaks, as verify says it (after `lead`); '' when it does not. */
function breakOf(verification: OrganizationVerification, lead: string): string {
  const found = verification.break;
  return found ? `${lead}the history breaks at ${found.snapshotId} (${found.kind}): ${found.detail}` : '';
}

/** An answer refused because the history it would come from does not verify; the message names the break. */
export class HistoryBreakError extends OperatorError {
  override name = 'HistoryBreakError';
}

/**
 * Over the store alone: `organizationId` turns the id or slug an operator gave into an id (the
 * CLI's needs no database for an id, since auditors may hold only the store); `answerAsOf` is the
 * gateway's (gateway/as-of.ts), handed over by bin/, so an as-of answer is rendered by the code
 * that served it. `publicationLog`, the platform database's, is read by `inclusion` alone: the
 * CLI's history, diff and show are given none (show reads the log itself, with --evidence only).
 */
export function snapshotOperations(
  store: SnapshotStore,
  organizationId: (idOrSlug: string) => Promise<string>,
  answerAsOf: AnswerAsOf,
  publicationLog?: InclusionSources['log'],
): SnapshotOperations {
  return {
    history: async (organization) => snapshotHistory(store, await organizationId(organization)),
    diff: async (organization, from, to) => {
      const orgId = await organizationId(organization);
      return diffSnapshots(store, orgId, snapshotNamed(orgId, from), snapshotNamed(orgId, to));
    },
    asOf: async (organization, at, path) => {
      const orgId = await organizationId(organization);
      const answer = await answerAsOf(store, orgId, at, path).catch(async (error: unknown) => {
        // An object the answer needs is missing or not what its hash says: a break too, named as verify names it.
        if (!(error instanceof SnapshotIntegrityError)) throw error;
        const verification = await verifyOrganization(store, orgId);
        throw new HistoryBreakError(`${path} of organization ${orgId} at ${at.toISOString()} cannot be answered: ${error.message}${breakOf(verification, '; ')}`);
      });
      if (answer.snapshotId === null) return answer;
      const verification = await verifyOrganization(store, orgId);
      if (!trustsSnapshot(verification, answer.snapshotId)) {
        throw new HistoryBreakError(
          `snapshot ${answer.snapshotId} of organization ${orgId}, current at ${at.toISOString()}, does not verify, so it is not answered from: ${breakOf(verification, '') || 'it is not on the verified chain'}`,
        );
      }
      return answer;
    },
    verify: async (organization) => verifyOrganization(store, await organizationId(organization)),
    snapshotAt: async (organization, at) => {
      const orgId = await organizationId(organization);
      const [ids, marks, pointer] = await Promise.all([listSnapshotIds(store, orgId), listStateMarks(store, orgId), readPointer(store, orgId)]);
      return currentAt(at, ids, marks, pointer).snapshotId;
    },
    inclusion: async (organization, snapshotId) => {
      if (publicationLog === undefined) throw new Error('these snapshot operations were given no publication log to prove an inclusion with');
      const orgId = await organizationId(organization);
      // Checked before it names a store key: the id comes from a request's path.
      const bytes = isSnapshotId(snapshotId) ? await store.get(manifestKey(orgId, snapshotId)) : undefined;
      if (bytes === undefined) throw new SnapshotNotFoundError(`organization ${orgId} has no snapshot ${snapshotId}`);
      const manifest: AnsweringManifest = { organizationId: orgId, snapshotId, manifestHash: sha256Hex(bytes) };
      return { ...manifest, ...(await manifestInclusion(inclusionSources(store, publicationLog), manifest)) };
    },
  };
}

/**
 * `current` or a snapshot id, as every door passes one (the API has checked its form already, the
 * console and the CLI have not); anything else, a path's `../` among them, is a snapshot the
 * organization does not have, said as the store's answer would say it, before any store key is
 * made of it.
 */
function snapshotNamed(orgId: string, text: string): string {
  if (text === 'current' || isSnapshotId(text)) return text;
  throw new SnapshotNotFoundError(`organization ${orgId} has no snapshot ${text}`);
}

/** `history --json`'s entry: `current` is the console's mark, not part of the shape. */
type HistoryJson = Array<DistributiveOmit<HistoryEntry, 'current'>>;

export function historyJson(history: readonly HistoryEntry[]): HistoryJson {
  return history.map(({ current: _current, ...entry }) => entry);
}

/** `diff --json`: paths and RFC 6902 patches; the labelled field changes are the console's, not part of the shape. */
export function diffJson(diff: SnapshotDiff) {
  return { added: diff.added, removed: diff.removed, changed: diff.changed.map(({ path, patch }) => ({ path, patch })) };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
