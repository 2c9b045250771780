// The gateways' leases on the key file (records/keys/key-file-leases.ts): a gateway answers from
// memory while its lease holds, and yet a change made by another process applies from the next
// lookup after the writer returned — because the writer waits for every live lease. A stalled
// gateway holds a writer no longer than its lease; a dead one, not at all once its lease ran out.
import { execFile } from 'node:child_process';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { awaitReaders, LEASE_MS, readersDirectory } from '../../../../records/keys/key-file-leases.ts';
import { FileKeyStore } from '../../../../records/keys/file-store.ts';
import { issueKey, temporaryKeyFile, type TemporaryKeyFile } from '../../../support/keys.ts';
import { until } from '../../../support/until.ts';

const ORG = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
const script = fileURLToPath(new URL('../../../support/key-file.script.ts', import.meta.url));
const run = promisify(execFile);

let file: TemporaryKeyFile;
let gateways: FileKeyStore[];
beforeEach(async () => {
  file = await temporaryKeyFile();
  gateways = [];
});
afterEach(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  await file.remove();
});

async function leasedGateway(): Promise<FileKeyStore> {
  const gateway = file.open();
  await gateway.holdLease();
  gateways.push(gateway);
  return gateway;
}

/** A lease file as a reader that stopped renewing left it. */
async function frozenLease(seen: number, leaseUntil: number): Promise<void> {
  await mkdir(readersDirectory(file.path), { recursive: true });
  await writeFile(join(readersDirectory(file.path), `999999-frozen.json`), JSON.stringify({ pid: 999999, seen, leaseUntil }));
}

it('refuses a key revoked by another OS process from the first lookup after that process exits, on two leased gateways, every time', async () => {
  const [a, b] = [await leasedGateway(), await leasedGateway()];
  const keys = await Promise.all([0, 1, 2].map(() => issueKey(file.open(), { organizationId: ORG })));
  for (const { record } of keys) {
    // Memory answers: both gateways hold their leases and have the key.
    expect([a.findBySecretHash(record.secretHash)?.revokedAt, b.findBySecretHash(record.secretHash)?.revokedAt]).toEqual([null, null]);
    await run(process.execPath, ['--import', 'tsx', script, file.path, 'revoke', record.id]);
    expect([a.findBySecretHash(record.secretHash)?.revokedAt, b.findBySecretHash(record.secretHash)?.revokedAt]).toEqual([expect.any(String), expect.any(String)]);
  }
  // A key created by another process is served at once too.
  const [created] = (await run(process.execPath, ['--import', 'tsx', script, file.path, 'create', ORG, '1'])).stdout.trim().split('\n');
  expect(a.findBySecretHash((await file.open().findById(created!))!.secretHash)?.id).toBe(created);
});

it('waits for a gateway that stopped renewing until its lease has run out', async () => {
  const gateway = await leasedGateway();
  const { record } = await issueKey(file.open(), { organizationId: ORG });
  const leaseUntil = Date.now() + 400;
  await frozenLease(0, leaseUntil);
  await file.open().revoke(record.id, new Date());
  // Never before the stalled reader's lease ran out: until then it may still answer from memory.
  expect(Date.now()).toBeGreaterThan(leaseUntil);
  expect(gateway.findBySecretHash(record.secretHash)?.revokedAt).not.toBeNull();
});

it('gives up on a reader that renews without applying the change, naming its process; the change is kept', async () => {
  const { record } = await issueKey(file.open(), { organizationId: ORG });
  await frozenLease(0, Date.now() + 60_000);
  await expect(awaitReaders(file.path, 5, { timeoutMs: 100 })).rejects.toThrow(/gateway process 999999 did not apply it within 100 ms/);
  await rm(readersDirectory(file.path), { recursive: true });
  expect(await file.open().revoke(record.id, new Date())).toBe(true);
});

it('ignores a dead reader whose lease ran out, and removes its file once it is a minute old', async () => {
  await frozenLease(0, Date.now() - 10);
  const started = performance.now();
  await issueKey(file.open(), { organizationId: ORG });
  expect(performance.now() - started).toBeLessThan(LEASE_MS);
  expect(await readdir(readersDirectory(file.path))).toEqual(['999999-frozen.json']);
  await frozenLease(0, Date.now() - 61_000);
  await issueKey(file.open(), { organizationId: ORG });
  expect(await readdir(readersDirectory(file.path))).toEqual([]);
});

it('gives its lease back on close, and a reader whose renewals fail checks the file on every lookup', async () => {
  const failures: unknown[] = [];
  const gateway = new FileKeyStore(file.path, { onLeaseError: (error) => failures.push(error) });
  gateways.push(gateway);
  await gateway.holdLease();
  expect(await readdir(readersDirectory(file.path))).toHaveLength(1);
  const { record } = await issueKey(file.open(), { organizationId: ORG });
  // Its lease file cannot be written any more: renewals fail. Five failed renewals, a quarter of a
  // lease apart, come after the last good one by more than a lease: it has run out.
  await rm(readersDirectory(file.path), { recursive: true });
  await writeFile(readersDirectory(file.path), 'not a directory');
  await until('five failed renewals', () => failures.length >= 5);
  await file.open().revoke(record.id, new Date());
  expect(gateway.findBySecretHash(record.secretHash)?.revokedAt).not.toBeNull();
  await rm(readersDirectory(file.path));
  await mkdir(readersDirectory(file.path));
  await until('a renewal once the directory is back', async () => (await readdir(readersDirectory(file.path))).length === 1);
  await gateway.close();
  expect(await readdir(readersDirectory(file.path))).toEqual([]);
});
