// npm run bench:publication-log — the publication log's proofs at 1,000,000 leaves, its appends on
// PostgreSQL 15, and `verify --since` a kept checkpoint at 10,000 organizations.
//
// proofs: 1,000,000 synthetic leaves (BENCH_LOG_LEAVES), each a real entry's canonical JSON, their
//   perfect subtrees built in memory as the store keeps them (one buffer per level); then 1,000
//   inclusion proofs of random leaves and 1,000 consistency proofs from random older sizes, each
//   made from the subtrees and checked by RFC 9162's algorithms: the proof file's size in bytes
//   (records/publication-log/proof-documents.ts) — target ≤ 4 KiB, "a few KB" — and the check's
//   time, p50 and p95 — target ≤ 5 ms.
// appends: a log of 100,000 entries (BENCH_LOG_PREFILL) on PostgreSQL, then 500 appends of one
//   entry (a publish's manifest), one after the other, p50 and p95 — target ≤ 25 ms — and an
//   inclusion and a consistency proof read from the database, p95.
// publish: what the log adds to a publish (builder/publish.ts), on that log of 100,000+ entries:
//   300 publishes of a new snapshot of one of 50 organizations into a directory store, alternately
//   with the log and without; the manifest's append as publish makes it, p50 and p95 — target
//   ≤ 5 ms — and each whole publish's p50 and p95 with and without, for the difference.
// verify --since: a platform of 10,000 organizations (BENCH_VERIFY_ORGANIZATIONS) in a database of
//   its own, each built once into a directory store with the log and signed (6 resources each), the
//   log's checkpoint kept with `marquee checkpoint`, then 1,000 publications since
//   (BENCH_VERIFY_SINCE, new snapshots of as many organizations); the real CLI timed from spawn to
//   exit, VERIFY_RUNS times each, interleaved: `verify --all --since` the kept checkpoint — median
//   reported, with the load average around it for the machine's noise — beside `verify --all`
//   (the whole log) and `verify --org --since` (one organization). Each must find no break. The CLI
//   is the compiled product: dist/ is built first when stale (test/support/build-product.ts).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { mapConcurrently } from '../builder/concurrently.ts';
import { migrate } from '../builder/platform/migrations.ts';
import { publish } from '../builder/publish.ts';
import { serializeResources } from '../builder/serialize.ts';
import { newSigningKeyPem, type Signer, signerFromPem } from '../snapshot/signing.ts';
import { DirectoryStore } from '../snapshot/stores/directory.ts';
import { openPostgres } from '../records/database/postgres.ts';
import type { SqlClient } from '../records/database/sql.ts';
import { leafBytes, logEntry } from '../records/publication-log/log-entry.ts';
import { databasePublicationLog, type PublicationLog } from '../records/publication-log/log-store.ts';
import {
  consistencyProof,
  HASH_BYTES,
  inclusionProof,
  leafHash,
  nodeHash,
  rangeHash,
  type SubtreeReader,
  verifyConsistency,
  verifyInclusion,
} from '../records/publication-log/merkle.ts';
import { consistencyProofDocument, inclusionProofDocument, proofDocumentBytes } from '../records/publication-log/proof-documents.ts';
import { migrateMarquee } from '../records/schema/migrate.ts';
import buildProduct from '../test/support/build-product.ts';
import { logRecord, logRecords } from '../test/support/publication-log.ts';
import { createDatabase, startPostgres } from '../test/support/postgres.ts';
import { reportChecks } from './checks.ts';
import { machine } from './machine.ts';

const LEAVES = Number(process.env.BENCH_LOG_LEAVES ?? 1_000_000);
const PREFILL = Number(process.env.BENCH_LOG_PREFILL ?? 100_000);
const PROOFS = 1000;
const APPENDS = 500;
const PUBLISHES = 300;
const VERIFY_ORGANIZATIONS = Number(process.env.BENCH_VERIFY_ORGANIZATIONS ?? 10_000);
const PUBLISHED_SINCE = Math.min(Number(process.env.BENCH_VERIFY_SINCE ?? 1_000), VERIFY_ORGANIZATIONS);
const VERIFY_RUNS = 3;
const MARQUEE = fileURLToPath(new URL('../bin/marquee', import.meta.url));
const ORIGIN = 'cdn.example.com/marquee/publication-log';
const AT = new Date('2026-11-26T12:00:00.000Z');

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const ms = (value: number) => `${value.toFixed(3)} ms`;
/** Deterministic: the same proofs every run. */
let seed = 12345;
const random = (below: number) => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return Math.floor((seed / 2 ** 31) * below);
};

