// Orders are locale-independent: plain UTF-16 code-unit comparison (docs/design.md Orders).
import { describe, expect, it } from 'vitest';
import { compareCodeUnits, ordered } from '../../../../builder/projection/order.ts';

describe('ordered', () => {
  it('sorts text by code units, not by locale', () => {
    const names = ['émile', 'Zoë', 'zed', 'Ärger', 'apple', 'Apple', '😀', 'ﬀ'];
    expect(ordered(names, (name) => name)).toEqual(['Apple', 'Zoë', 'apple', 'zed', 'Ärger', 'émile', '😀', 'ﬀ']);
    expect(compareCodeUnits('a', 'a')).toBe(0);
  });

  it('sorts numbers numerically and breaks ties with later keys', () => {
    const rows = [
      { rank: 10, name: 'b', id: '2' },
      { rank: 9, name: 'z', id: '9' },
      { rank: 10, name: 'a', id: '3' },
      { rank: 10, name: 'a', id: '1' },
    ];
    expect(
      ordered(
        rows,
        (row) => row.rank,
        (row) => row.name,
        (row) => row.id,
      ).map((row) => row.id),
    ).toEqual(['9', '1', '3', '2']);
  });

  it('leaves its input untouched', () => {
    const input = [3, 1, 2];
    expect(ordered(input, (n) => n)).toEqual([1, 2, 3]);
    expect(input).toEqual([3, 1, 2]);
  });
});
