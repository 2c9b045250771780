// The promises of SnapshotStore (snapshot/store.ts), as one suite every backend runs: the memory
// and directory stores today, an S3 store or a CDN reader tomorrow. What a backend must do:
//
// - keys: '/'-separated relative paths (assertStoreKey); every method rejects any other key with
//   StoreKeyError and writes nothing; list rejects a prefix no key could start with;
// - get/put: the bytes put are the bytes read, as a Buffer (empty and binary included), copied
//   when put resolves; a put replaces, other keys are untouched; a folder of other keys holds no
//   object (get/has/getIfChanged/modifiedAt find nothing, delete leaves the keys below it);
// - getIfChanged: bytes and an opaque version; 'unchanged' exactly when that version is still
//   current; every put of other bytes (same size, quick succession, after a delete, through
//   another view) gives a version that is not taken for an earlier one; undefined when absent;
// - putIfVersion: writes only while the key is at the version expected (a version from
//   getIfChanged), or absent when null is expected; otherwise 'conflict' and nothing written
//   (a stale version, a key deleted since, a key written since); of writers racing with one
//   expectation, through one view or two, exactly one is 'written', and its bytes stay; what it
//   wrote is read back with a version that the next putIfVersion can expect;
// - has, delete (of a missing key too), modifiedAt (within the put, never going back);
// - list: every key starting with the prefix as a plain string (orgs/a also lists orgs/ab/…),
//   in lexicographic order of UTF-16 code units (as Array.prototype.sort), whatever the folders;
// - atomic visibility: concurrent readers see the old bytes or the new ones, never a part; a
//   version never names two contents; list never shows a write in progress;
// - sweepInterrupted never touches a complete object, nor a put in flight younger than `before`;
//   with a way to simulate a crashed write: leftovers are invisible, those older than `before`
//   are removed and counted, younger ones kept.
//
// Not promised: an object under a key while other keys are below it ('a' and 'a/b'); a directory
// cannot hold both, and snapshot/layout.ts never asks for it.
import { describe, expect, it } from 'vitest';
import { type SnapshotStore, StoreKeyError, type Version } from '../../snapshot/store.ts';
import { type ContractHooks, useHarness, itWith } from './harness.ts';

export interface SnapshotStoreHarness {
  store: SnapshotStore;
  /** Another store on the same data, as another process would open it. Absent: no second view. */
  other?: () => SnapshotStore;
  /**
   * Leaves behind what a put of `bytes` to `key` that died before completing would leave, as
   * written at `at`. Absent when a write cannot be interrupted half-way (memory).
   */
  interruptWrite?: (key: string, bytes: Uint8Array, at: Date) => Promise<void>;
}

const text = (value: string): Buffer => Buffer.from(value, 'utf8');

/** The version under `key` now, as getIfChanged hands it out. */
async function versionOf(store: SnapshotStore, key: string): Promise<Version> {
  const read = await store.getIfChanged(key, undefined);
  if (read === undefined || read === 'unchanged') throw new Error(`expected bytes under ${key}`);
  return read.version;
}

/** Bytes no text encoding produces by accident: every byte value, then `size` copies of `fill`. */
function payload(fill: number, size: number): Buffer {
  const bytes = Buffer.alloc(256 + size, fill);
  for (let i = 0; i < 256; i++) bytes[i] = i;
  return bytes;
}

const INVALID_KEYS = [
  '',
  '/orgs/a/current.json',
  'orgs//a/current.json',
  'orgs/a/',
  '/',
  './orgs/a.json',
  'orgs/./a.json',
  '../escape.json',
  'orgs/../../escape.json',
  'orgs/..',
  '.',
  '..',
  'orgs/a\0.json',
  'orgs/a/current.json.partial',
];
const VALID_ODD_KEYS = ['a..b.json', '.hidden', '...', 'with space/x.json', 'é/ü.json', 'x.partial.json', 'UPPER/Case'];