console.log(`bench:publication-log — ${machine()}`);
const checks: Array<[string, boolean]> = [];

// ---- proofs at a million leaves, in memory ---------------------------------------------------------

let started = performance.now();
// levels[l] holds the hashes of the perfect subtrees of level l, one after the other.
const levels: Buffer[] = [Buffer.allocUnsafe(LEAVES * HASH_BYTES)];
for (let index = 0; index < LEAVES; index++) leafHash(leafBytes(logEntry(logRecord(index), AT))).copy(levels[0]!, index * HASH_BYTES);
for (let count = Math.floor(LEAVES / 2); count >= 1; count = Math.floor(count / 2)) {
  const below = levels.at(-1)!;
  const level = Buffer.allocUnsafe(count * HASH_BYTES);
  for (let index = 0; index < count; index++) {
    nodeHash(below.subarray(2 * index * HASH_BYTES, (2 * index + 1) * HASH_BYTES), below.subarray((2 * index + 1) * HASH_BYTES, (2 * index + 2) * HASH_BYTES)).copy(
      level,
      index * HASH_BYTES,
    );
  }
  levels.push(level);
}
const read: SubtreeReader = (level, index) => {
  const hashes = levels[level];
  return hashes === undefined || (index + 1) * HASH_BYTES > hashes.length ? undefined : hashes.subarray(index * HASH_BYTES, (index + 1) * HASH_BYTES);
};
const subtreeCount = levels.reduce((sum, level) => sum + level.length / HASH_BYTES, 0);
console.log(`\n${LEAVES.toLocaleString('en')} leaves and ${subtreeCount.toLocaleString('en')} perfect subtrees built in ${(performance.now() - started).toFixed(0)} ms`);

const root = rangeHash(0, LEAVES, read);
const inclusionSizes: number[] = [];
const inclusionHashes: number[] = [];
const inclusionMake: number[] = [];
const inclusionCheck: number[] = [];
for (let run = 0; run < PROOFS; run++) {
  const index = random(LEAVES);
  started = performance.now();
  const proof = inclusionProof(index, LEAVES, read);
  inclusionMake.push(performance.now() - started);
  const leaf = leafBytes(logEntry(logRecord(index), AT));
  inclusionSizes.push(proofDocumentBytes(inclusionProofDocument(ORIGIN, LEAVES, { seq: index, leaf }, proof)).length);
  inclusionHashes.push(proof.length);
  started = performance.now();
  const holds = verifyInclusion(index, LEAVES, leafHash(leaf), proof, root);
  inclusionCheck.push(performance.now() - started);
  if (!holds) throw new Error(`the inclusion proof of leaf ${index} does not verify`);
}

const consistencySizes: number[] = [];
const consistencyHashes: number[] = [];
const consistencyMake: number[] = [];
const consistencyCheck: number[] = [];
for (let run = 0; run < PROOFS; run++) {
  const oldSize = 1 + random(LEAVES - 1);
  const oldRoot = rangeHash(0, oldSize, read);
  started = performance.now();
  const proof = consistencyProof(oldSize, LEAVES, read);
  consistencyMake.push(performance.now() - started);
  consistencySizes.push(proofDocumentBytes(consistencyProofDocument(ORIGIN, oldSize, LEAVES, proof)).length);
  consistencyHashes.push(proof.length);
  started = performance.now();
  const holds = verifyConsistency(oldSize, LEAVES, oldRoot, root, proof);
  consistencyCheck.push(performance.now() - started);
  if (!holds) throw new Error(`the consistency proof from ${oldSize} leaves does not verify`);
}

const row = (name: string, sizes: number[], hashes: number[], make: number[], check: number[]) =>
  console.log(
    `${name.padEnd(12)} file ${Math.max(...sizes)} B max (${Math.max(...hashes)} hashes, ${Math.max(...hashes) * HASH_BYTES} B raw)  ` +
      `make p50 ${ms(percentile(make, 50))} p95 ${ms(percentile(make, 95))}  check p50 ${ms(percentile(check, 50))} p95 ${ms(percentile(check, 95))}`,
  );
