// The auditors' independent verifiers, examples/verify-history.mjs and examples/verify-publication-log.mjs,
// run as an auditor runs them — `node SCRIPT …`, nothing of Marquee's loaded — on every Node line at
// hand (node-lines.ts), each of which must say the same; and what an auditor gives them besides the
// store and the checkpoints they kept: the publication log's leaves, taken from the platform
// database as the examples' header says, and a consistency proof as the log makes it. Every test
// that tampers with history gives the tampering to these, the same way.
import { execFile } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { SqlClient, SqlQueries } from '../../records/database/sql.ts';
import { databasePublicationLog } from '../../records/publication-log/log-store.ts';
import { consistencyProofDocument, proofDocumentBytes } from '../../records/publication-log/proof-documents.ts';
import { marquee } from './cli.ts';
import { nodeLines } from './node-lines.ts';

const HISTORY = fileURLToPath(new URL('../../examples/verify-history.mjs', import.meta.url));
const PUBLICATION_LOG = fileURLToPath(new URL('../../examples/verify-publication-log.mjs', import.meta.url));
const NODES = nodeLines();

export interface ExampleRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `script` with `args` on every Node line: one outcome, the same on each. */
async function onEveryNode(script: string, args: readonly string[]): Promise<ExampleRun> {
  const outcomes = await Promise.all(
    NODES.map(
      ({ command }) =>
        new Promise<ExampleRun>((resolve) => {
          execFile(command, [script, ...args], (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }));
        }),
    ),
  );
  for (const [n, outcome] of outcomes.entries()) expect({ node: NODES[n]!.version, ...outcome }).toEqual({ node: NODES[n]!.version, ...outcomes[0]! });
  return outcomes[0]!;
}

/**
 * examples/verify-history.mjs on `store` (a directory, or the CDN's http://host/bucket/prefix), of
 * `organizations` (every one when none), against the publication log's `leaves` file and the
 * checkpoints an auditor kept when given.
 */
export function verifyHistoryExample(
  store: string,
  { organizations = [], leaves, kept = [] }: { organizations?: readonly string[]; leaves?: string; kept?: readonly string[] } = {},
) {
  const log = leaves === undefined ? [] : ['--log', leaves, ...kept.flatMap((file) => ['--checkpoint', file])];
  return onEveryNode(HISTORY, [store, ...organizations, ...log]);
}

/** examples/verify-publication-log.mjs with its command line (`checkpoint …`, `inclusion …`, `consistency …`, `log …`). */
export function verifyPublicationLogExample(...args: string[]): Promise<ExampleRun> {
  return onEveryNode(PUBLICATION_LOG, args);
}

/** verify-history.mjs found the break: exit 1, and `ORG: BROKEN at AT (KIND…` among its lines. */
export function expectHistoryBreak(run: ExampleRun, { organizationId, at, kind }: { organizationId: string; at: string; kind: string }): void {
  expect({ code: run.code, broken: run.stdout.split('\n').filter((line) => line.includes('BROKEN')) }, run.stderr).toEqual({
    code: 1,
    broken: expect.arrayContaining([expect.stringContaining(`${organizationId}: BROKEN at ${at} (${kind}`)]),
  });
}

/** verify-history.mjs verified every organization it names (and the log, when given). */
export function expectHistoryVerified(run: ExampleRun): void {
  expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: expect.stringMatching(/: verified, /), stderr: '' });
  expect(run.stdout).not.toContain('BROKEN');
}

const LEAVES_SQL = "SELECT convert_from(leaf, 'UTF8') AS leaf FROM marquee_publication_log ORDER BY seq";

/**
 * The publication log's leaves as an auditor takes them (examples/verify-publication-log.mjs's
 * header), one a line, into `file`: with `marquee db sql --json` on the platform database of a
 * MARQUEE_HOME's environment, or with the same query on a database client the test holds open.
 */
export async function exportLeaves(from: Record<string, string> | Pick<SqlQueries, 'query'>, file: string): Promise<string> {
  let rows: Array<{ leaf: string }>;
  if (typeof from.query === 'function') rows = await (from as Pick<SqlQueries, 'query'>).query<{ leaf: string }>(LEAVES_SQL);
  else {
    const done = await marquee(['db', 'sql', '--json', LEAVES_SQL], from as Record<string, string>);
    expect(done, done.stderr).toMatchObject({ code: 0 });
    rows = JSON.parse(done.stdout) as Array<{ leaf: string }>;
  }
  await writeFile(file, rows.map(({ leaf }) => `${leaf}\n`).join(''));
  return file;
}

/**
 * The consistency proof file (docs/design.md "Proof files") of the log in `db` from `oldSize` to
 * `newSize` leaves, as Marquee's log gives it: what an auditor checks a kept checkpoint against a
 * newer one with (no command hands one out yet: the test takes it from the log itself).
 */
export async function writeConsistencyProof(db: SqlClient, origin: string, oldSize: number, newSize: number, file: string): Promise<string> {
  const proof = await databasePublicationLog(db).consistencyProof(oldSize, newSize);
  await writeFile(file, proofDocumentBytes(consistencyProofDocument(origin, oldSize, newSize, proof)));
  return file;
}

/** The newest checkpoint a directory store keeps (publication-log/checkpoints/), as the file an auditor gives the examples, and its size. */
export async function newestCheckpoint(store: string): Promise<{ file: string; size: number }> {
  const newest = (await readdir(join(store, 'publication-log', 'checkpoints'))).sort().at(-1)!;
  return { file: join(store, 'publication-log', 'checkpoints', newest), size: Number(newest.slice(0, 12)) };
}
