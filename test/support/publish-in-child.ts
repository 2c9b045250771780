// Run as a separate process (`node --import tsx test/support/publish-in-child.ts STORE INPUT.json`):
// publishes one snapshot, like a builder process would, and prints "published" once the pointer
// is in place. STORE is a directory, or s3://bucket/prefix with S3_ENDPOINT and the AWS_*
// credentials in the environment; with PUBLISH_CHANNEL_URL and PUBLISH_CHANNEL_NAME it announces
// the publish on that Redis channel too. Used to prove cross-process freshness, and to kill a publish.
import { readFile } from 'node:fs/promises';
import { publishSnapshot } from '../../builder/publish.ts';
import type { SnapshotStore } from '../../snapshot/store.ts';
import { DirectoryStore } from '../../snapshot/stores/directory.ts';
import { S3Store } from '../../snapshot/stores/s3.ts';
import { RedisPublishChannel } from '../../snapshot/redis-channel.ts';

function openStore(location: string): SnapshotStore {
  if (!location.startsWith('s3://')) return new DirectoryStore(location);
  const url = new URL(location);
  return new S3Store({ bucket: url.host, prefix: url.pathname.slice(1), endpoint: process.env.S3_ENDPOINT });
}

const [location, inputPath] = process.argv.slice(2);
if (!location || !inputPath) throw new Error('usage: publish-in-child.ts STORE INPUT.json');
const input = JSON.parse(await readFile(inputPath, 'utf8')) as Parameters<typeof publishSnapshot>[1] & { now: string };
const outcome = await publishSnapshot(openStore(location), { ...input, now: new Date(input.now) });
// As a builder with REDIS_URL does: the gateways hear of it at once.
const { PUBLISH_CHANNEL_URL: channelUrl, PUBLISH_CHANNEL_NAME: channelName } = process.env;
if (channelUrl && channelName) {
  const channel = new RedisPublishChannel(channelUrl, { name: channelName, log: { info: () => {}, warn: console.warn, error: console.error } });
  await channel.announce(input.organizationId);
  await channel.close();
}
process.stdout.write(`published ${outcome.snapshotId}\n`);