console.log(`\nproofs at ${LEAVES.toLocaleString('en')} leaves, ${PROOFS} of each:`);
row('inclusion', inclusionSizes, inclusionHashes, inclusionMake, inclusionCheck);
row('consistency', consistencySizes, consistencyHashes, consistencyMake, consistencyCheck);
checks.push([`an inclusion proof file at ${LEAVES.toLocaleString('en')} leaves ≤ 4 KiB (${Math.max(...inclusionSizes)} B)`, Math.max(...inclusionSizes) <= 4096]);
checks.push([`a consistency proof file at ${LEAVES.toLocaleString('en')} leaves ≤ 4 KiB (${Math.max(...consistencySizes)} B)`, Math.max(...consistencySizes) <= 4096]);
checks.push([`an inclusion check p95 ≤ 5 ms (${ms(percentile(inclusionCheck, 95))})`, percentile(inclusionCheck, 95) <= 5]);
checks.push([`a consistency check p95 ≤ 5 ms (${ms(percentile(consistencyCheck, 95))})`, percentile(consistencyCheck, 95) <= 5]);
levels.length = 0;

// ---- appends on PostgreSQL -------------------------------------------------------------------------

const postgres = await startPostgres();
const db = await openPostgres(postgres.url);
try {
  await migrateMarquee(db);
  const log = databasePublicationLog(db);
  started = performance.now();
  const BATCH = 2000;
  for (let from = 0; from < PREFILL; from += BATCH) await log.append(logRecords(from, Math.min(BATCH, PREFILL - from)));
  console.log(`\nPostgreSQL: ${PREFILL.toLocaleString('en')} entries appended in batches of ${BATCH} in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const appends: number[] = [];
  for (let run = 0; run < APPENDS; run++) {
    const record = logRecord(PREFILL + run);
    started = performance.now();
    await log.append([record]);
    appends.push(performance.now() - started);
  }
  const size = await log.size();
  const inclusionReads: number[] = [];
  const consistencyReads: number[] = [];
  for (let run = 0; run < 100; run++) {
    started = performance.now();
    await log.inclusionProof(random(size), size);
    inclusionReads.push(performance.now() - started);
    started = performance.now();
    await log.consistencyProof(1 + random(size - 1), size);
    consistencyReads.push(performance.now() - started);
  }
  console.log(
    `append of one entry at ${PREFILL.toLocaleString('en')}+ entries, ${APPENDS} one after the other: p50 ${ms(percentile(appends, 50))}, p95 ${ms(percentile(appends, 95))}, max ${ms(Math.max(...appends))}`,
  );
  console.log(
    `proof read from the database at ${size.toLocaleString('en')} entries, p95: inclusion ${ms(percentile(inclusionReads, 95))}, consistency ${ms(percentile(consistencyReads, 95))}`,
  );
  checks.push([`an append's p95 on PostgreSQL ≤ 25 ms (${ms(percentile(appends, 95))})`, percentile(appends, 95) <= 25]);

  // What a publish pays for its manifest's leaf: the append it makes, timed inside the publish.
  const storeDir = await mkdtemp(join(tmpdir(), 'marquee-bench-log-'));
  try {
    const store = new DirectoryStore(storeDir);
    const added: number[] = [];
    const timed: PublicationLog = {
      ...log,
      async append(records) {
        const at = performance.now();
        const seqs = await log.append(records);
        added.push(performance.now() - at);
        return seqs;
      },
    };
    const withLog: number[] = [];
    const withoutLog: number[] = [];
    for (let run = 0; run < PUBLISHES; run++) {
      const organizationId = `${String(run % 50).padStart(8, '0')}-6f1a-4d7e-9a1b-2c3d4e5f6a7b`;
      const input = {
        organizationId,
        organizationSlug: `org-${run % 50}`,
        state: 'active' as const,
        trigger: 'schedule' as const,
        slugs: {},
        objects: serializeResources([{ path: '/organization', value: { id: organizationId, version: run } }]),
        now: new Date(AT.getTime() + run),
        builderVersion: 'bench',
        durationMs: 0,
      };
      started = performance.now();
      await publish(store, run % 2 === 0 ? { ...input, publicationLog: timed } : input);
      (run % 2 === 0 ? withLog : withoutLog).push(performance.now() - started);
    }
    console.log(
      `publish into a directory store, ${PUBLISHES} alternately: the manifest's append p50 ${ms(percentile(added, 50))}, p95 ${ms(percentile(added, 95))}; ` +
        `whole publish with the log p50 ${ms(percentile(withLog, 50))} p95 ${ms(percentile(withLog, 95))}, without p50 ${ms(percentile(withoutLog, 50))} p95 ${ms(percentile(withoutLog, 95))}`,
    );
    checks.push([`a publish's added latency (its append) p95 on PostgreSQL ≤ 5 ms (${ms(percentile(added, 95))})`, percentile(added, 95) <= 5]);
  } finally {
    await rm(storeDir, { recursive: true, force: true });
  }

  await verifySince(await createDatabase(postgres.url, 'verify_since'));
} finally {
  await db.close();
  await postgres.stop();
}

reportChecks(checks);

// ---- verify --since at 10,000 organizations -----------------------------------------------------

/** Organization `n`'s id, as the platform's row and the store name it. */
function organizationUuid(n: number): string {
  return `00000001-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** Organization `n`'s resources at `version`: its profile, team, three events and their details; event 0 renamed per version. */
function organizationResources(n: number, version: number) {
  const id = organizationUuid(n);
  const events = [0, 1, 2].map((index) => ({
    id: `00000002-0000-4000-8000-${(n * 3 + index).toString(16).padStart(12, '0')}`,
    name: `Event ${index}${index === 0 ? ` v${version}` : ''}`,
  }));
  return serializeResources([
    { path: '/organization', value: { id, name: `Organization ${n}` } },
    { path: '/team', value: [{ id: `00000003-0000-4000-8000-${n.toString(16).padStart(12, '0')}`, fullName: 'A. Person' }] },
    { path: '/events', value: events },
    ...events.map((event) => ({ path: `/events/${event.id}`, value: event })),
  ]);
}

/** Publishes `version` of each organization in `indexes` as a build does: signed, logged before its pointer. */
async function publishVersion(store: DirectoryStore, log: PublicationLog, signer: Signer, indexes: readonly number[], version: number): Promise<void> {
  await mapConcurrently(indexes, 8, async (n) => {
    await publish(store, {
      organizationId: organizationUuid(n),
      organizationSlug: `org-${n}`,
      state: 'active',
      trigger: version === 0 ? 'schedule' : 'change',
      slugs: {},
      objects: organizationResources(n, version),
      now: new Date(AT.getTime() + version * 3_600_000 + n),
      builderVersion: 'bench',
      durationMs: 0,
      signer,
      publicationLog: log,
    });
  });
}

async function verifySince(databaseUrl: string): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'marquee-bench-verify-since-'));
  const vdb: SqlClient = await openPostgres(databaseUrl);
  try {
    await migrate(vdb);
    const storePath = join(work, 'snapshots');
    const store = new DirectoryStore(storePath);
    const keyFile = join(work, 'signing-key.pem');
    const pem = newSigningKeyPem();
    await writeFile(keyFile, pem, { mode: 0o600 });
    const signer = signerFromPem(pem, keyFile);
    const log = databasePublicationLog(vdb);
    const all = Array.from({ length: VERIFY_ORGANIZATIONS }, (_, n) => n);
    await vdb.query(
      `INSERT INTO organizations (id, name, slug)
       SELECT ('00000001-0000-4000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, 'Organization ' || n, 'org-' || n FROM generate_series(0, $1::int - 1) AS n`,
      [VERIFY_ORGANIZATIONS],
    );
    let started = performance.now();
    await publishVersion(store, log, signer, all, 0);
    // What each build records: the organization was built into this store, whose log this then is.
    await vdb.query(
      `INSERT INTO marquee_built_versions (store, organization_id, source_version, projection_version, built_at) SELECT $1, id, 0, 'bench', now() FROM organizations`,
      [store.description],
    );
    console.log(
      `\nverify --since: ${VERIFY_ORGANIZATIONS.toLocaleString('en')} organizations built once into a directory store, signed and logged, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    buildProduct();
    const env = { ...process.env, DATABASE_URL: databaseUrl, SNAPSHOT_STORE: storePath, MARQUEE_HOME: work, SNAPSHOT_SIGNING_KEY: keyFile };
    const cli = async (args: string[]) => {
      const began = performance.now();
      const done = await promisify(execFile)(MARQUEE, args, { env, maxBuffer: 64 << 20 }).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
      const code = 'code' in done && typeof done.code === 'number' ? done.code : 0;
      return { ms: performance.now() - began, code, stdout: String(done.stdout ?? ''), stderr: String(done.stderr ?? '') };
    };
    const kept = await cli(['checkpoint']);
    if (kept.code !== 0) throw new Error(`marquee checkpoint exited ${kept.code}: ${kept.stderr}`);
    const keptFile = join(work, 'kept.checkpoint');
    await writeFile(keptFile, kept.stdout);
    const keptSize = await log.size();

    // Publications since the kept checkpoint: a new snapshot of every (N / since)th organization.
    const since = all.filter((n) => n % Math.floor(VERIFY_ORGANIZATIONS / PUBLISHED_SINCE) === 0).slice(0, PUBLISHED_SINCE);
    started = performance.now();
    await publishVersion(store, log, signer, since, 1);
    console.log(
      `checkpoint kept at ${keptSize.toLocaleString('en')} leaves; ${since.length.toLocaleString('en')} publications since in ${((performance.now() - started) / 1000).toFixed(1)} s; the log now ${(await log.size()).toLocaleString('en')} leaves`,
    );

    const one = organizationUuid(since[0]!);
    const commands = {
      since: ['verify', '--all', '--since', keptFile],
      all: ['verify', '--all'],
      one: ['verify', '--org', one, '--since', keptFile],
    } as const;
    const times: Record<keyof typeof commands, number[]> = { since: [], all: [], one: [] };
    const exits: Record<keyof typeof commands, number[]> = { since: [], all: [], one: [] };
    const load = [loadavg()[0]!];
    // Interleaved, so that each command meets the machine's moods alike; the first --since also writes the current checkpoint.
    for (let run = 0; run < VERIFY_RUNS; run++) {
      for (const name of ['since', 'all', 'one'] as const) {
        const done = await cli([...commands[name]]);
        if (run === 0) console.log(`marquee ${commands[name].join(' ')}: exit ${done.code}; ${(done.stdout + done.stderr).trim().split('\n').at(-1)?.slice(0, 200)}`);
        times[name].push(done.ms);
        exits[name].push(done.code);
      }
      load.push(loadavg()[0]!);
    }
    const said = { since: 'verify --all --since kept.checkpoint', all: 'verify --all', one: 'verify --org ID --since kept.checkpoint' };
    for (const name of ['since', 'all', 'one'] as const)
      checks.push([
        `marquee ${said[name]} at ${VERIFY_ORGANIZATIONS.toLocaleString('en')} organizations finds no break (exits ${exits[name].join(', ')})`,
        exits[name].every((code) => code === 0),
      ]);
    const seconds = (values: number[]) => `${(percentile(values, 50) / 1000).toFixed(2)} s`;
    const each = (values: number[]) => values.map((value) => (value / 1000).toFixed(2)).join(', ');
    console.log(
      `\n| command (${VERIFY_ORGANIZATIONS.toLocaleString('en')} organizations, ${since.length.toLocaleString('en')} publications since the checkpoint) | median of ${VERIFY_RUNS} | runs (s) |\n|---|---|---|`,
    );
    console.log(`| marquee ${said.since} | ${seconds(times.since)} | ${each(times.since)} |`);
    console.log(`| marquee ${said.all} (reference: the whole log) | ${seconds(times.all)} | ${each(times.all)} |`);
    console.log(`| marquee ${said.one} | ${seconds(times.one)} | ${each(times.one)} |`);
    console.log(`load average (1 min) before and after each round: ${load.map((value) => value.toFixed(2)).join(', ')}`);
  } finally {
    await vdb.close();
    await rm(work, { recursive: true, force: true });
  }
}
