// The chaos campaign's publication log line (scripts/chaos/invariants.ts checkPublicationLog): every
// history verifies with the log and since the checkpoint kept before the faults, a builder killed
// between its log append and its pointer write included. Each break of it is planted alone in the
// recorded history that keeps every invariant (campaign-history.ts) and must be caught, naming what
// broke; and the verify reports the campaign keeps are read from the product's own report shape.
import { describe, expect, it } from 'vitest';
import { verificationReport } from '../../../builder/history/verification-report.ts';
import type { OrganizationVerification } from '../../../builder/history/verify-history.ts';
import { checkAll, INVARIANTS } from '../../../scripts/chaos/invariants.ts';
import { historyVerification } from '../../../scripts/chaos/publication-log.ts';
import { A1, A_LEFT, AGAINST, expectOnly, KEPT_SIZE, planted, VERIFY_ALL, VERIFY_SINCE, validHistory } from './campaign-history.ts';

const MISSING = `the publication log records snapshot ${A_LEFT} published into this store, and no removal of it, and it is not on the verified chain from the current snapshot back: it was removed`;

describe('every history verifies with the publication log, and since the kept checkpoint', () => {
  it('judges each organization of both verifications and each builder killed between its append and its pointer', () => {
    const result = checkAll(validHistory()).find((line) => line.invariant === INVARIANTS.publicationLog)!;
    expect(result).toMatchObject({ checked: 3 + 3 + 1, violations: [], unexercised: [] });
    expect(result.notes).toEqual([
      '1 builders killed between their log append and their pointer write; 1 of their manifests never current (vouched for by the next publish), the rest current since or pruned',
      '1 manifests never current in all',
    ]);
  });

  it('catches a logged manifest deleted from the store, once though both verifications say so', () => {
    // The manifest the killed builder left, deleted: the next publish still names it, the store no longer holds it.
    expectOnly(
      planted((history) => {
        for (const verification of history.publicationLog.verifications) {
          verification.breaks = [{ organizationId: 'org-a', snapshotId: A_LEFT, kind: 'publication-missing', detail: MISSING }];
          verification.neverCurrent = [];
        }
      }),
      INVARIANTS.publicationLog,
      new RegExp(`^org-a: BROKEN at ${A_LEFT} \\(publication-missing\\): the publication log records snapshot ${A_LEFT}`),
      new RegExp(`— said by ${VERIFY_ALL} and ${VERIFY_SINCE}$`),
    );
  });

  it('catches a logged manifest that never became current taken for a break, by one verification alone', () => {
    expectOnly(
      planted((history) => {
        history.publicationLog.verifications[1]!.breaks = [
          {
            organizationId: 'org-a',
            snapshotId: A1,
            kind: 'pointer-moved-back',
            detail: `the pointer names snapshot ${A1}, but snapshot ${A_LEFT}, published after it, is in the store`,
          },
        ];
      }),
      INVARIANTS.publicationLog,
      new RegExp(`^org-a: BROKEN at ${A1} \\(pointer-moved-back\\): .* — said by ${VERIFY_SINCE}$`),
    );
  });

  it('catches a verification that left the log out, and one since another leaf than the kept checkpoint', () => {
    expectOnly(
      planted((history) => {
        history.publicationLog.verifications[0]!.against = AGAINST.replace(
          ', and every publication its publication log records',
          ' (not its publication log: the database records builds into 2 stores, and its publication log does not say which entry went where)',
        );
      }),
      INVARIANTS.publicationLog,
      new RegExp(`^${VERIFY_ALL} did not check the publication log: it checked against .*records builds into 2 stores`),
    );
    expectOnly(
      planted((history) => {
        history.publicationLog.verifications[1]!.against = `${AGAINST} from leaf 7 on`;
      }),
      INVARIANTS.publicationLog,
      new RegExp(`^${VERIFY_SINCE} checked what the log recorded from leaf 7 on, not from the kept checkpoint's ${KEPT_SIZE}$`),
    );
  });

  it('catches a kept checkpoint the log no longer extends (no verdict), and one never kept', () => {
    expectOnly(
      planted((history) => {
        history.publicationLog.verifications[1] = {
          what: VERIFY_SINCE,
          organizations: 0,
          breaks: [],
          neverCurrent: [],
          failure: `exit 1, no report: marquee: start.checkpoint: the publication log was rewritten or forked since that checkpoint: its root at 180 leaves is not the one signed`,
        };
      }),
      INVARIANTS.publicationLog,
      new RegExp(`^${VERIFY_SINCE} gave no verdict: exit 1, no report: .*rewritten or forked`),
    );
    expectOnly(
      planted((history) => {
        delete history.publicationLog.keptSize;
        history.publicationLog.verifications[1] = {
          what: 'marquee verify --all --since (a checkpoint kept before the faults)',
          organizations: 0,
          breaks: [],
          neverCurrent: [],
          failure: 'marquee checkpoint exited 1: marquee: no checkpoint: SNAPSHOT_SIGNING_KEY=none',
        };
      }),
      INVARIANTS.publicationLog,
      /^marquee verify --all --since \(a checkpoint kept before the faults\) gave no verdict: marquee checkpoint exited 1/,
    );
  });

  it("catches a killed builder's manifest the log does not hold, or could not be read for", () => {
    for (const [logged, said] of [
      [false, 'the publication log does not hold that manifest'],
      [undefined, 'the publication log could not be read'],
    ] as const) {
      expectOnly(
        planted((history) => {
          history.faults.find((fault) => fault.interrupted !== undefined)!.interrupted!.logged = logged;
        }),
        INVARIANTS.publicationLog,
        new RegExp(
          `^fault #6 kill-at-pointer on builder-1 \\(60\\.000 s–61\\.500 s\\) killed the builder at its pointer write of org-a to snapshot ${A_LEFT}, after its log append, yet ${said}$`,
        ),
      );
    }
  });

  it('fails a campaign in which no builder was killed between its log append and its pointer write', () => {
    expectOnly(
      planted((history) => {
        delete history.faults.find((fault) => fault.interrupted !== undefined)!.interrupted;
      }),
      INVARIANTS.exercised,
      new RegExp(`^${INVARIANTS.publicationLog}: no builder was killed between its log append and its pointer write$`),
    );
  });
});

