// A snapshot published by another process is served within 2 seconds (docs/design.md "Process
// model"); with a notification in the same process, from the next request on. On the embedded
// parts the other process publishes into a directory and tells nobody: the gateway finds it by
// re-reading pointers older than a second. In the production project it publishes into S3, read
// through the CDN, and announces it on Redis as a builder does: the gateway re-reads at once.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectOrganization, resourcesOf } from '../../../builder/projection/index.ts';
import type { Organization } from '../../../snapshot/schema-types.ts';
import { PUBLIC_BASE_URL, publishFixture } from '../../support/gateway-fixtures.ts';
import { usePublishedOrganization } from '../../support/gateway-world.ts';
import { PlatformFixture } from '../../support/platform-fixture.ts';
import { until } from '../../support/until.ts';

/** Published into a store a child process can publish into too. */
const world = usePublishedOrganization(
  () => {
    const fixture = new PlatformFixture();
    fixture.event({});
    return fixture;
  },
  { shared: true },
);
/** The child publisher's input files. */
let inputs: string;
beforeAll(async () => {
  inputs = await mkdtemp(join(tmpdir(), 'marquee-freshness-'));
});
afterAll(async () => {
  await rm(inputs, { recursive: true, force: true });
});

async function description(): Promise<string | null> {
  return (await world.call('/organization')).json<Organization>().description;
}

/** Publishes the fixture with `text` as description from a child process; resolves when done. */
async function publishFromAnotherProcess(text: string): Promise<number> {
  world.fixture.organization.description = text;
  const projection = projectOrganization(world.fixture.data(), { publicBaseUrl: PUBLIC_BASE_URL });
  const inputPath = join(inputs, `input-${Date.now()}.json`);
  await writeFile(
    inputPath,
    JSON.stringify({
      organizationId: world.fixture.organization.id,
      organizationSlug: world.fixture.organization.slug,
      state: 'active',
      resources: resourcesOf(projection),
      slugs: projection.slugs,
      trigger: 'manual',
      now: new Date().toISOString(),
    }),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/publish-in-child.ts', world.harness.storeLocation!, inputPath], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...world.harness.storeEnv },
  });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().startsWith('published')) resolve(performance.now());
    });
    child.on('exit', (code) => (code === 0 ? undefined : reject(new Error(`publisher exited with ${code}`))));
  });
}

describe('freshness', () => {
  it('serves a snapshot published by another process within 2 seconds', async () => {
    for (const round of [1, 2, 3]) {
      // Keep the gateway's pointer freshly read, the worst case for staleness.
      expect(await description()).not.toBe(`round ${round}`);
      const publishedAt = await publishFromAnotherProcess(`round ${round}`);
      // Asked every 20 ms for 3 s from the publish: the moment it is first served.
      const servedAt = await until(`round ${round} to be served`, async () => (await description()) === `round ${round}` && performance.now(), {
        timeoutMs: Math.max(0, publishedAt + 3_000 - performance.now()),
        intervalMs: 20,
      });
      expect(servedAt - publishedAt).toBeLessThan(2000);
    }
  });

  it('serves it from the next request on when the publish is announced', async () => {
    await description();
    world.fixture.organization.description = 'announced';
    await publishFixture(world.harness.store, world.fixture, { now: new Date() });
    await world.harness.channel.announce(world.fixture.organization.id);
    expect(await description()).toBe('announced');
  });
});
