// GET /readyz says why a gateway cannot serve: a snapshot store directory that is not there, a
// keys file that cannot be read; and it becomes ready by itself once the operator fixed either.
// GET /healthz says only that the process is alive, whatever /readyz says.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../../gateway/app.ts';
import { FileKeyStore } from '../../../records/keys/file-store.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { RecordingLog } from '../../support/recording-log.ts';

let dir: string;
let gateway: Gateway | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'marquee-readyz-'));
});
afterEach(async () => {
  await gateway?.close();
  await rm(dir, { recursive: true, force: true });
});

async function get(app: Gateway['app'], path: '/readyz' | '/healthz'): Promise<{ status: number; body: unknown }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as { port: number };
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: response.status, body: await response.json() };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

it('is unavailable while the snapshot store directory does not exist or the keys file cannot be read, with each reason, and ready once both are fixed; alive throughout', async () => {
  const snapshots = join(dir, 'snapshots');
  const keysFile = join(dir, 'keys.json');
  await writeFile(keysFile, '{"format": 1, "keys": [');
  gateway = createGateway({ snapshots: new DirectoryStore(snapshots), keys: new FileKeyStore(keysFile), log: new RecordingLog(), limits: { healthProbeMs: 50 } });
  await gateway.ready;
  await expect
    .poll(() => get(gateway!.app, '/readyz'))
    .toEqual({
      status: 503,
      body: {
        status: 'unavailable',
        problems: [`snapshot store: directory ${snapshots} does not exist`, expect.stringMatching(new RegExp(`^key store: .*${keysFile}`))],
        backends: { store: { state: 'down', why: `directory ${snapshots} does not exist`, meanwhile: expect.any(String) } },
      },
    });
  expect(gateway.readiness.report()).toEqual((await get(gateway.app, '/readyz')).body);
  expect(await get(gateway.app, '/healthz')).toEqual({ status: 200, body: { status: 'alive' } });

  await mkdir(snapshots);
  await writeFile(keysFile, '{"format": 1, "keys": []}');
  await expect.poll(() => get(gateway!.app, '/readyz')).toEqual({ status: 200, body: { status: 'ready', backends: { store: { state: 'ok', lastSuccessSecondsAgo: 0 } } } });

  // A shutdown's drain: not ready from then on, while everything else still answers.
  gateway.readiness.drain();
  expect(await get(gateway.app, '/readyz')).toMatchObject({ status: 503, body: { status: 'draining' } });
  expect(await get(gateway.app, '/healthz')).toEqual({ status: 200, body: { status: 'alive' } });
});
