// Admin credential benchmark (`npm run bench:admin-auth`): what a named admin credential adds to
// an admin request over ADMIN_TOKEN. The token is compared in memory; a credential is looked up
// by its hash in the platform database on every request (so a revocation refuses the very next
// one), and its last use is written at most once a minute. Measured on an admin app with the
// real check (admin/auth.ts, admin/credentials/) in front of a route that answers 204, over
// embedded PGlite and over PostgreSQL 15 (started here), each with 1,000 credentials kept.
// Requests are sent one at a time, as a person's console sends them; the two kinds alternate
// every round so a noisy neighbour hits both alike. Not a timed test: it prints medians and p95.
//
//   node --import tsx bench/admin-auth.ts [--rounds 10] [--requests 200]
import type { AddressInfo } from 'node:net';
import express from 'express';
import { ROOT_ACTOR } from '../records/actor.ts';
import { actingAs } from '../admin/acting.ts';
import { requireAdminCredential } from '../admin/auth.ts';
import { adminCredentialOperations } from '../admin/credentials/credential-admin.ts';
import { openPglite } from '../records/database/pglite.ts';
import { openPostgres } from '../records/database/postgres.ts';
import { migrateMarquee } from '../records/schema/migrate.ts';
import type { SqlClient } from '../records/database/sql.ts';
import { createDatabase, startPostgres } from '../test/support/postgres.ts';
import { machine } from './machine.ts';

const option = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  const value = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} takes a whole number ≥ 1`);
  return value;
};
const ROUNDS = option('--rounds', 10);
const REQUESTS = option('--requests', 200);
const KEPT = 1_000;
const TOKEN = 'bench-admin-token-0123456789';

async function measureOn(name: string, db: SqlClient): Promise<void> {
  await migrateMarquee(db);
  const admins = adminCredentialOperations(db);
  let secret = '';
  await actingAs({ actor: ROOT_ACTOR, door: 'cli' }, async () => {
    for (let i = 0; i < KEPT; i++) secret = (await admins.create({ name: `bench-${i}`, role: 'auditor' })).secret;
  });
  const app = express();
  app.use(requireAdminCredential({ token: TOKEN, named: admins.authenticate }));
  app.get('/x', (_req, res) => res.status(204).end());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  const timings = { token: [] as number[], credential: [] as number[] };
  const send = async (kind: keyof typeof timings, offered: string) => {
    for (let i = 0; i < REQUESTS; i++) {
      const began = performance.now();
      const answer = await fetch(url, { headers: { Authorization: `Bearer ${offered}` } });
      await answer.arrayBuffer();
      if (answer.status !== 204) throw new Error(`${kind}: ${answer.status}`);
      timings[kind].push(performance.now() - began);
    }
  };
  await send('token', TOKEN);
  await send('credential', secret);
  timings.token.length = 0;
  timings.credential.length = 0;
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      await send('token', TOKEN);
      await send('credential', secret);
    } else {
      await send('credential', secret);
      await send('token', TOKEN);
    }
  }
  server.close();
  const token = { p50: quantile(timings.token, 0.5), p95: quantile(timings.token, 0.95) };
  const credential = { p50: quantile(timings.credential, 0.5), p95: quantile(timings.credential, 0.95) };
  console.log(
    `${name.padEnd(12)} ADMIN_TOKEN p50 ${ms(token.p50)} p95 ${ms(token.p95)} | credential p50 ${ms(credential.p50)} p95 ${ms(credential.p95)} | added p50 ${ms(credential.p50 - token.p50)} p95 ${ms(credential.p95 - token.p95)}`,
  );
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const ms = (value: number) => `${value.toFixed(2).padStart(6)} ms`;

console.log(machine());
console.log(`${ROUNDS} rounds × ${REQUESTS} sequential requests of each kind, ${KEPT} credentials kept`);
const pglite = await openPglite(undefined);
try {
  await measureOn('PGlite', pglite);
} finally {
  await pglite.close();
}
const postgres = await startPostgres();
try {
  const db = await openPostgres(await createDatabase(postgres.url, 'bench_admin_auth'));
  try {
    await measureOn('PostgreSQL', db);
  } finally {
    await db.close();
  }
} finally {
  await postgres.stop();
}
