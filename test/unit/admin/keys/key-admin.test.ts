// The key functions the CLI and the admin API share: origin validation, the one JSON shape
// (KeyView), update, roll, revoke, lookup by secret, and unknown ids named.
import { describe, expect, it } from 'vitest';
import { hashSecret, parseKey } from '../../../../records/keys/format.ts';
import { createKey, findKeyBySecret, KeyCommandError, listKeys, type OrganizationSlugs, revokeKey, rollKey, updateKey } from '../../../../admin/keys/key-admin.ts';
import { InMemoryKeyStore } from '../../../../records/keys/memory-store.ts';

const ORG = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
const T0 = new Date('2026-05-01T09:00:00.000Z');
const VIEW_FIELDS = ['createdAt', 'expiresAt', 'id', 'label', 'lastUsedAt', 'organizationId', 'organizationSlug', 'origins', 'prefix', 'revokedAt'];

/** Slugs as the platform database would answer; records the ids asked for. */
function slugs(): OrganizationSlugs & { asked: string[][] } {
  const asked: string[][] = [];
  return Object.assign(
    async (ids: string[]) => {
      asked.push(ids);
      return new Map(ids.filter((id) => id === ORG).map((id) => [id, 'nordic-dev']));
    },
    { asked },
  );
}

const store = () => new InMemoryKeyStore(() => T0);

describe('createKey', () => {
  it('returns the one shape plus the secret once, with normalized origins, the slug and a recognisable prefix', async () => {
    const keys = store();
    const created = await createKey(
      keys,
      { organizationId: ORG, label: 'site', origins: ['HTTPS://Example.ORG:443', 'http://localhost:3000', 'https://*.Example.org', 'https://example.org'] },
      slugs(),
      T0,
    );
    expect(Object.keys(created).sort()).toEqual(['key', ...VIEW_FIELDS].sort());
    expect(created).toMatchObject({ organizationId: ORG, organizationSlug: 'nordic-dev', label: 'site', expiresAt: null, revokedAt: null, lastUsedAt: null });
    expect(created.origins).toEqual(['https://example.org', 'http://localhost:3000', 'https://*.example.org']);
    expect(parseKey(created.key)).toEqual({ valid: true, secretHash: hashSecret(created.key) });
    expect(created.prefix).toBe(created.key.slice(0, 8));
    expect(created.prefix).toMatch(/^mqk_[0-9A-Za-z]{4}$/);
    expect((await keys.findBySecretHash(hashSecret(created.key)))?.id).toBe(created.id);
  });

  it('keeps an expiry in the future, refuses one in the past; without slugs the slug is null', async () => {
    const keys = store();
    const later = new Date(T0.getTime() + 1000);
    const created = await createKey(keys, { organizationId: 'other', label: null, origins: [], expiresAt: later }, undefined, T0);
    expect(created).toMatchObject({ expiresAt: later.toISOString(), organizationSlug: null });
    await expect(createKey(keys, { organizationId: ORG, label: null, origins: [], expiresAt: T0 }, slugs(), T0)).rejects.toThrow(/^expiresAt: .* is not in the future/);
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
  ])('refuses %s with a message naming it, creating nothing; update refuses it the same way', async (origin, message) => {
    const keys = store();
    const attempt = createKey(keys, { organizationId: ORG, label: null, origins: ['https://ok.example', origin] }, slugs());
    await expect(attempt).rejects.toThrow(KeyCommandError);
    await expect(attempt).rejects.toThrow(message);
    expect(await keys.list()).toEqual([]);
    const { id } = await createKey(keys, { organizationId: ORG, label: null, origins: ['https://kept.example'] }, slugs());
    await expect(updateKey(keys, id, { origins: [origin] }, slugs())).rejects.toThrow(message);
    expect((await keys.findById(id))?.origins).toEqual(['https://kept.example']);
  });
});

describe('listKeys and revokeKey', () => {
  it('lists oldest first in the one shape, never a secret or hash, asking for slugs once', async () => {
    const keys = store();
    const a = await createKey(keys, { organizationId: ORG, label: 'a', origins: [] }, slugs());
    await createKey(keys, { organizationId: 'other', label: null, origins: ['https://x.example'] }, slugs());
    const revoked = await revokeKey(keys, a.id, slugs(), T0);
    expect(revoked).toMatchObject({ id: a.id, revokedAt: T0.toISOString(), organizationSlug: 'nordic-dev' });
    const { key: _secret, ...view } = a;
    expect(await listKeys(keys, { organizationId: ORG }, slugs())).toEqual([{ ...view, revokedAt: T0.toISOString() }]);
    const resolver = slugs();
    const all = await listKeys(keys, {}, resolver);
    expect(all.map((key) => key.organizationSlug)).toEqual(['nordic-dev', null]);
    expect(resolver.asked).toEqual([[ORG, 'other']]);
    expect(JSON.stringify(all)).not.toMatch(/mqk_[0-9A-Za-z]{5}|secretHash|[0-9a-f]{64}/);
  });

  it('makes a scheduled revocation immediate, and is final', async () => {
    const keys = store();
    const { id } = await createKey(keys, { organizationId: ORG, label: null, origins: [] }, slugs());
    await rollKey(keys, id, { graceMs: 3_600_000 }, slugs(), T0);
    expect(await keys.findById(id)).toMatchObject({ revokedAt: '2026-05-01T10:00:00.000Z', revocationScheduled: true });
    expect((await revokeKey(keys, id, slugs(), T0)).revokedAt).toBe(T0.toISOString());
    expect((await keys.findById(id))?.revocationScheduled).toBe(false);
    // Neither a later revocation nor a later schedule moves or undoes it.
    expect((await revokeKey(keys, id, slugs(), new Date('2027-01-01T00:00:00Z'))).revokedAt).toBe(T0.toISOString());
    await keys.scheduleRevocation(id, new Date('2027-01-01T00:00:00Z'));
    expect(await keys.findById(id)).toMatchObject({ revokedAt: T0.toISOString(), revocationScheduled: false });
  });

  it('refuses an unknown id naming it, in every function that takes one', async () => {
    const keys = store();
    await expect(revokeKey(keys, 'key_nope', slugs())).rejects.toThrow(/no key has the id key_nope/);
    await expect(updateKey(keys, 'key_nope', { label: 'x' }, slugs())).rejects.toThrow(/no key has the id key_nope/);
    await expect(rollKey(keys, 'key_nope', { graceMs: 0 }, slugs())).rejects.toThrow(KeyCommandError);
  });
});

