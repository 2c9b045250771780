// The pure parts of named admin credentials: the secret's form, names, roles, expiry texts and
// whether a credential is accepted at an instant.
import { describe, expect, it } from 'vitest';
import { AdminCredentialError, adminRole, credentialExpiry, credentialName, credentialStanding } from '../../../../admin/credentials/credential-admin.ts';
import { generateCredentialSecret, hashCredentialSecret, isCredentialSecret, recognisablePrefixOf } from '../../../../records/credentials/credential-secret.ts';

describe("a credential's secret", () => {
  it('is mqa_ and 32 base64url characters, new each time, recognised by its first characters only', () => {
    const secrets = Array.from({ length: 200 }, generateCredentialSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^mqa_[A-Za-z0-9_-]{32}$/);
      expect(isCredentialSecret(secret)).toBe(true);
      expect(recognisablePrefixOf(secret)).toBe(secret.slice(0, 8));
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it('is told from ADMIN_TOKEN, an API key and a damaged copy without a look-up', () => {
    const secret = generateCredentialSecret();
    for (const other of [
      'a'.repeat(64),
      'mqk_0123456789012345678901234567890123',
      secret.slice(0, -1),
      `${secret}x`,
      `${secret.slice(0, -1)}!`,
      `MQA_${secret.slice(4)}`,
      ` ${secret}`,
      '',
    ]) {
      expect(isCredentialSecret(other), other).toBe(false);
    }
  });

  it('is stored as the SHA-256 hex of its text (a pinned vector)', () => {
    expect(hashCredentialSecret('mqa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toBe('96549acdc5fa9b07a55104ee22f1e54305f1e5791537bb7ff739a02027061ec4');
    expect(hashCredentialSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('names and roles', () => {
  it('takes lower-case names of letters, digits and . _ @ -, trimmed, at most 64', () => {
    expect(credentialName('alice')).toBe('alice');
    expect(credentialName(' ci-deploy ')).toBe('ci-deploy');
    expect(credentialName('ops.oncall_2@example.org')).toBe('ops.oncall_2@example.org');
    expect(credentialName('a'.repeat(64))).toBe('a'.repeat(64));
  });

  it('refuses other names with a message that says what a name may be, and root, which is ADMIN_TOKEN', () => {
    for (const bad of ['', 'Alice', '-x', 'cli:me@host', 'two words', 'a'.repeat(65), 'ü']) {
      expect(() => credentialName(bad), bad).toThrow(AdminCredentialError);
      expect(() => credentialName(bad), bad).toThrow(/lower-case letters, digits/);
    }
    expect(() => credentialName('root')).toThrow(/ADMIN_TOKEN/);
  });

  it('knows the three roles and names them when refusing another', () => {
    expect(adminRole('auditor')).toBe('auditor');
    expect(adminRole('operator')).toBe('operator');
    expect(adminRole('owner')).toBe('owner');
    expect(() => adminRole('admin')).toThrow('"admin" is not a role: use one of auditor, operator, owner');
    expect(() => adminRole('Owner')).toThrow(AdminCredentialError);
  });
});

describe('expiry', () => {
  const now = new Date('2026-11-26T12:00:00Z');

  it('is a duration from now or an ISO instant with its zone', () => {
    expect(credentialExpiry('90d', now).toISOString()).toBe('2027-02-24T12:00:00.000Z');
    expect(credentialExpiry('24h', now).toISOString()).toBe('2026-11-27T12:00:00.000Z');
    expect(credentialExpiry('2027-01-01T00:00:00+01:00', now).toISOString()).toBe('2026-12-31T23:00:00.000Z');
  });

  it('refuses anything else, naming the field expiresAt (the CLI alone says --expires)', () => {
    for (const bad of ['0', '0d', 'soon', '90', '2027-01-01T00:00:00', '-1d']) expect(() => credentialExpiry(bad, now), bad).toThrow(/^expiresAt: /);
  });

  it('a credential is usable until it expires or is revoked; revoked wins', () => {
    const at = Date.parse('2026-11-26T12:00:00Z');
    expect(credentialStanding({ expiresAt: null, revokedAt: null }, at)).toBe('usable');
    expect(credentialStanding({ expiresAt: '2026-11-26T12:00:00.001Z', revokedAt: null }, at)).toBe('usable');
    expect(credentialStanding({ expiresAt: '2026-11-26T12:00:00.000Z', revokedAt: null }, at)).toBe('expired');
    expect(credentialStanding({ expiresAt: '2026-11-01T00:00:00.000Z', revokedAt: '2026-11-02T00:00:00.000Z' }, at)).toBe('revoked');
    expect(credentialStanding({ expiresAt: null, revokedAt: '2026-11-26T12:00:00.000Z' }, at)).toBe('revoked');
  });
});
