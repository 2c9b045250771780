// The publication log in the campaign (docs/design.md "History as evidence"; records/publication-log/):
// - before the faults, the checkpoint an auditor would keep: `marquee checkpoint`, written to a file
//   of the campaign's output;
// - at the end, every organization's history verified with the log: `marquee verify --all --json`
//   (every publication the log records) and `marquee verify --all --since` that file (the kept
//   checkpoint extended by the log as it is now, and everything logged since in the store), each
//   report kept as its breaks and the manifests it counted as never current
//   (historyVerification, pure);
// - whether the log holds each manifest a builder killed at its pointer write left behind
//   (faults.ts 'kill-at-pointer'): the kill landed between its log append and its pointer.
// The judgement is invariants.ts checkPublicationLog's.
import { writeFile } from 'node:fs/promises';
import type { VerificationReport } from '../../builder/history/verification-report.ts';
import { databasePublicationLog } from '../../records/publication-log/log-store.ts';
import type { CliRun } from '../../test/support/cli.ts';
import { verifying } from './final.ts';
import type { AppliedFault, HistoryVerification } from './history.ts';
import type { ChaosWorld } from './world.ts';

/** Writes the log's signed checkpoint, as `marquee checkpoint --json` gives it, to `file`; its size, or why there is none. */
export async function keepCheckpoint(world: ChaosWorld, file: string): Promise<{ size: number } | { problem: string }> {
  const done = await world.cli(['checkpoint', '--json']);
  if (done.code !== 0) return { problem: `marquee checkpoint exited ${done.code}: ${done.stderr.trim().slice(0, 300)}` };
  const { size, note } = JSON.parse(done.stdout) as { size: number; note: string };
  await writeFile(file, note);
  return { size };
}

/** `verify --all`, and `verify --all --since keptFile` when a checkpoint was kept (else that one's failure says why not). */
export async function verifyHistories(world: ChaosWorld, kept: { file: string } | { problem: string }): Promise<HistoryVerification[]> {
  const verify = async (args: string[]) => historyVerification(`marquee ${args.join(' ')}`, await verifying(world, args));
  const all = verify(['verify', '--all', '--json']);
  const since =
    'file' in kept
      ? verify(['verify', '--all', '--since', kept.file, '--json'])
      : { what: 'marquee verify --all --since (a checkpoint kept before the faults)', organizations: 0, breaks: [], neverCurrent: [], failure: kept.problem };
  return Promise.all([all, since]);
}

/** What the campaign keeps of one `verify --json` run: its report's against, breaks and never-current manifests; without a report, its exit and output. */
export function historyVerification(what: string, run: CliRun & { tried?: string }): HistoryVerification {
  let report: Partial<VerificationReport> | undefined;
  try {
    report = JSON.parse(run.stdout) as Partial<VerificationReport>;
  } catch {
    report = undefined;
  }
  if (report === undefined || !Array.isArray(report.organizations) || typeof report.against !== 'string') {
    const tried = run.tried === undefined ? '' : ` (${run.tried})`;
    return { what, organizations: 0, breaks: [], neverCurrent: [], failure: `exit ${run.code}${tried}, no report: ${(run.stdout + run.stderr).trim().slice(0, 500)}` };
  }
  const organizations = report.organizations;
  return {
    what,
    against: report.against,
    organizations: organizations.length,
    breaks: organizations.flatMap(({ organizationId, break: found }) => (found === undefined ? [] : [{ organizationId, ...found }])),
    neverCurrent: organizations.flatMap(({ organizationId, neverCurrent }) => neverCurrent.map((snapshotId) => ({ organizationId, snapshotId }))),
  };
}

/** Sets `interrupted.logged` of each kill at the pointer: whether the log holds the manifest it kept from becoming current (left undefined when the log cannot be read). */
export async function markLogged(world: ChaosWorld, faults: readonly AppliedFault[]): Promise<void> {
  const log = databasePublicationLog(world.db);
  for (const { interrupted } of faults) {
    if (interrupted === undefined) continue;
    const entries = await log.entriesOf(interrupted.organizationId).catch(() => undefined);
    if (entries !== undefined) interrupted.logged = entries.some(({ entry }) => entry.kind === 'manifest' && entry.id === interrupted.snapshotId);
  }
}
