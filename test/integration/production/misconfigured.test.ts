// Production settings that point at nothing: the process says which variable and why, exits 1, and
// publishes nothing (docs/production.md, "When a backend is down"). The embedded database is the
// run's migrated template, seeded in this process: migrating and seeding are not what it tests.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { marquee } from '../../support/cli.ts';
import { seedSampleIn } from '../../support/embedded-platform.ts';
import { migratedHome } from '../../support/migrated-home.ts';
import { S3RVER_CREDENTIALS, startS3, type TestS3 } from '../../support/s3.ts';

let home: string;
let s3: TestS3;
beforeAll(async () => {
  [home, s3] = await Promise.all([migratedHome({ prefix: 'marquee-misconfigured-' }), startS3()]);
});
afterAll(async () => {
  await s3?.stop();
  await rm(home, { recursive: true, force: true });
});

/** A port nothing listens on. */
const NOWHERE = 'redis://127.0.0.1:1';

it('a gateway that cannot reach Redis does not start, and says so naming REDIS_URL', async () => {
  const run = await marquee(['serve'], { MARQUEE_HOME: home, PORT: '0', REDIS_URL: NOWHERE, LOG_FORMAT: 'json' });
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/^marquee: REDIS_URL: Redis at 127\.0\.0\.1:1 cannot be reached.*a gateway that cannot check keys does not start\n$/);
});

it('the keys commands name REDIS_URL when Redis cannot be reached, and still answer from the durable record in the database', async () => {
  const env = { MARQUEE_HOME: home, REDIS_URL: NOWHERE, DATABASE_URL: '' };
  const run = await marquee(['keys', 'list', '--json'], env);
  expect(run).toMatchObject({ code: 0, stdout: '[]\n' });
  expect(run.stderr).toMatch(/REDIS_URL: Redis at 127\.0\.0\.1:1 cannot be reached.*key changes are recorded in the database/);
});

it('a build into a bucket that does not exist fails for every organization, naming the bucket, and publishes nothing', async () => {
  const env = {
    MARQUEE_HOME: home,
    DATABASE_URL: '',
    SNAPSHOT_STORE: 's3://no-such-bucket/prod',
    SNAPSHOT_SIGNING_KEY: 'none',
    S3_ENDPOINT: s3.endpoint,
    AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
  };
  await seedSampleIn(home);
  const run = await marquee(['build', '--json'], env);
  expect(run.code).toBe(1);
  const results = (JSON.parse(run.stdout) as { organizations: Array<{ slug: string; result: string; error?: string }> }).organizations;
  expect(results.map((r) => r.result)).toEqual(['failed', 'failed', 'failed', 'failed']);
  for (const result of results) expect(result.error).toContain('no-such-bucket');
  expect(run.stderr).not.toMatch(/\n\s+at /);
});
