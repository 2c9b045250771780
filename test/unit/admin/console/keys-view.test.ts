import { describe, expect, it } from 'vitest';
import { type KeyItem, keyRow, keyState, originLines } from '../../../../admin/console/keys-view.ts';

const NOW = new Date('2026-11-22T10:00:00Z');
const key = (fields: Partial<KeyItem>): KeyItem =>
  ({
    id: 'k1',
    organizationId: 'o1',
    label: null,
    origins: [],
    createdAt: '2026-11-20T10:00:00Z',
    revokedAt: null,
    expiresAt: null,
    lastUsedAt: null,
    prefix: 'mqk_ab12',
    ...fields,
  }) as KeyItem;

describe('keyState', () => {
  it('is revoked from its revocation on, and active with the instant until a scheduled one (the grace of a roll)', () => {
    expect(keyState(key({ revokedAt: '2026-11-22T09:00:00Z' }), NOW)).toEqual({ state: 'revoked', text: 'revoked 2026-11-22T09:00:00.000Z' });
    expect(keyState(key({ revokedAt: '2026-11-22T11:00:00Z' }), NOW)).toEqual({ state: 'active', text: 'active until 2026-11-22T11:00:00.000Z (rolled)' });
  });

  it('is expired from its expiry on', () => {
    expect(keyState(key({ expiresAt: '2026-11-22T10:00:00Z' }), NOW)).toEqual({ state: 'expired', text: 'expired 2026-11-22T10:00:00.000Z' });
    expect(keyState(key({ expiresAt: '2026-11-23T10:00:00Z' }), NOW).state).toBe('active');
  });
});

it('names the organization and humanizes the instants of a row', () => {
  const row = keyRow(key({ lastUsedAt: '2026-11-22T09:58:00Z' }), new Map([['o1', 'Nordic']]), NOW);
  expect(row).toMatchObject({ organizationName: 'Nordic', prefix: 'mqk_ab12', createdAt: { age: '2 days ago' }, lastUsedAt: { age: '2 minutes ago' }, expiresAt: undefined });
  expect(keyRow(key({}), new Map(), NOW).organizationName).toBe('o1');
});

it('reads one origin per line, ignoring blank lines, spaces and Windows line ends', () => {
  expect(originLines(' https://a.example\r\n\r\nhttps://b.example  \n')).toEqual(['https://a.example', 'https://b.example']);
});
