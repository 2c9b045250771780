// The soak's bucket in a process of its own (`node --import tsx scripts/soak/bucket-child.ts PREFIX`):
// s3rver behind test/support/conditional-writes.ts (S3's semantics), as startProductionWorld runs
// them, but outside the load generator. At the soak's rate almost every request makes a gateway
// re-read its organization's pointer from the store (at most once a second per organization, and
// there are a thousand), so in the soak's own event loop s3rver would add its work to the client
// latencies being measured. Prints one JSON line (BucketInfo) once both listen; stops both and
// exits when its stdin closes (the soak ended, however it ended) or on SIGTERM.
import { startConditionalWrites } from '../../test/support/conditional-writes.ts';
import { startS3 } from '../../test/support/s3.ts';

export interface BucketInfo {
  /** The proxy: S3_ENDPOINT for the marquee processes, and the CDN's origin. */
  endpoint: string;
  bucket: string;
  /** SNAPSHOT_STORE and the credentials for PREFIX (test/support/s3.ts), before S3_ENDPOINT is pointed at the proxy. */
  env: Record<string, string>;
}

const prefix = process.argv[2];
if (!prefix) throw new Error('usage: bucket-child.ts PREFIX');
const s3 = await startS3();
const proxy = await startConditionalWrites(s3);
let stopping: Promise<void> | undefined;
const stop = () => {
  stopping ??= proxy
    .close()
    .then(() => s3.stop())
    .finally(() => process.exit(0));
  return stopping;
};
// Ctrl-C reaches the whole process group: the soak decides when the bucket goes, by closing stdin.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => void stop());
process.stdin.on('close', () => void stop());
process.stdin.resume();
const info: BucketInfo = { endpoint: proxy.endpoint, bucket: s3.bucket, env: s3.env(prefix) };
process.stdout.write(`${JSON.stringify(info)}\n`);
