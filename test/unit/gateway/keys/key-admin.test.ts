// The `keys create|revoke|list` functions: origin validation and the CLI's JSON shapes.
import { describe, expect, it } from 'vitest';
import { KeyCommandError, createKey, listKeys, revokeKey } from '../../../../gateway/keys/key-admin.ts';
import { hashSecret, parseKey } from '../../../../gateway/keys/format.ts';
import { CountingKeyStore } from '../../../support/keys.ts';

const ORG = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';

describe('createKey', () => {
  it('returns the id, the secret once, and the normalized origins', async () => {
    const store = new CountingKeyStore();
    const created = await createKey(store, {
      organizationId: ORG,
      label: 'site',
      origins: ['HTTPS://Example.ORG:443', 'http://localhost:3000', 'https://*.Example.org', 'https://example.org'],
    });
    expect(Object.keys(created).sort()).toEqual(['id', 'key', 'organizationId', 'origins']);
    expect(created.organizationId).toBe(ORG);
    expect(created.origins).toEqual(['https://example.org', 'http://localhost:3000', 'https://*.example.org']);
    expect(parseKey(created.key)).toEqual({ valid: true, secretHash: hashSecret(created.key) });
    expect((await store.findBySecretHash(hashSecret(created.key)))?.id).toBe(created.id);
  });

  it.each([
    ['https://example.org/path', /"https:\/\/example.org\/path" is not an origin/],
    ['https://example.org/', /without path/],
    ['null', /"null"/],
    ['example.org', /"example.org" is not an origin/],
    ['ftp://example.org', /"ftp:\/\/example.org"/],
    ['https://*.org', /"https:\/\/\*.org": a wildcard needs/],
    ['https://a.*.example.org', /"https:\/\/a.\*.example.org"/],
    ['https://example.org:70000', /"https:\/\/example.org:70000"/],
  ])('refuses %s with a message naming it, creating nothing', async (origin, message) => {
    const store = new CountingKeyStore();
    const attempt = createKey(store, { organizationId: ORG, label: null, origins: ['https://ok.example', origin] });
    await expect(attempt).rejects.toThrow(KeyCommandError);
    await expect(attempt).rejects.toThrow(message);
    expect(await store.list()).toEqual([]);
  });
});

describe('revokeKey and listKeys', () => {
  it('lists without secrets or hashes, and revokes by id', async () => {
    const store = new CountingKeyStore();
    const a = await createKey(store, { organizationId: ORG, label: 'a', origins: [] });
    await createKey(store, { organizationId: 'other', label: null, origins: ['https://x.example'] });

    await revokeKey(store, a.id);
    const listed = await listKeys(store, ORG);
    expect(listed).toEqual([{ id: a.id, organizationId: ORG, label: 'a', origins: [], createdAt: expect.any(String), revokedAt: expect.any(String) }]);
    expect(JSON.stringify(await listKeys(store))).not.toMatch(/mqk_|secretHash|[0-9a-f]{64}/);
    expect(await listKeys(store)).toHaveLength(2);
  });

  it('refuses an unknown id with a clear error', async () => {
    await expect(revokeKey(new CountingKeyStore(), 'key_nope')).rejects.toThrow(/no key has the id key_nope/);
  });
});
