// The CloudFront invalidator against a mocked CloudFront API (aws-sdk-client-mock): which paths it
// sends, one request per build, the wildcard past CloudFront's 3,000 paths, retries, and that a
// failure is a warning rather than a failed build.
import { CloudFrontClient, CreateInvalidationCommand, TooManyInvalidationsInProgress } from '@aws-sdk/client-cloudfront';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCloudFrontInvalidator } from '../../../builder/cdn-invalidation.ts';
import { RecordingLog } from '../../support/recording-log.ts';

const DISTRIBUTION = 'E2EXAMPLE123';
const ids = (count: number) => Array.from({ length: count }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

const client = new CloudFrontClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
const cloudFront = mockClient(client);
let log: RecordingLog;

beforeEach(() => {
  cloudFront.reset();
  cloudFront.on(CreateInvalidationCommand).resolves({ Invalidation: { Id: 'I1', Status: 'InProgress', CreateTime: new Date(), InvalidationBatch: undefined } });
  log = new RecordingLog();
});
afterEach(() => {
  vi.useRealTimers();
});

const sent = () => cloudFront.commandCalls(CreateInvalidationCommand).map((call) => call.args[0].input);

/** Runs one invalidation to its end on fake timers, so that its backoffs take no time. */
async function invalidate(prefix: string, organizationIds: string[]): Promise<void> {
  if (!vi.isFakeTimers()) vi.useFakeTimers();
  const done = createCloudFrontInvalidator({ distributionId: DISTRIBUTION, prefix, client, log })(organizationIds);
  await vi.runAllTimersAsync();
  await done;
}

const throttled = () => Object.assign(new Error('Rate exceeded'), { name: 'Throttling', $metadata: { httpStatusCode: 400 } });
const inProgress = () => new TooManyInvalidationsInProgress({ message: 'Your request contains too many invalidations.', $metadata: { httpStatusCode: 400 } });

describe('createCloudFrontInvalidator', () => {
  it("invalidates exactly the changed organizations' pointer paths below the prefix, in one request", async () => {
    const [a, b] = ids(2);
    await invalidate('snapshots/v1', [a!, b!, a!]);
    expect(sent()).toEqual([
      {
        DistributionId: DISTRIBUTION,
        InvalidationBatch: {
          CallerReference: expect.stringMatching(/^marquee-/),
          Paths: { Quantity: 2, Items: [`/snapshots/v1/orgs/${a}/current.json`, `/snapshots/v1/orgs/${b}/current.json`] },
        },
      },
    ]);
    expect(log.lines).toEqual([{ level: 'info', message: 'CDN invalidation requested', fields: expect.objectContaining({ paths: 2, invalidationId: 'I1' }) }]);
  });

  it('writes paths in URL form: at the root for an empty prefix, segments of the prefix encoded', async () => {
    const [a] = ids(1);
    await invalidate('', [a!]);
    await invalidate('snap shots/é', [a!]);
    expect(sent().map((input) => input.InvalidationBatch?.Paths?.Items)).toEqual([[`/orgs/${a}/current.json`], [`/snap%20shots/%C3%A9/orgs/${a}/current.json`]]);
  });

  it('sends nothing when no pointer changed', async () => {
    await invalidate('p', []);
    expect(sent()).toEqual([]);
    expect(log.lines).toEqual([]);
  });

  it('sends up to 3,000 paths as they are, in one request, and one wildcard over the pointers beyond that', async () => {
    await invalidate('p', ids(3_000));
    await invalidate('p', ids(3_001));
    const [exact, over] = sent();
    expect(exact?.InvalidationBatch?.Paths?.Quantity).toBe(3_000);
    expect(exact?.InvalidationBatch?.Paths?.Items).toHaveLength(3_000);
    expect(over?.InvalidationBatch?.Paths).toEqual({ Quantity: 1, Items: ['/p/orgs/*'] });
  });

  it('uses a new caller reference per build, and the same one for the retries of a build', async () => {
    cloudFront.on(CreateInvalidationCommand).rejectsOnce(throttled()).resolves({});
    await invalidate('p', ids(1));
    await invalidate('p', ids(1));
    const references = sent().map((input) => input.InvalidationBatch?.CallerReference);
    expect(references).toHaveLength(3);
    expect(references[0]).toBe(references[1]);
    expect(references[2]).not.toBe(references[0]);
  });

  it('retries throttling, invalidations in progress and 5xx with backoff, then succeeds', async () => {
    const unavailable = Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } });
    cloudFront.on(CreateInvalidationCommand).rejectsOnce(throttled()).rejectsOnce(inProgress()).rejectsOnce(unavailable).resolves({ Invalidation: undefined });
    vi.useFakeTimers();
    const timers = vi.spyOn(globalThis, 'setTimeout');
    await invalidate('p', ids(2));
    expect(sent()).toHaveLength(4);
    // One wait before each retry, each at most twice as long as the one before allows.
    const waits = timers.mock.calls.map(([, ms]) => ms ?? 0);
    expect(waits).toHaveLength(3);
    for (const [i, ms] of waits.entries()) expect(ms).toBeLessThanOrEqual(1_000 * 2 ** i);
    expect(log.lines.map((line) => line.level)).toEqual(['info']);
  });

  it('gives up after four attempts with a warning, and never fails the build', async () => {
    cloudFront.on(CreateInvalidationCommand).rejects(inProgress());
    await expect(invalidate('p', ids(3))).resolves.toBeUndefined();
    expect(sent()).toHaveLength(4);
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message: 'CDN invalidation failed; pointers are no-cache, so caches revalidate them anyway',
        fields: expect.objectContaining({ distributionId: DISTRIBUTION, organizations: 3, paths: 3, attempts: 4, err: expect.any(TooManyInvalidationsInProgress) }),
      },
    ]);
  });

  it('does not retry what waits for an operator: access denied, no such distribution', async () => {
    cloudFront.on(CreateInvalidationCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }));
    await invalidate('p', ids(1));
    expect(sent()).toHaveLength(1);
    expect(log.lines).toEqual([expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ attempts: 1 }) })]);
  });
});
