// The S3 store's two bounds in time, apart from the rest of its suite (s3-store.test.ts) because a
// second test busy on this machine's two cores could stretch them: a 64 MiB object written through
// the proxy in the test's own process within the store's 5 s request timeout, and a store that
// fails within 2 s while its server is down.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeError } from '../../../runtime/errors.ts';
import { StoreUnavailableError } from '../../../snapshot/store.ts';
import { S3Store } from '../../../snapshot/stores/s3.ts';
import { type ConditionalWritesProxy, startConditionalWrites } from '../../support/conditional-writes.ts';
import { startS3, type TestS3 } from '../../support/s3.ts';

let s3: TestS3;
let proxy: ConditionalWritesProxy;

beforeAll(async () => {
  s3 = await startS3();
  for (const [name, value] of Object.entries(s3.env(''))) if (name.startsWith('AWS_')) vi.stubEnv(name, value);
  proxy = await startConditionalWrites(s3);
});
afterAll(async () => {
  await proxy?.close();
  await s3?.stop();
  vi.unstubAllEnvs();
});

const freshPrefix = () => `bounds-${randomUUID()}`;

describe('S3Store in bounded time', () => {
  it('refuses to read an object larger than 64 MiB instead of holding it', async () => {
    const store = new S3Store({ bucket: s3.bucket, prefix: freshPrefix(), endpoint: proxy.endpoint });
    await store.put('orgs/a/objects/huge.json', Buffer.alloc(64 * 1024 * 1024 + 1, 0x20));
    const error = await store.get('orgs/a/objects/huge.json').catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(StoreUnavailableError);
    expect(describeError(error)).toMatch(/huge\.json is 67108865 bytes, more than the 67108864 a snapshot object may have: not read/);
    expect(await store.has('orgs/a/objects/huge.json')).toBe(true);
  });

  it('fails in bounded time with StoreUnavailableError while the server is down, and works again when it is back', async () => {
    const store = new S3Store({ bucket: s3.bucket, prefix: freshPrefix(), endpoint: s3.endpoint });
    await store.put('orgs/a/current.json', Buffer.from('before'));
    await s3.halt();
    try {
      for (const [name, call] of [
        ['get', () => store.get('orgs/a/current.json')],
        ['putIfVersion', () => store.putIfVersion('orgs/a/current.json', Buffer.from('x'), null)],
        ['list', () => store.list('')],
      ] as const) {
        const started = performance.now();
        const error = await call().catch((caught: unknown) => caught);
        const elapsed = performance.now() - started;
        expect(error, name).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).cause, name).toMatchObject({ code: 'ECONNREFUSED', $metadata: { attempts: 3 } });
        // Three attempts, two backoffs of at most 100 and 200 ms (50 ms base, full jitter).
        expect(elapsed, name).toBeLessThan(2_000);
        console.info(`S3Store ${name} against a halted server: StoreUnavailableError after ${elapsed.toFixed(0)} ms`);
      }
    } finally {
      await s3.resume();
    }
    expect((await store.get('orgs/a/current.json'))?.toString()).toBe('before');
  });
});