export function snapshotStoreContract<H extends SnapshotStoreHarness>(name: string, hooks: ContractHooks<H>): void {
  describe(`SnapshotStore contract: ${name}`, () => {
    const harness = useHarness(hooks);
    const store = () => harness().store;

    describe('keys', () => {
      it('rejects every key that is not a relative path of non-empty segments, in every method, and writes nothing', async () => {
        for (const key of INVALID_KEYS) {
          const calls: Array<[string, () => Promise<unknown>]> = [
            ['get', () => store().get(key)],
            ['getIfChanged', () => store().getIfChanged(key, undefined)],
            ['has', () => store().has(key)],
            ['put', () => store().put(key, text('x'))],
            ['putIfVersion', () => store().putIfVersion(key, text('x'), null)],
            ['delete', () => store().delete(key)],
            ['modifiedAt', () => store().modifiedAt(key)],
          ];
          for (const [method, call] of calls) {
            await expect(call(), `${method}(${JSON.stringify(key)})`).rejects.toBeInstanceOf(StoreKeyError);
          }
        }
        expect(await store().list('')).toEqual([]);
      });

      it('rejects a list prefix that no key could start with', async () => {
        for (const prefix of ['/', '/orgs/', '../', 'orgs/../x', 'orgs//', './orgs/', 'a\0']) {
          await expect(store().list(prefix), JSON.stringify(prefix)).rejects.toBeInstanceOf(StoreKeyError);
        }
        for (const prefix of ['', 'o', 'orgs', 'orgs/', 'orgs/a/objects/', 'orgs/..x', 'orgs/.']) {
          expect(await store().list(prefix), JSON.stringify(prefix)).toEqual([]);
        }
      });

      it('accepts any other key: dots inside a segment, hidden names, spaces, non-ASCII, upper case', async () => {
        for (const [i, key] of VALID_ODD_KEYS.entries()) await store().put(key, text(`v${i}`));
        for (const [i, key] of VALID_ODD_KEYS.entries()) expect((await store().get(key))?.toString(), key).toBe(`v${i}`);
        expect(await store().list('')).toEqual([...VALID_ODD_KEYS].sort());
      });
    });

    describe('get and put', () => {
      it('finds nothing under a key never written', async () => {
        const key = 'orgs/a/current.json';
        expect(await store().get(key)).toBeUndefined();
        expect(await store().has(key)).toBe(false);
        expect(await store().modifiedAt(key)).toBeUndefined();
        expect(await store().getIfChanged(key, undefined)).toBeUndefined();
        expect(await store().getIfChanged(key, 'some-version')).toBeUndefined();
      });

      it('reads back exactly the bytes put, as a Buffer: binary and empty ones too', async () => {
        const binary = payload(0xff, 10_000);
        await store().put('orgs/a/objects/binary.json', binary);
        await store().put('orgs/a/objects/empty.json', new Uint8Array(0));
        const read = await store().get('orgs/a/objects/binary.json');
        expect(Buffer.isBuffer(read)).toBe(true);
        expect(read!.equals(binary)).toBe(true);
        const empty = await store().get('orgs/a/objects/empty.json');
        expect(Buffer.isBuffer(empty)).toBe(true);
        expect(empty).toHaveLength(0);
        expect(await store().has('orgs/a/objects/empty.json')).toBe(true);
      });

      it("keeps the bytes as they were: changing the caller's array after put changes nothing", async () => {
        const bytes = new Uint8Array([1, 2, 3]);
        await store().put('k.json', bytes);
        bytes[0] = 9;
        expect([...(await store().get('k.json'))!]).toEqual([1, 2, 3]);
      });

      it('replaces the bytes under a key and leaves every other key alone', async () => {
        await store().put('orgs/a/current.json', text('one'));
        await store().put('orgs/a/current.json.bak', text('neighbour'));
        await store().put('orgs/a/current', text('prefix of it'));
        await store().put('orgs/a/current.json', text('two, longer'));
        expect((await store().get('orgs/a/current.json'))?.toString()).toBe('two, longer');
        await store().put('orgs/a/current.json', text('3'));
        expect((await store().get('orgs/a/current.json'))?.toString()).toBe('3');
        expect((await store().get('orgs/a/current.json.bak'))?.toString()).toBe('neighbour');
        expect((await store().get('orgs/a/current'))?.toString()).toBe('prefix of it');
      });

      it('holds no object under a folder of other keys, and delete of it keeps them', async () => {
        await store().put('orgs/a/objects/h.json', text('x'));
        for (const folder of ['orgs', 'orgs/a', 'orgs/a/objects']) {
          expect(await store().get(folder), folder).toBeUndefined();
          expect(await store().has(folder), folder).toBe(false);
          expect(await store().getIfChanged(folder, undefined), folder).toBeUndefined();
          expect(await store().modifiedAt(folder), folder).toBeUndefined();
          await store().delete(folder);
        }
        expect(await store().list('')).toEqual(['orgs/a/objects/h.json']);
        expect((await store().get('orgs/a/objects/h.json'))?.toString()).toBe('x');
      });

      it('finds nothing below an object, as if it were a folder', async () => {
        await store().put('orgs/a/current.json', text('x'));
        expect(await store().get('orgs/a/current.json/more')).toBeUndefined();
        expect(await store().has('orgs/a/current.json/more')).toBe(false);
        expect(await store().getIfChanged('orgs/a/current.json/more', undefined)).toBeUndefined();
        expect(await store().modifiedAt('orgs/a/current.json/more')).toBeUndefined();
        expect(await store().list('orgs/a/current.json/')).toEqual([]);
        await store().delete('orgs/a/current.json/more');
        expect(await store().has('orgs/a/current.json')).toBe(true);
      });

      itWith(hooks, 'other')("shows a put through another view of the same data, and this one's puts to it", async () => {
        const other = harness().other!;
        const second = other();
        await store().put('orgs/a/current.json', text('from the first'));
        expect((await second.get('orgs/a/current.json'))?.toString()).toBe('from the first');
        await second.put('orgs/a/current.json', text('from the second'));
        await second.put('orgs/b/current.json', text('new'));
        expect((await store().get('orgs/a/current.json'))?.toString()).toBe('from the second');
        expect(await store().list('orgs/')).toEqual(['orgs/a/current.json', 'orgs/b/current.json']);
        await second.delete('orgs/a/current.json');
        expect(await store().has('orgs/a/current.json')).toBe(false);
      });
    });

    describe('getIfChanged', () => {
      it('returns the bytes with an opaque version; that version back means unchanged', async () => {
        await store().put('orgs/a/current.json', text('pointer'));
        const read = await store().getIfChanged('orgs/a/current.json', undefined);
        expect(read).toMatchObject({ version: expect.any(String) });
        if (read === undefined || read === 'unchanged') throw new Error('expected bytes');
        expect(read.bytes.toString()).toBe('pointer');
        expect(await store().getIfChanged('orgs/a/current.json', read.version)).toBe('unchanged');
        expect(await store().getIfChanged('orgs/a/current.json', read.version)).toBe('unchanged');
        // A version that is not current is never 'unchanged'.
        expect(await store().getIfChanged('orgs/a/current.json', `${read.version}-not`)).toMatchObject({ bytes: read.bytes });
      });

      it('never takes an old version for new bytes: puts of the same size in quick succession', async () => {
        const key = 'orgs/a/current.json';
        const seen = new Map<Version, string>();
        const recent: Version[] = [];
        for (let i = 0; i < 40; i++) {
          const body = `pointer-${String(i).padStart(3, '0')}`;
          await store().put(key, text(body));
          // The versions handed out for the last few puts, those a clock or a counter too coarse
          // would repeat, each get the new bytes, not 'unchanged'.
          for (const version of recent) {
            const again = await store().getIfChanged(key, version);
            if (again === undefined || again === 'unchanged') throw new Error(`put #${i}: version ${version} of ${seen.get(version)} taken for the new bytes`);
            expect(again.bytes.toString()).toBe(body);
          }
          const read = await store().getIfChanged(key, undefined);
          if (read === undefined || read === 'unchanged') throw new Error(`put #${i}: no bytes`);
          // And no version handed out earlier, however long ago, names the new bytes.
          expect(seen.get(read.version), `put #${i}: version ${read.version} was handed out before`).toBeUndefined();
          seen.set(read.version, body);
          recent.unshift(read.version);
          recent.length = Math.min(recent.length, 4);
        }
      });

      it('never takes the version of deleted bytes for those written again after', async () => {
        const key = 'orgs/a/current.json';
        for (let i = 0; i < 20; i++) {
          await store().put(key, text(`old-${i % 10}`));
          const old = await store().getIfChanged(key, undefined);
          if (old === undefined || old === 'unchanged') throw new Error('expected bytes');
          await store().delete(key);
          expect(await store().getIfChanged(key, old.version)).toBeUndefined();
          await store().put(key, text(`new-${i % 10}`));
          expect(await store().getIfChanged(key, old.version)).toMatchObject({ bytes: text(`new-${i % 10}`) });
        }
      });

      itWith(hooks, 'other')('sees a put made through another view of the same data', async () => {
        const other = harness().other!;
        const writer = other();
        await writer.put('orgs/a/current.json', text('first'));
        const read = await store().getIfChanged('orgs/a/current.json', undefined);
        if (read === undefined || read === 'unchanged') throw new Error('expected bytes');
        await writer.put('orgs/a/current.json', text('again'));
        expect(await store().getIfChanged('orgs/a/current.json', read.version)).toMatchObject({ bytes: text('again') });
      });
    });

    describe('putIfVersion', () => {
      const key = 'orgs/a/current.json';

      it('writes a key that is absent when null is expected, and refuses null once it is there', async () => {
        expect(await store().putIfVersion(key, text('first'), null)).toBe('written');
        expect((await store().get(key))?.toString()).toBe('first');
        expect(await store().putIfVersion(key, text('second'), null)).toBe('conflict');
        expect((await store().get(key))?.toString()).toBe('first');
        expect(await store().list('')).toEqual([key]);
      });

      it('writes while the key is at the version expected, and refuses a version no longer current', async () => {
        await store().put(key, text('one'));
        const one = await versionOf(store(), key);
        expect(await store().putIfVersion(key, text('two'), one)).toBe('written');
        expect((await store().get(key))?.toString()).toBe('two');
        // `one` is stale now: the same expectation again is refused, and so is an invented one.
        expect(await store().putIfVersion(key, text('three'), one)).toBe('conflict');
        expect(await store().putIfVersion(key, text('three'), `${one}-not`)).toBe('conflict');
        expect((await store().get(key))?.toString()).toBe('two');
        // A plain put moves the version on too.
        const two = await versionOf(store(), key);
        await store().put(key, text('by put'));
        expect(await store().putIfVersion(key, text('three'), two)).toBe('conflict');
        expect((await store().get(key))?.toString()).toBe('by put');
      });

      it('refuses a version when the key was deleted since, and writes nothing', async () => {
        await store().put(key, text('one'));
        const one = await versionOf(store(), key);
        await store().delete(key);
        expect(await store().putIfVersion(key, text('two'), one)).toBe('conflict');
        expect(await store().has(key)).toBe(false);
        expect(await store().list('')).toEqual([]);
        expect(await store().putIfVersion('orgs/never/current.json', text('x'), one)).toBe('conflict');
        expect(await store().list('')).toEqual([]);
      });

      it('reads back what it wrote with a version the next putIfVersion can expect', async () => {
        let expected: Version | null = null;
        for (let i = 0; i < 10; i++) {
          expect(await store().putIfVersion(key, text(`pointer-${i}`), expected), `write #${i}`).toBe('written');
          const read = await store().getIfChanged(key, expected ?? undefined);
          if (read === undefined || read === 'unchanged') throw new Error(`write #${i} is not visible`);
          expect(read.bytes.toString()).toBe(`pointer-${i}`);
          expect(await store().getIfChanged(key, read.version)).toBe('unchanged');
          expected = read.version;
        }
      });

      it('lets exactly one of writers racing with the same expectation write, and keeps its bytes whole', async () => {
        const candidates = Array.from({ length: 12 }, (_, i) => payload(i, 20_000 + i * 1_000));
        const first = await Promise.all(candidates.map((bytes) => store().putIfVersion(key, bytes, null)));
        expect(first.filter((outcome) => outcome === 'written')).toHaveLength(1);
        const winner = candidates[first.indexOf('written')]!;
        expect((await store().get(key))!.equals(winner)).toBe(true);

        const version = await versionOf(store(), key);
        const second = await Promise.all(candidates.map((bytes, i) => store().putIfVersion(key, bytes.subarray(i), version)));
        expect(second.filter((outcome) => outcome === 'written')).toHaveLength(1);
        const index = second.indexOf('written');
        expect((await store().get(key))!.equals(candidates[index]!.subarray(index))).toBe(true);
        expect(await store().list('')).toEqual([key]);
      });

      itWith(hooks, 'other')('holds across views: one expectation, two writers, one write', async () => {
        const second = harness().other!();
        await store().put(key, text('start'));
        const start = await versionOf(second, key);
        expect(await second.putIfVersion(key, text('from the second'), start)).toBe('written');
        expect(await store().putIfVersion(key, text('from the first'), start)).toBe('conflict');
        expect((await store().get(key))?.toString()).toBe('from the second');
        // A version read through one view is one the other accepts.
        expect(await store().putIfVersion(key, text('from the first, again'), await versionOf(second, key))).toBe('written');

        const now = await versionOf(store(), key);
        const views = [store(), second, store(), second, store(), second];
        const outcomes = await Promise.all(views.map((view, i) => view.putIfVersion(key, text(`racer ${i}`), now)));
        expect(outcomes.filter((outcome) => outcome === 'written')).toHaveLength(1);
        expect((await second.get(key))?.toString()).toBe(`racer ${outcomes.indexOf('written')}`);
      });
    });

    describe('has, delete and modifiedAt', () => {
      it('has is true exactly while an object is under the key', async () => {
        expect(await store().has('orgs/a/objects/x.json')).toBe(false);
        await store().put('orgs/a/objects/x.json', text('x'));
        expect(await store().has('orgs/a/objects/x.json')).toBe(true);
        await store().delete('orgs/a/objects/x.json');
        expect(await store().has('orgs/a/objects/x.json')).toBe(false);
        expect(await store().get('orgs/a/objects/x.json')).toBeUndefined();
        expect(await store().list('orgs/')).toEqual([]);
      });

      it('deleting a missing key resolves and changes nothing', async () => {
        await store().put('orgs/a/current.json', text('kept'));
        await expect(store().delete('orgs/a/missing.json')).resolves.toBeUndefined();
        await expect(store().delete('orgs/never/written.json')).resolves.toBeUndefined();
        await store().delete('orgs/a/objects/x.json');
        await store().delete('orgs/a/objects/x.json');
        expect(await store().list('')).toEqual(['orgs/a/current.json']);
      });

      it('deletes only that key, and the key can be written again', async () => {
        for (const key of ['x/a.json', 'x/a.json2', 'x/a', 'x/ab.json']) await store().put(key, text(key));
        await store().delete('x/a.json');
        expect(await store().list('x/')).toEqual(['x/a', 'x/a.json2', 'x/ab.json']);
        await store().put('x/a.json', text('again'));
        expect((await store().get('x/a.json'))?.toString()).toBe('again');
      });

      it('modifiedAt is when the bytes were written, and never goes back', async () => {
        // One second of slack: file systems and object stores keep coarser clocks than Date.now().
        const slack = 1_000;
        const before = Date.now();
        await store().put('orgs/a/current.json', text('one'));
        const after = Date.now();
        const first = await store().modifiedAt('orgs/a/current.json');
        expect(first).toBeInstanceOf(Date);
        expect(first!.getTime()).toBeGreaterThanOrEqual(before - slack);
        expect(first!.getTime()).toBeLessThanOrEqual(after + slack);
        await new Promise((resolve) => setTimeout(resolve, 20));
        await store().put('orgs/a/current.json', text('two'));
        const second = await store().modifiedAt('orgs/a/current.json');
        expect(second!.getTime()).toBeGreaterThanOrEqual(first!.getTime());
        await store().delete('orgs/a/current.json');
        expect(await store().modifiedAt('orgs/a/current.json')).toBeUndefined();
      });
    });

    describe('list', () => {
      it('lists keys in lexicographic order of UTF-16 code units, whatever the folders', async () => {
        const keys = ['b.json', 'a/b', 'a-b', 'a.b', 'a0', 'B', 'a/a/z', 'a/a0', 'a/a/a/a'];
        for (const key of keys) await store().put(key, text(key));
        const expected = [...keys].sort();
        expect(expected).toEqual(['B', 'a-b', 'a.b', 'a/a/a/a', 'a/a/z', 'a/a0', 'a/b', 'a0', 'b.json']);
        expect(await store().list('')).toEqual(expected);
        expect(await store().list('a')).toEqual(expected.filter((key) => key.startsWith('a')));
      });

      it('treats the prefix as a plain string: orgs/a also lists orgs/ab/…, orgs/a/ one folder', async () => {
        const keys = ['orgs/a/current.json', 'orgs/a/objects/1.json', 'orgs/ab/current.json', 'orgs/a.json', 'orgs/b/current.json', 'other/a'];
        for (const key of keys) await store().put(key, text(key));
        expect(await store().list('orgs/a')).toEqual(['orgs/a.json', 'orgs/a/current.json', 'orgs/a/objects/1.json', 'orgs/ab/current.json']);
        expect(await store().list('orgs/a/')).toEqual(['orgs/a/current.json', 'orgs/a/objects/1.json']);
        expect(await store().list('orgs/a/obj')).toEqual(['orgs/a/objects/1.json']);
        expect(await store().list('orgs/')).toEqual(keys.filter((key) => key.startsWith('orgs/')).sort());
        expect(await store().list('')).toEqual([...keys].sort());
        // A whole key is a prefix of itself.
        expect(await store().list('orgs/a/current.json')).toEqual(['orgs/a/current.json']);
      });

      it('lists nothing for a prefix no key starts with, and no deleted key', async () => {
        await store().put('orgs/a/current.json', text('x'));
        await store().put('orgs/a/objects/1.json', text('1'));
        expect(await store().list('orgs/z')).toEqual([]);
        expect(await store().list('orgs/z/objects/')).toEqual([]);
        expect(await store().list('orgs/a/current.jsonx')).toEqual([]);
        await store().delete('orgs/a/objects/1.json');
        expect(await store().list('orgs/a/')).toEqual(['orgs/a/current.json']);
        expect(await store().list('orgs/a/objects/')).toEqual([]);
      });
    });

    describe('atomic visibility', () => {
      it('a concurrent reader sees the old bytes or the new ones, never a part; a version names one content', async () => {
        const key = 'orgs/a/current.json';
        const { other } = harness();
        const reader = other?.() ?? store();
        // Sizes differ, so a torn read shows as a wrong length or a wrong byte.
        const versions = [payload(0x61, 1 << 20), payload(0x62, 3 << 19), payload(0x63, 1 << 18)];
        const whole = (bytes: Buffer) => versions.some((candidate) => candidate.equals(bytes));
        await store().put(key, versions[0]!);
        let writing = true;
        const writer = (async () => {
          try {
            for (let i = 1; i <= 30; i++) await store().put(key, versions[i % versions.length]!);
          } finally {
            writing = false;
          }
        })();
        const contentOf = new Map<Version, Buffer>();
        let reads = 0;
        while (writing || reads < 10) {
          reads++;
          const bytes = await reader.get(key);
          expect(bytes !== undefined && whole(bytes), 'get saw a part').toBe(true);
          const read = await reader.getIfChanged(key, undefined);
          if (read === undefined || read === 'unchanged') throw new Error('the key vanished while being replaced');
          expect(whole(read.bytes), 'getIfChanged saw a part').toBe(true);
          const known = contentOf.get(read.version);
          if (known) expect(known.equals(read.bytes), `version ${read.version} named two contents`).toBe(true);
          contentOf.set(read.version, read.bytes);
        }
        await writer;
        const last = await reader.getIfChanged(key, undefined);
        if (last === undefined || last === 'unchanged') throw new Error('expected bytes');
        expect(last.bytes.equals(versions[30 % versions.length]!)).toBe(true);
        expect(await reader.getIfChanged(key, last.version)).toBe('unchanged');
      });

      it('list never shows a write in progress: only keys put, all of them once put resolved', async () => {
        const keys = Array.from({ length: 40 }, (_, i) => `orgs/a/objects/${String(i).padStart(2, '0')}.json`);
        let writing = true;
        const writes = Promise.all(keys.map((key, i) => store().put(key, payload(i, 50_000)))).finally(() => {
          writing = false;
        });
        const put = new Set(keys);
        while (writing) {
          for (const listed of await store().list('orgs/')) expect(put.has(listed), listed).toBe(true);
        }
        await writes;
        expect(await store().list('orgs/')).toEqual(keys);
      });

      it('concurrent puts to one key leave one of them, whole', async () => {
        const key = 'orgs/a/current.json';
        const candidates = Array.from({ length: 12 }, (_, i) => payload(i, 20_000 + i * 1_000));
        await Promise.all(candidates.map((bytes) => store().put(key, bytes)));
        const final = await store().get(key);
        expect(candidates.some((bytes) => bytes.equals(final!))).toBe(true);
        expect(await store().list('')).toEqual([key]);
      });
    });

    describe('sweepInterrupted', () => {
      it('never touches a complete object, however old the cutoff makes it', async () => {
        const keys = ['orgs/a/current.json', 'orgs/a/objects/1.json', 'orgs/a/snapshots/s.json', 'x.partial.json'];
        for (const key of keys) await store().put(key, text(key));
        expect(await store().sweepInterrupted(new Date(Date.now() + 24 * 3_600_000))).toBe(0);
        expect(await store().list('')).toEqual([...keys].sort());
        for (const key of keys) expect((await store().get(key))?.toString()).toBe(key);
      });

      it('leaves puts in flight alone when they started after the cutoff', async () => {
        const cutoff = new Date(Date.now() - 3_600_000);
        const keys = Array.from({ length: 30 }, (_, i) => `orgs/a/objects/${String(i).padStart(2, '0')}.json`);
        const writes = Promise.all(keys.map((key, i) => store().put(key, payload(i, 100_000))));
        const sweeps = Promise.all([store().sweepInterrupted(cutoff), store().sweepInterrupted(cutoff)]);
        await writes;
        expect(await sweeps).toEqual([0, 0]);
        expect(await store().list('')).toEqual(keys);
        for (const [i, key] of keys.entries()) expect((await store().get(key))!.equals(payload(i, 100_000))).toBe(true);
      });

      itWith(hooks, 'interruptWrite')('hides the leftovers of a crashed write, removes and counts those older than the cutoff, keeps younger ones', async () => {
        const interruptWrite = harness().interruptWrite!;
        const now = Date.now();
        await store().put('orgs/a/current.json', text('complete'));
        await interruptWrite('orgs/a/current.json', text('comp'), new Date(now - 2 * 3_600_000));
        await interruptWrite('orgs/a/objects/old.json', text('{"ha'), new Date(now - 3 * 3_600_000));
        await interruptWrite('orgs/a/objects/young.json', text('{"ha'), new Date(now - 60_000));
        // Invisible: the key holds its complete bytes or nothing.
        expect(await store().list('')).toEqual(['orgs/a/current.json']);
        expect((await store().get('orgs/a/current.json'))?.toString()).toBe('complete');
        expect(await store().has('orgs/a/objects/old.json')).toBe(false);
        expect(await store().get('orgs/a/objects/young.json')).toBeUndefined();

        expect(await store().sweepInterrupted(new Date(now - 3_600_000))).toBe(2);
        expect(await store().sweepInterrupted(new Date(now - 3_600_000))).toBe(0);
        expect((await store().get('orgs/a/current.json'))?.toString()).toBe('complete');
        // The younger leftover is still there, and goes once the cutoff passes it.
        expect(await store().sweepInterrupted(new Date(now))).toBe(1);
        expect(await store().list('')).toEqual(['orgs/a/current.json']);
        await store().put('orgs/a/objects/young.json', text('{"whole":true}'));
        expect((await store().get('orgs/a/objects/young.json'))?.toString()).toBe('{"whole":true}');
      });
    });
  });
}
