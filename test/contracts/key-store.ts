// The promises of KeyStore (records/keys/key-store.ts), as one suite every backend runs: the key
// file, the in-memory store of the tests, the Redis store (the gateways' copy) and the durable
// record in PostgreSQL and PGlite, alone and written through to Redis. What a backend must do:
//
// - create: returns the record and a secret in the key format (records/keys/format.ts) whose
//   SHA-256 is the record's secretHash and finds the record; a fresh public id and secret each
//   time; the secret is stored nowhere (no record holds it); the record keeps the organization,
//   label and origins as given (a copy), revokedAt null, createdAt an ISO instant;
// - findBySecretHash: the record, revoked or not; undefined for any other hash; sync or async;
// - revoke: true and revokedAt = the given instant, revocationScheduled false, from the next call
//   on; final (revoking again is true and keeps the first time); false for an unknown id,
//   changing nothing;
// - scheduleRevocation: revokedAt = the instant with revocationScheduled; the earlier of two
//   schedules kept; an outright revocation replaces a schedule (the earlier instant kept) and is
//   never turned back into one; false for an unknown id;
// - create keeps expiresAt (null when not given), a recognisable prefix of the secret, lastUsedAt null;
// - findById: the record, or undefined;
// - update: replaces origins and/or label only (null clears the label), from the next call on;
//   undefined for an unknown id;
// - recordUse: each known key keeps the later of its lastUsedAt and the given instant; unknown
//   ids ignored; a concurrent update or revocation is not lost;
// - list: every key, or one organization's, revoked ones included;
// - concurrency: creates and revokes issued together lose nothing;
// - with a second view (another process on the same data): its creates and revocations are seen
//   from the next call on, and creates spread over both views lose nothing.
//
// Not promised: the order of list (compared as sets here).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseKey } from '../../records/keys/format.ts';
import type { KeyRecord, KeyStore, NewKey } from '../../records/keys/key-store.ts';
import { type ContractHooks, useHarness, itWith } from './harness.ts';

export interface KeyStoreHarness {
  store: KeyStore;
  /** Another store on the same data, as another process (the CLI beside a gateway) opens it. */
  other?: () => KeyStore;
}

const ORG = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
const OTHER_ORG = '9f8e7d6c-5b4a-4321-8fed-cba987654321';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const ids = (records: KeyRecord[]): string[] => records.map((record) => record.id).sort();
const newKey = (key: Partial<NewKey> = {}): NewKey => ({ organizationId: ORG, label: null, origins: [], ...key });

