import { describe, expect, it } from 'vitest';
import { isUuid } from '../../../../builder/platform/ids.ts';

describe('isUuid', () => {
  it('accepts uuids in either case and nothing else', () => {
    expect(isUuid('a0000000-0000-4000-8000-000000000001')).toBe(true);
    expect(isUuid('A0000000-0000-4000-8000-00000000000F')).toBe(true);
    expect(isUuid('nordic-dev')).toBe(false);
    expect(isUuid('a0000000-0000-4000-8000-000000000001 ')).toBe(false);
    expect(isUuid('a0000000000040008000000000000001')).toBe(false);
  });
});
