// snapshot/stores/store-backends.ts: SNAPSHOT_STORE names one backend; each backend parses its own form
// and variables; another backend's variables set beside it are named; and the directory backend
// makes its store ready (prepare) for a builder.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OperatorError } from '../../../../runtime/errors.ts';
import { DirectoryStore } from '../../../../snapshot/stores/directory.ts';
import { parseStoreSetting } from '../../../../snapshot/stores/store-backends.ts';
import { S3Store } from '../../../../snapshot/stores/s3.ts';

const context = (env: Record<string, string> = {}) => ({ env, cwd: '/srv' });

describe('parseStoreSetting', () => {
  it('takes the default directory when unset, and a plain path relative to the working directory', () => {
    const unset = parseStoreSetting(undefined, '/srv/var/snapshots', context());
    expect(unset).toMatchObject({ problems: [], location: { backend: 'directory', description: '/srv/var/snapshots', settings: { path: '/srv/var/snapshots' } } });
    expect(unset.location?.cdnPrefix).toBeUndefined();
    expect(unset.location?.open()).toBeInstanceOf(DirectoryStore);
    expect(parseStoreSetting('snaps', '/unused', context()).location).toMatchObject({ backend: 'directory', settings: { path: '/srv/snaps' } });
  });

  it('takes s3://bucket/prefix with S3_ENDPOINT, trimming slashes around the prefix', () => {
    const { location, problems } = parseStoreSetting('s3://marquee-snapshots//prod/api/', '/unused', context({ S3_ENDPOINT: 'http://127.0.0.1:9000' }));
    expect(problems).toEqual([]);
    expect(location).toMatchObject({
      backend: 's3',
      description: 's3://marquee-snapshots/prod/api',
      cdnPrefix: 'prod/api',
      settings: { bucket: 'marquee-snapshots', prefix: 'prod/api', endpoint: 'http://127.0.0.1:9000' },
    });
    const store = location?.open();
    expect(store).toBeInstanceOf(S3Store);
    expect(store?.description).toBe('s3://marquee-snapshots/prod/api');
  });

  it('names every problem with the S3 form and its endpoint, and gives no location', () => {
    const { location, problems } = parseStoreSetting('s3://Bad_Bucket/a/../b', '/unused', context({ S3_ENDPOINT: 'localhost:9000' }));
    expect(location).toBeUndefined();
    expect(problems).toEqual([
      'S3_ENDPOINT must be an absolute http(s) URL, got "localhost:9000"',
      'SNAPSHOT_STORE: "Bad_Bucket" is not an S3 bucket name (3-63 lower-case letters, digits, dots and hyphens)',
      'SNAPSHOT_STORE: the key prefix "a/../b" has an empty, "." or ".." segment',
    ]);
  });

  it('refuses a scheme no backend takes, naming every form there is', () => {
    const { location, problems } = parseStoreSetting('gs://bucket/p', '/unused', context());
    expect(location).toBeUndefined();
    expect(problems).toEqual(['SNAPSHOT_STORE must be a directory path or s3://bucket/prefix, got "gs://bucket/p"']);
    // Scheme names are not folded: S3:// is no s3:// store.
    expect(parseStoreSetting('S3://bucket', '/unused', context()).problems).toEqual(['SNAPSHOT_STORE must be a directory path or s3://bucket/prefix, got "S3://bucket"']);
  });

  it('names a variable of another backend set beside the chosen one', () => {
    expect(parseStoreSetting('/data/snapshots', '/unused', context({ S3_ENDPOINT: 'http://127.0.0.1:9000' })).problems).toEqual([
      'S3_ENDPOINT is set, but SNAPSHOT_STORE is not an s3:// store',
    ]);
    expect(parseStoreSetting('/data/snapshots', '/unused', context({ S3_ENDPOINT: '  ' })).problems).toEqual([]);
  });
});

describe('DirectoryStore.prepare', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('creates a missing directory, and names SNAPSHOT_STORE when it cannot', async () => {
    dir = await mkdtemp(join(tmpdir(), 'marquee-prepare-'));
    const root = join(dir, 'a', 'snapshots');
    await new DirectoryStore(root).prepare();
    expect((await stat(root)).isDirectory()).toBe(true);
    await writeFile(join(dir, 'file'), 'not a directory');
    const refused = new DirectoryStore(join(dir, 'file', 'snapshots')).prepare();
    await expect(refused).rejects.toBeInstanceOf(OperatorError);
    await expect(refused).rejects.toThrow(`SNAPSHOT_STORE ${join(dir, 'file', 'snapshots')} cannot be created: `);
  });
});