export function keyStoreContract<H extends KeyStoreHarness>(name: string, hooks: ContractHooks<H>): void {
  describe(`KeyStore contract: ${name}`, () => {
    const harness = useHarness(hooks);
    const store = () => harness().store;

    describe('create and findBySecretHash', () => {
      it('a new store lists nothing and finds nothing', async () => {
        expect(await store().list()).toEqual([]);
        expect(await store().list(ORG)).toEqual([]);
        expect(await store().findBySecretHash(sha256('anything'))).toBeUndefined();
      });

      it('returns a well-formed secret whose SHA-256 finds the record', async () => {
        const { record, secret } = await store().create(newKey({ label: 'site', origins: ['https://www.example.org', 'https://*.example.net'] }));
        expect(parseKey(secret)).toEqual({ valid: true, secretHash: sha256(secret) });
        expect(record.secretHash).toBe(sha256(secret));
        expect(record).toMatchObject({
          organizationId: ORG,
          label: 'site',
          origins: ['https://www.example.org', 'https://*.example.net'],
          revokedAt: null,
        });
        expect(record.id).toMatch(/^key_/);
        expect(new Date(record.createdAt).toISOString()).toBe(record.createdAt);
        expect(await store().findBySecretHash(sha256(secret))).toEqual(record);
      });

      it('stores only the hash: no record, found or listed, holds the secret', async () => {
        const { record, secret } = await store().create(newKey());
        const body = secret.slice(4, 34);
        for (const seen of [record, await store().findBySecretHash(record.secretHash), ...(await store().list())]) {
          const text = JSON.stringify(seen);
          expect(text).not.toContain(secret);
          expect(text).not.toContain(body);
        }
      });

      it('gives every key its own id and secret', async () => {
        const created = [];
        for (let i = 0; i < 20; i++) created.push(await store().create(newKey({ organizationId: i % 2 ? ORG : OTHER_ORG })));
        expect(new Set(created.map((c) => c.record.id)).size).toBe(20);
        expect(new Set(created.map((c) => c.secret)).size).toBe(20);
        for (const { record, secret } of created) expect(await store().findBySecretHash(sha256(secret))).toEqual(record);
      });

      it("keeps the key as created: later changes to the caller's origins do not reach it", async () => {
        const origins = ['https://www.example.org'];
        const { record } = await store().create(newKey({ origins }));
        origins.push('https://evil.example');
        expect((await store().findBySecretHash(record.secretHash))?.origins).toEqual(['https://www.example.org']);
        expect((await store().list(ORG))[0]?.origins).toEqual(['https://www.example.org']);
      });

      it('finds nothing for any other hash', async () => {
        const { secret } = await store().create(newKey());
        expect(await store().findBySecretHash(sha256(`${secret}x`))).toBeUndefined();
        expect(await store().findBySecretHash(sha256(secret).toUpperCase())).toBeUndefined();
        expect(await store().findBySecretHash(secret)).toBeUndefined();
        expect(await store().findBySecretHash('')).toBeUndefined();
      });
    });

    describe('revoke', () => {
      it('revokes from the next call on, at the given instant; the record is still found, other keys untouched', async () => {
        const a = await store().create(newKey({ label: 'a' }));
        const b = await store().create(newKey({ label: 'b' }));
        const at = new Date('2026-05-01T09:00:00.123Z');
        expect(await store().revoke(a.record.id, at)).toBe(true);
        expect(await store().findBySecretHash(a.record.secretHash)).toEqual({ ...a.record, revokedAt: at.toISOString() });
        expect(await store().findBySecretHash(b.record.secretHash)).toEqual(b.record);
        const listed = await store().list(ORG);
        expect(listed.find((record) => record.id === a.record.id)?.revokedAt).toBe(at.toISOString());
        expect(listed.find((record) => record.id === b.record.id)?.revokedAt).toBeNull();
      });

      it('is final: revoking again answers true and keeps the first instant', async () => {
        const { record } = await store().create(newKey());
        const first = new Date('2026-05-01T09:00:00Z');
        expect(await store().revoke(record.id, first)).toBe(true);
        expect(await store().revoke(record.id, new Date('2027-01-01T00:00:00Z'))).toBe(true);
        expect((await store().findBySecretHash(record.secretHash))?.revokedAt).toBe(first.toISOString());
      });

      it('answers false for an unknown id and changes nothing', async () => {
        const { record } = await store().create(newKey());
        const before = await store().list();
        expect(await store().revoke('key_doesnotexist', new Date())).toBe(false);
        expect(await store().revoke('', new Date())).toBe(false);
        expect(await store().revoke(record.secretHash, new Date())).toBe(false);
        expect(await store().list()).toEqual(before);
        expect((await store().findBySecretHash(record.secretHash))?.revokedAt).toBeNull();
      });
    });

    describe('expiry, prefix and lookup by id', () => {
      it('keeps the expiry and a recognisable prefix of the secret, no last use; finds by id', async () => {
        const expiresAt = new Date('2027-01-01T00:00:00.000Z');
        const { record, secret } = await store().create(newKey({ expiresAt }));
        expect(record).toMatchObject({ expiresAt: expiresAt.toISOString(), prefix: secret.slice(0, 8), lastUsedAt: null, revocationScheduled: false });
        expect(await store().findById(record.id)).toEqual(record);
        expect(await store().findBySecretHash(record.secretHash)).toEqual(record);
        expect((await store().create(newKey())).record.expiresAt).toBeNull();
        expect(await store().findById('key_doesnotexist')).toBeUndefined();
        expect(await store().findById(record.secretHash)).toBeUndefined();
      });
    });

    describe('update', () => {
      it('replaces origins and/or label, nothing else, from the next call on; other keys untouched', async () => {
        const a = await store().create(newKey({ label: 'a', origins: ['https://a.example'] }));
        const b = await store().create(newKey({ label: 'b' }));
        const origins = ['https://new.example', 'https://*.new.example'];
        const changed = await store().update(a.record.id, { origins });
        expect(changed).toEqual({ ...a.record, origins });
        origins.push('https://evil.example');
        expect(await store().findBySecretHash(a.record.secretHash)).toEqual({ ...a.record, origins: ['https://new.example', 'https://*.new.example'] });
        expect(await store().update(a.record.id, { label: 'renamed' })).toMatchObject({ label: 'renamed', origins: ['https://new.example', 'https://*.new.example'] });
        expect(await store().update(a.record.id, { label: null, origins: [] })).toEqual({ ...a.record, label: null, origins: [] });
        expect(await store().findById(a.record.id)).toEqual({ ...a.record, label: null, origins: [] });
        expect(await store().findBySecretHash(b.record.secretHash)).toEqual(b.record);
      });

      it('answers undefined for an unknown id and creates nothing', async () => {
        expect(await store().update('key_doesnotexist', { label: 'x' })).toBeUndefined();
        expect(await store().list()).toEqual([]);
      });
    });

    describe('scheduled revocation', () => {
      const LATER = new Date('2026-06-01T00:00:00.000Z');
      const SOONER = new Date('2026-05-15T00:00:00.000Z');

      it('schedules, keeps the earlier of two schedules, and is replaced by an outright revocation', async () => {
        const { record } = await store().create(newKey());
        expect(await store().scheduleRevocation(record.id, LATER)).toBe(true);
        expect(await store().findBySecretHash(record.secretHash)).toEqual({ ...record, revokedAt: LATER.toISOString(), revocationScheduled: true });
        expect(await store().scheduleRevocation(record.id, new Date('2027-01-01T00:00:00Z'))).toBe(true);
        expect((await store().findById(record.id))?.revokedAt).toBe(LATER.toISOString());
        expect(await store().scheduleRevocation(record.id, SOONER)).toBe(true);
        expect((await store().findById(record.id))?.revokedAt).toBe(SOONER.toISOString());
        // Revoked outright: at once, at the earlier instant.
        expect(await store().revoke(record.id, LATER)).toBe(true);
        expect(await store().findById(record.id)).toMatchObject({ revokedAt: SOONER.toISOString(), revocationScheduled: false });
      });

      it('never turns an outright revocation into a scheduled one', async () => {
        const { record } = await store().create(newKey());
        await store().revoke(record.id, LATER);
        expect(await store().scheduleRevocation(record.id, SOONER)).toBe(true);
        expect(await store().findById(record.id)).toMatchObject({ revokedAt: LATER.toISOString(), revocationScheduled: false });
        expect(await store().scheduleRevocation('key_doesnotexist', SOONER)).toBe(false);
      });
    });

    describe('recordUse', () => {
      it('keeps the later instant per key and ignores unknown ids', async () => {
        const a = await store().create(newKey());
        const b = await store().create(newKey());
        const t1 = new Date('2026-05-01T09:00:00.000Z');
        const t2 = new Date('2026-05-01T09:05:00.000Z');
        await store().recordUse(
          new Map([
            [a.record.id, t2],
            ['key_doesnotexist', t1],
          ]),
        );
        await store().recordUse(
          new Map([
            [a.record.id, t1],
            [b.record.id, t1],
          ]),
        );
        expect((await store().findById(a.record.id))?.lastUsedAt).toBe(t2.toISOString());
        expect(await store().findBySecretHash(b.record.secretHash)).toEqual({ ...b.record, lastUsedAt: t1.toISOString() });
        expect(await store().list()).toHaveLength(2);
        await store().recordUse(new Map());
      });

      it('loses no update or revocation made at the same time', async () => {
        const keys = await Promise.all(Array.from({ length: 10 }, () => store().create(newKey())));
        const at = new Date('2026-05-01T09:00:00.000Z');
        await Promise.all([
          ...keys.map(({ record }, i) => (i % 2 ? store().update(record.id, { label: `k${i}` }) : store().revoke(record.id, at))),
          store().recordUse(new Map(keys.map(({ record }) => [record.id, at]))),
        ]);
        for (const [i, { record }] of keys.entries()) {
          expect(await store().findById(record.id)).toMatchObject({ lastUsedAt: at.toISOString(), ...(i % 2 ? { label: `k${i}` } : { revokedAt: at.toISOString() }) });
        }
      });
    });

    describe('list', () => {
      it("lists every key, or one organization's, revoked ones included", async () => {
        const a = await store().create(newKey({ organizationId: ORG }));
        const b = await store().create(newKey({ organizationId: OTHER_ORG, label: 'other' }));
        const c = await store().create(newKey({ organizationId: ORG }));
        await store().revoke(c.record.id, new Date());
        expect(ids(await store().list())).toEqual(ids([a.record, b.record, c.record]));
        expect(ids(await store().list(ORG))).toEqual(ids([a.record, c.record]));
        expect(await store().list(OTHER_ORG)).toEqual([b.record]);
        expect(await store().list('00000000-0000-4000-8000-000000000000')).toEqual([]);
        for (const record of await store().list()) expect(await store().findBySecretHash(record.secretHash)).toEqual(record);
      });
    });

    describe('concurrency', () => {
      it('loses no key when many creates run at once', async () => {
        const created = await Promise.all(Array.from({ length: 40 }, (_, i) => store().create(newKey({ label: `k${i}` }))));
        expect(ids(await store().list())).toEqual(ids(created.map((c) => c.record)));
        for (const { record, secret } of created) expect(await store().findBySecretHash(sha256(secret))).toEqual(record);
      });

      it('loses no revocation and no key when revokes and creates run at once', async () => {
        const existing = await Promise.all(Array.from({ length: 10 }, () => store().create(newKey())));
        const at = new Date('2026-05-01T09:00:00Z');
        const [revoked, created] = await Promise.all([
          Promise.all(existing.map(({ record }) => store().revoke(record.id, at))),
          Promise.all(Array.from({ length: 10 }, () => store().create(newKey({ organizationId: OTHER_ORG })))),
        ]);
        expect(revoked).toEqual(existing.map(() => true));
        for (const { record } of existing) expect((await store().findBySecretHash(record.secretHash))?.revokedAt).toBe(at.toISOString());
        expect(ids(await store().list(OTHER_ORG))).toEqual(ids(created.map((c) => c.record)));
        expect(await store().list()).toHaveLength(20);
      });

      itWith(hooks, 'other')('loses no key when creates spread over several views run at once', async () => {
        const other = harness().other!;
        const views = [store(), other(), other(), other()];
        const created = await Promise.all(Array.from({ length: 40 }, (_, i) => views[i % views.length]!.create(newKey({ label: `k${i}` }))));
        for (const view of views) expect(ids(await view.list())).toEqual(ids(created.map((c) => c.record)));
      });
    });

    // A store with one view of its data (in memory) has nothing to show here.
    if (hooks.capabilities?.includes('other'))
      describe('changes through another view', () => {
        itWith(hooks, 'other')('sees a key created through another view from the next call on', async () => {
          const other = harness().other!;
          // The first view has answered before, so anything it keeps in memory is now stale.
          expect(await store().list()).toEqual([]);
          expect(await store().findBySecretHash(sha256('x'))).toBeUndefined();
          const { record, secret } = await other().create(newKey());
          expect(await store().findBySecretHash(sha256(secret))).toEqual(record);
          expect(await store().list(ORG)).toEqual([record]);
        });

        itWith(hooks, 'other')("sees an update and another view's last-use report from the next call on, and loses neither", async () => {
          const other = harness().other!;
          const { record } = await store().create(newKey({ origins: ['https://a.example'] }));
          expect((await store().findBySecretHash(record.secretHash))?.origins).toEqual(['https://a.example']);
          const at = new Date('2026-05-01T09:00:00.000Z');
          // A gateway's report and a CLI edit through different views at the same time.
          await Promise.all([other().update(record.id, { origins: ['https://b.example'] }), store().recordUse(new Map([[record.id, at]]))]);
          expect(await store().findBySecretHash(record.secretHash)).toMatchObject({ origins: ['https://b.example'], lastUsedAt: at.toISOString() });
          expect(await other().findById(record.id)).toMatchObject({ origins: ['https://b.example'], lastUsedAt: at.toISOString() });
        });

        itWith(hooks, 'other')('sees a revocation made through another view from the next call on', async () => {
          const other = harness().other!;
          const { record } = await store().create(newKey());
          expect((await store().findBySecretHash(record.secretHash))?.revokedAt).toBeNull();
          const at = new Date('2026-05-01T09:00:00Z');
          expect(await other().revoke(record.id, at)).toBe(true);
          expect((await store().findBySecretHash(record.secretHash))?.revokedAt).toBe(at.toISOString());
          expect((await store().list())[0]?.revokedAt).toBe(at.toISOString());
          // And the other way round: this view's revocation is final for the other one too.
          expect(await store().revoke(record.id, new Date('2027-01-01T00:00:00Z'))).toBe(true);
          expect((await other().findBySecretHash(record.secretHash))?.revokedAt).toBe(at.toISOString());
        });
      });
  });
}