describe('updateKey', () => {
  it('replaces origins and/or label, leaving the rest', async () => {
    const keys = store();
    const { id } = await createKey(keys, { organizationId: ORG, label: 'site', origins: ['https://a.example'] }, slugs());
    expect(await updateKey(keys, id, { origins: ['HTTPS://B.example', 'https://b.example'] }, slugs())).toMatchObject({ origins: ['https://b.example'], label: 'site' });
    expect(await updateKey(keys, id, { label: 'renamed' }, slugs())).toMatchObject({ origins: ['https://b.example'], label: 'renamed' });
    expect(await updateKey(keys, id, { origins: [], label: '' }, slugs())).toMatchObject({ origins: [], label: null, organizationSlug: 'nordic-dev' });
  });

  it('refuses no change at all, and a key revoked or expired (bringing it back is not an edit)', async () => {
    const keys = store();
    const { id } = await createKey(keys, { organizationId: ORG, label: null, origins: [] }, slugs());
    await expect(updateKey(keys, id, {}, slugs())).rejects.toThrow(/nothing to change/);
    await revokeKey(keys, id, slugs(), T0);
    await expect(updateKey(keys, id, { label: 'x' }, slugs(), T0)).rejects.toThrow(`key ${id} is revoked`);
    const expiring = await createKey(keys, { organizationId: ORG, label: null, origins: [], expiresAt: new Date(T0.getTime() + 1) }, slugs(), T0);
    await expect(updateKey(keys, expiring.id, { label: 'x' }, slugs(), new Date(T0.getTime() + 1))).rejects.toThrow(`key ${expiring.id} is expired`);
  });
});

describe('rollKey', () => {
  it("makes a replacement with the same organization, origins and label, and schedules the old key's revocation", async () => {
    const keys = store();
    const old = await createKey(keys, { organizationId: ORG, label: 'site', origins: ['https://a.example'] }, slugs());
    const { replacement, replaced } = await rollKey(keys, old.id, { graceMs: 2_000 }, slugs(), T0);
    expect(replacement).toMatchObject({ organizationId: ORG, organizationSlug: 'nordic-dev', label: 'site', origins: ['https://a.example'], revokedAt: null });
    expect(replacement.id).not.toBe(old.id);
    expect(replacement.key).not.toBe(old.key);
    expect(parseKey(replacement.key).valid).toBe(true);
    expect(replaced).toMatchObject({ id: old.id, revokedAt: '2026-05-01T09:00:02.000Z' });
    // A second roll of the same key within the grace period keeps the earlier end.
    const again = await rollKey(keys, old.id, { graceMs: 60_000 }, slugs(), T0);
    expect(again.replaced.revokedAt).toBe('2026-05-01T09:00:02.000Z');
  });

  it('revokes at once with no grace, refuses a revoked key and a negative grace', async () => {
    const keys = store();
    const old = await createKey(keys, { organizationId: ORG, label: null, origins: [] }, slugs());
    await expect(rollKey(keys, old.id, { graceMs: -1 }, slugs(), T0)).rejects.toThrow(/grace period/);
    expect((await rollKey(keys, old.id, { graceMs: 0 }, slugs(), T0)).replaced.revokedAt).toBe(T0.toISOString());
    await expect(rollKey(keys, old.id, { graceMs: 0 }, slugs(), T0)).rejects.toThrow(`key ${old.id} is revoked`);
  });
});

describe('findKeyBySecret', () => {
  it('finds the key of a secret (pasted with white space too), never showing the secret; undefined for none', async () => {
    const keys = store();
    const created = await createKey(keys, { organizationId: ORG, label: 'leaky', origins: [] }, slugs());
    const found = await findKeyBySecret(keys, `  ${created.key}\n`, slugs());
    expect(found).toMatchObject({ id: created.id, label: 'leaky', organizationSlug: 'nordic-dev' });
    expect(JSON.stringify(found)).not.toContain(created.key);
    expect(await findKeyBySecret(keys, `${created.key.slice(0, -1)}${created.key.endsWith('x') ? 'y' : 'x'}`, slugs())).toBeUndefined();
    expect(await findKeyBySecret(keys, 'not a key', slugs())).toBeUndefined();
  });
});
