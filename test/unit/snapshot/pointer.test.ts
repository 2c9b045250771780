import { describe, expect, it } from 'vitest';
import { parsePointer, SnapshotIntegrityError } from '../../../snapshot/reader.ts';

const ORG = 'a0000000-0000-4000-8000-000000000001';
const GOOD = {
  format: 1,
  organizationId: ORG,
  state: 'active',
  snapshotId: '20260501T090000123Z-3f2a9c0d1e4b',
  manifestHash: 'a'.repeat(64),
  publishedAt: '2026-05-01T09:00:00.123Z',
};
const bytes = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

describe('parsePointer', () => {
  it('reads a pointer, active or not', () => {
    expect(parsePointer(ORG, bytes(GOOD))).toEqual(GOOD);
    const suspended = { ...GOOD, state: 'suspended', snapshotId: null, manifestHash: null };
    expect(parsePointer(ORG, bytes(suspended))).toEqual(suspended);
  });

  it.each([
    ['not JSON', '{"format":1,', /not JSON/],
    ['not an object', 'null', /format/],
    ['another format', { ...GOOD, format: 2 }, /format is not 1/],
    ['another organization', { ...GOOD, organizationId: 'a0000000-0000-4000-8000-000000000002' }, /another organization/],
    ['an unknown state', { ...GOOD, state: 'paused' }, /unknown state/],
    ['a snapshot id of another shape', { ...GOOD, snapshotId: '../x' }, /bad snapshotId/],
    ['a manifest hash that is not one', { ...GOOD, manifestHash: 42 }, /bad manifestHash/],
    ['no publishedAt', { ...GOOD, publishedAt: undefined }, /no publishedAt/],
  ])('refuses %s', (_name, value, reason) => {
    const attempt = () => parsePointer(ORG, bytes(value));
    expect(attempt).toThrow(SnapshotIntegrityError);
    expect(attempt).toThrow(reason);
    expect(attempt).toThrow(`pointer of organization ${ORG} is malformed`);
  });
});
