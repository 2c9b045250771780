// FileKeyStore beyond the KeyStore contract (test/contracts/key-store.ts, run on the key file by
// test/integration/contracts/key-store.test.ts): what it keeps on disk, how it notices another
// process's change, and its lock file.
import { execFile } from 'node:child_process';
import { readFile, rename, stat, utimes, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileKeyStore } from '../../../../records/keys/file-store.ts';
import { hashSecret } from '../../../../records/keys/format.ts';
import { issueKey, temporaryKeyFile, type TemporaryKeyFile } from '../../../support/keys.ts';

const ORG = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
const OTHER_ORG = '9f8e7d6c-5b4a-4321-8fed-cba987654321';

let file: TemporaryKeyFile;
beforeEach(async () => {
  file = await temporaryKeyFile();
});
afterEach(async () => {
  await file.remove();
});

describe('FileKeyStore', () => {
  it('lists keys in the order they were created', async () => {
    const store = file.open();
    const a = await issueKey(store, { organizationId: ORG });
    const b = await issueKey(file.open(), { organizationId: OTHER_ORG });
    const c = await issueKey(store, { organizationId: ORG });
    expect((await store.list()).map((r) => r.id)).toEqual([a.record.id, b.record.id, c.record.id]);
    expect((await store.list(ORG)).map((r) => r.id)).toEqual([a.record.id, c.record.id]);
  });

  it('keeps only the hash on disk, in a file only its owner can read', async () => {
    const store = file.open();
    const { secret, record } = await issueKey(store, { organizationId: ORG });
    const text = await readFile(file.path, 'utf8');
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(4, 34));
    expect(text).toContain(record.secretHash);
    expect((await stat(file.path)).mode & 0o777).toBe(0o600);
  });

  it('notices a same-size replacement with an unchanged mtime (by its new inode)', async () => {
    const gateway = file.open();
    const { record } = await issueKey(gateway, { organizationId: ORG, label: 'a' });
    await gateway.findBySecretHash(record.secretHash);
    const before = await stat(file.path);
    // What a writer does (temp file + rename), with content of the same size and the old mtime.
    const text = await readFile(file.path, 'utf8');
    await writeFile(`${file.path}.tmp`, text.replace('"label": "a"', '"label": "b"'));
    await rename(`${file.path}.tmp`, file.path);
    await utimes(file.path, before.atime, before.mtime);
    const after = await stat(file.path, { bigint: true });
    expect(after.size).toBe(BigInt(before.size));

    expect((await gateway.findBySecretHash(record.secretHash))?.label).toBe('b');
  });

  it('loses no key when separate OS processes create at the same time', async () => {
    const script = fileURLToPath(new URL('../../../support/key-file.script.ts', import.meta.url));
    const run = promisify(execFile);
    const outputs = await Promise.all([0, 1, 2].map(() => run(process.execPath, ['--import', 'tsx', script, file.path, 'create', ORG, '10'])));
    const created = outputs.flatMap(({ stdout }) => stdout.trim().split('\n'));
    expect(created).toHaveLength(30);
    const listed = await file.open().list();
    expect(listed.map((r) => r.id).sort()).toEqual(created.sort());
  });

  it('takes over a lock left by a crashed writer once it is stale', async () => {
    await writeFile(`${file.path}.lock`, '12345\n');
    const old = new Date(Date.now() - 60_000);
    await utimes(`${file.path}.lock`, old, old);
    const { record } = await issueKey(file.open(), { organizationId: ORG });
    expect((await file.open().list()).map((r) => r.id)).toEqual([record.id]);
  });

  it('gives up on a live lock after its timeout: broken infrastructure throws', async () => {
    await writeFile(`${file.path}.lock`, '12345\n');
    const store = new FileKeyStore(file.path, { lockTimeoutMs: 50 });
    await expect(issueKey(store, { organizationId: ORG })).rejects.toThrow(/could not take the lock/);
  });

  it('throws on a corrupt file rather than serving as if no key existed', async () => {
    await writeFile(file.path, '{"format":1,"keys":[{"id":1}]}');
    expect(() => file.open().findBySecretHash(hashSecret('x'))).toThrow(/not a key file/);
    await writeFile(file.path, 'not json');
    await expect(file.open().list()).rejects.toThrow(/not valid JSON/);
  });
});
