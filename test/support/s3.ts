// A throwaway S3-protocol server for integration tests: s3rver (from npm) in this process, on a free
// loopback port, its objects in a temporary directory, with one bucket. `halt` and `resume` close
// and reopen it on the same port and data, as an object store that goes away and comes back.
// s3rver ignores conditional writes (If-Match / If-None-Match on PUT answer 200 and overwrite);
// test/support/conditional-writes.ts puts real S3's answers in front of it where a test needs them.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { newSigningKeyPem } from '../../snapshot/signing.ts';
import { freePort } from './ports.ts';

export interface TestS3 {
  /** e.g. http://127.0.0.1:41234 (S3_ENDPOINT) */
  endpoint: string;
  bucket: string;
  /** The environment a marquee process needs to use this server with `prefix` as its store. */
  env(prefix: string): Record<string, string>;
  halt(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** s3rver accepts these (and only these) credentials. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export async function startS3(bucket = 'marquee-test'): Promise<TestS3> {
  const directory = await mkdtemp(path.join(tmpdir(), 'marquee-s3-'));
  const port = await freePort();
  let server: S3rver | undefined;
  const start = async (): Promise<void> => {
    const started = new S3rver({ address: '127.0.0.1', port, directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
    await started.run();
    server = started;
  };
  const halt = async (): Promise<void> => {
    const running = server;
    server = undefined;
    if (!running) return;
    const closing = running.close();
    // Gone as a store that goes away is: every connection cut, a kept-alive one too. Closing only
    // stops accepting, and waits for open connections to end by themselves (a halt of a test on
    // Node 26 once waited longer than the test's timeout).
    (running as S3rver & { httpServer?: Server }).httpServer?.closeAllConnections();
    await closing;
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  // Builders publishing to an s3:// store sign with the one key they all share (SNAPSHOT_SIGNING_KEY).
  const signingKey = `${directory}.signing-key.pem`;
  await writeFile(signingKey, newSigningKeyPem(), { mode: 0o600 });
  return {
    endpoint,
    bucket,
    env: (prefix) => ({
      SNAPSHOT_STORE: `s3://${bucket}/${prefix}`,
      S3_ENDPOINT: endpoint,
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      AWS_REGION: 'us-east-1',
      SNAPSHOT_SIGNING_KEY: signingKey,
    }),
    halt,
    resume: start,
    async stop() {
      await halt();
      await rm(directory, { recursive: true, force: true });
      await rm(signingKey, { force: true });
    },
  };
}
