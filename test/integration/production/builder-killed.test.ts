// A builder killed (SIGKILL) in the middle of publishing to S3, holding its organization's build
// lock in Redis: its objects and manifest are written, its pointer write is on the wire. The
// pointer still names the previous, whole snapshot; the lock expires on its own; the next build
// waits for it and completes; the store audits clean.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { SAMPLE } from '../../../builder/platform/sample.ts';
import { pointerKey } from '../../../snapshot/layout.ts';
import { readPointer } from '../../../snapshot/reader.ts';
import { S3Store } from '../../../snapshot/stores/s3.ts';
import { type ProductionWorld, startProductionWorld } from '../../support/production.ts';
import { readWholeSnapshot } from '../../support/snapshot-integrity.ts';

const NORDIC = SAMPLE.organizations.nordic.id;

let world: ProductionWorld;
/** While set, nordic's pointer write is never answered: its writer hangs there until killed. */
let holdPointer = false;
let pointerHeld: () => void = () => {};

beforeAll(async () => {
  world = await startProductionWorld({
    bucket: {
      intercept: (request) => {
        if (!holdPointer || request.method !== 'PUT' || !request.name.endsWith(pointerKey(NORDIC))) return 'forward';
        pointerHeld();
        return 'hold';
      },
    },
  });
});
afterAll(async () => {
  await world?.stop();
});

/** The store as the processes see it, credentials from the SDK's chain as theirs are. */
function storeOf(world: ProductionWorld): S3Store {
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION']) process.env[name] = world.env[name];
  const location = new URL(world.env.SNAPSHOT_STORE!);
  return new S3Store({ bucket: location.host, prefix: location.pathname.slice(1), endpoint: world.env.S3_ENDPOINT! });
}

it('leaves the previous snapshot whole, and the next build completes once the dead builder’s lock expired', async () => {
  const builder = await world.builder();
  const store = storeOf(world);
  const before = await readPointer(store, NORDIC);
  expect(before?.state).toBe('active');

  holdPointer = true;
  const held = new Promise<void>((resolve) => (pointerHeld = resolve));
  await world.sql('UPDATE organizations SET name = $1 WHERE id = $2', ['Nordic, rebuilt after a crash', NORDIC]);
  await held;
  await builder.kill();
  holdPointer = false;

  // The pointer is the one before, naming a snapshot whose every object is there with its hash.
  expect(await readPointer(store, NORDIC)).toEqual(before);
  await readWholeSnapshot(store, NORDIC);
  const redis = new Redis(world.env.REDIS_URL!);
  try {
    const lockTtlMs = await redis.pttl(`marquee:build-lock:${NORDIC}`);
    expect(lockTtlMs).toBeGreaterThan(0);

    const started = performance.now();
    const built = await world.cli(['build', '--org', 'nordic-dev', '--json']);
    const waitedMs = performance.now() - started;
    console.info(`the next build waited ${Math.round(waitedMs)} ms for the dead builder's lock (${lockTtlMs} ms left at its death)`);
    expect(built.code, built.stderr).toBe(0);
    expect(JSON.parse(built.stdout)).toMatchObject({ organizations: [{ slug: 'nordic-dev', result: 'published' }] });
    expect(waitedMs).toBeGreaterThanOrEqual(lockTtlMs - 1_000);
  } finally {
    redis.disconnect();
  }
  const after = await readPointer(store, NORDIC);
  expect(after?.snapshotId).not.toBe(before?.snapshotId);
  const snapshot = await readWholeSnapshot(store, NORDIC);
  expect(JSON.stringify(snapshot)).toContain('Nordic, rebuilt after a crash');
  expect((await world.cli(['audit'])).code).toBe(0);
  expect(await store.get(pointerKey(NORDIC))).toBeDefined();
});