describe('historyVerification', () => {
  const organization = (organizationId: string, extra: Partial<OrganizationVerification> = {}): OrganizationVerification => ({
    organizationId,
    ok: true,
    head: { snapshotId: A1, manifestHash: 'ab'.repeat(32) },
    snapshots: 2,
    stateRecords: 0,
    unsigned: 0,
    beginning: 'first',
    firstSnapshotId: A1,
    verified: [A1],
    neverCurrent: [],
    ...extra,
  });

  it("keeps a report's against, each organization's break and its never-current manifests", () => {
    const report = verificationReport({ description: 's3://marquee-chaos/marquee/api' }, `${AGAINST} from leaf ${KEPT_SIZE} on`, [
      organization('org-a', { neverCurrent: [A_LEFT] }),
      organization('org-b', { ok: false, break: { snapshotId: A1, kind: 'publication-missing', detail: MISSING } }),
      organization('org-c'),
    ]);
    expect(historyVerification(VERIFY_SINCE, { code: 1, stdout: JSON.stringify(report), stderr: '' })).toEqual({
      what: VERIFY_SINCE,
      against: `${AGAINST} from leaf ${KEPT_SIZE} on`,
      organizations: 3,
      breaks: [{ organizationId: 'org-b', snapshotId: A1, kind: 'publication-missing', detail: MISSING }],
      neverCurrent: [{ organizationId: 'org-a', snapshotId: A_LEFT }],
    });
  });

  it('says why when the command gave no report, with the attempts it took', () => {
    expect(historyVerification(VERIFY_SINCE, { code: 1, stdout: '', stderr: 'marquee: start.checkpoint: its signature does not verify\n', tried: 'attempt 2' })).toEqual({
      what: VERIFY_SINCE,
      organizations: 0,
      breaks: [],
      neverCurrent: [],
      failure: 'exit 1 (attempt 2), no report: marquee: start.checkpoint: its signature does not verify',
    });
  });
});
