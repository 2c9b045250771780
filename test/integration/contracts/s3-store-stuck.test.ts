// The S3 store against a server that accepts connections and never answers: it gives up after its
// three request timeouts, as StoreUnavailableError. Apart from s3-store.test.ts, which runs alone
// for its tighter bounds: this one spends 15 s waiting on its own timers, whose 2 s margin a busy
// machine does not eat, so it waits beside other files.
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { StoreUnavailableError } from '../../../snapshot/store.ts';
import { S3Store } from '../../../snapshot/stores/s3.ts';

beforeAll(() => {
  // Any credentials and region will do: nothing ever answers to check them.
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'STUCK');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'STUCK');
  vi.stubEnv('AWS_REGION', 'us-east-1');
});
afterAll(() => {
  vi.unstubAllEnvs();
});

it('gives up on a server that accepts connections and never answers, after its request timeouts', async () => {
  const silent: Server = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const address = silent.address() as { port: number };
    const store = new S3Store({ bucket: 'marquee-test', prefix: 'x', endpoint: `http://127.0.0.1:${address.port}` });
    const started = performance.now();
    const error = await store.has('orgs/a/current.json').catch((caught: unknown) => caught);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError', $metadata: { attempts: 3 } });
    // Three attempts of 5 s each, and the backoffs between them.
    expect(elapsed).toBeGreaterThanOrEqual(15_000);
    expect(elapsed).toBeLessThan(17_000);
    console.info(`S3Store against a server that never answers: StoreUnavailableError after ${elapsed.toFixed(0)} ms`);
  } finally {
    silent.close();
  }
});
