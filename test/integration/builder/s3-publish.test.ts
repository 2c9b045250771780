// Publishing to S3 (s3rver behind the proxy that gives it S3's conditional writes): a publisher
// process killed with SIGKILL between any two of its writes leaves the previous snapshot whole,
// and the next publish completes; a republish of unchanged content writes nothing at all.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditStore } from '../../../builder/history/audit.ts';
import { publishSnapshot } from '../../../builder/publish.ts';
import { S3Store } from '../../../snapshot/stores/s3.ts';
import { type ConditionalWritesProxy, startConditionalWrites } from '../../support/conditional-writes.ts';
import { startS3, type TestS3 } from '../../support/s3.ts';
import { readWholeSnapshot } from '../../support/snapshot-integrity.ts';

const ORG = '0b9a1c2e-7d3f-4c55-9a1e-2f6b8c0d4e11';
const EVENTS = ['5d1f0c3a-9b7e-4a21-8c44-1e2f3a4b5c6d', '6e2a1d4b-0c8f-4b32-9d55-2f3a4b5c6d7e'];

function input(organizationId: string, name: string, at: string) {
  return {
    organizationId,
    organizationSlug: `org-${organizationId.slice(0, 4)}`,
    state: 'active' as const,
    resources: [
      { path: '/organization', value: { id: organizationId, name } },
      { path: '/team', value: [{ name: `${name} lead` }] },
      ...EVENTS.map((id) => ({ path: `/events/${id}`, value: { id, title: `${name} ${id.slice(0, 4)}` } })),
    ],
    slugs: { first: EVENTS[0]!, second: EVENTS[1]! },
    trigger: 'manual' as const,
    now: new Date(at),
  };
}

let s3: TestS3;
let proxy: ConditionalWritesProxy;
let work: string;
/** While set, the PUTs below `prefix` from the `holdFrom`-th on (0-based) are never answered: the writer hangs there until killed. */
let hold: { prefix: string; holdFrom: number; seen: number; reached: () => void } | undefined;

beforeAll(async () => {
  s3 = await startS3();
  // This process publishes too, with the credentials s3rver accepts, found where the SDK looks.
  for (const [name, value] of Object.entries(s3.env(''))) if (name.startsWith('AWS_')) vi.stubEnv(name, value);
  proxy = await startConditionalWrites(s3, {
    intercept: (request) => {
      if (!hold || request.method !== 'PUT' || !request.name.startsWith(`${s3.bucket}/${hold.prefix}/`)) return 'forward';
      if (hold.seen++ < hold.holdFrom) return 'forward';
      hold.reached();
      return 'hold';
    },
  });
  work = await mkdtemp(join(tmpdir(), 'marquee-s3-publish-'));
});
afterAll(async () => {
  await proxy?.close();
  await s3?.stop();
  await rm(work, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

const storeAt = (prefix: string) => new S3Store({ bucket: s3.bucket, prefix, endpoint: proxy.endpoint });

function startPublisher(prefix: string, inputPath: string): { child: ChildProcess; done: Promise<'published' | 'exited'> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/publish-in-child.ts', `s3://${s3.bucket}/${prefix}`, inputPath], {
    env: { ...process.env, ...s3.env(prefix), S3_ENDPOINT: proxy.endpoint },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const done = new Promise<'published' | 'exited'>((resolve, reject) =>
    child.once('exit', (code, signal) => {
      if (output.startsWith('published')) resolve('published');
      else if (signal === 'SIGKILL') resolve('exited');
      else reject(new Error(`publisher exited with ${code ?? signal}: ${output}`));
    }),
  );
  return { child, done };
}

describe('a publisher killed between any two writes to S3', () => {
  it('leaves the previous snapshot whole, and the next publish completes', async () => {
    const next = input(ORG, 'B', '2026-11-21T10:00:05Z');
    const inputPath = join(work, 'next.json');
    await writeFile(inputPath, JSON.stringify({ ...next, now: next.now.toISOString() }));
    let kills = 0;
    for (let holdFrom = 0; ; holdFrom++) {
      const prefix = `crash-${holdFrom}-${randomUUID()}`;
      const store = storeAt(prefix);
      await publishSnapshot(store, input(ORG, 'A', '2026-11-21T10:00:00Z'));
      const previous = await readWholeSnapshot(store, ORG);

      let reached!: () => void;
      const writing = new Promise<'held'>((resolve) => (reached = () => resolve('held')));
      hold = { prefix, holdFrom, seen: 0, reached };
      const publisher = startPublisher(prefix, inputPath);
      const first = await Promise.race([writing, publisher.done]);
      if (first === 'published') {
        hold = undefined;
        // Every write went through: four objects (two events, the organization, the team), a manifest, the pointer.
        expect(holdFrom).toBe(6);
        expect((await readWholeSnapshot(store, ORG)).resources['/organization']).toEqual({ id: ORG, name: 'B' });
        break;
      }
      // The publisher waits on its write number `holdFrom`: kill it there, as a crash would.
      publisher.child.kill('SIGKILL');
      expect(await publisher.done).toBe('exited');
      hold = undefined;
      kills++;

      expect(await readWholeSnapshot(store, ORG), `killed before write #${holdFrom + 1}`).toEqual(previous);
      // No object is damaged. Killed between its manifest and its pointer, the publish leaves a
      // manifest newer than the current snapshot, which the store alone cannot tell from a pointer
      // moved back: the audit names it (docs/design.md "History as evidence").
      const leftManifest = holdFrom === 5 ? [{ organizationId: ORG, kind: 'broken-history', detail: expect.stringContaining('(pointer-moved-back)') }] : [];
      expect((await auditStore(store)).findings, `killed before write #${holdFrom + 1}`).toEqual(leftManifest);
      const recovered = await publishSnapshot(store, next);
      expect(recovered.result).toBe('published');
      expect((await readWholeSnapshot(store, ORG)).resources['/organization']).toEqual({ id: ORG, name: 'B' });
      // Published again, the same snapshot adopts the manifest the killed publish left: the history is whole.
      expect((await auditStore(store)).findings, `published again after a kill before write #${holdFrom + 1}`).toEqual([]);
    }
    expect(kills).toBe(6);
  });
});

describe('an unchanged republish to S3', () => {
  it('issues no PUT at all', async () => {
    const prefix = `republish-${randomUUID()}`;
    const store = storeAt(prefix);
    const organizations = Array.from({ length: 5 }, () => randomUUID());
    const puts = () => proxy.requests.filter((request) => request.method === 'PUT' && request.name.startsWith(`${s3.bucket}/${prefix}/`)).length;

    const publishAll = (at: string) =>
      Promise.all([
        ...organizations.map((id) => publishSnapshot(store, input(id, `Org ${id.slice(0, 4)}`, at))),
        publishSnapshot(store, { ...input(ORG, 'Suspended', at), state: 'suspended', resources: [], slugs: {} }),
      ]);
    const first = await publishAll('2026-11-21T10:00:00Z');
    expect(first.map((outcome) => outcome.result)).toEqual([...organizations.map(() => 'published'), 'suspended']);
    // Per active organization: four objects, a manifest, a pointer; the suspended one: its pointer and the record of its suspension.
    expect(puts()).toBe(organizations.length * 6 + 2);

    const before = puts();
    const again = await publishAll('2026-11-21T11:00:00Z');
    expect(again.map((outcome) => outcome.result)).toEqual([...organizations.map(() => 'unchanged'), 'suspended']);
    expect(puts() - before).toBe(0);
  });
});
