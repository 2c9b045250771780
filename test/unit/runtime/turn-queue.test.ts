// Work deferred to the end of the turn (runtime/turn-queue.ts): applied once per turn, in order,
// each item once, and at once when drained.
import { describe, expect, it } from 'vitest';
import { TurnQueue } from '../../../runtime/turn-queue.ts';

const turnEnds = () => new Promise((resolve) => setImmediate(resolve));

describe('TurnQueue', () => {
  it("applies a turn's items together once it ends, in order, and each turn's apart", async () => {
    const applied: number[][] = [];
    const queue = new TurnQueue<number>((items) => applied.push([...items]));
    queue.add(1);
    queue.add(2);
    queue.add(3);
    expect(applied).toEqual([]);
    await turnEnds();
    queue.add(4);
    await turnEnds();
    await turnEnds();
    expect(applied).toEqual([[1, 2, 3], [4]]);
  });

  it('applies at once when drained, and not again when the turn ends', async () => {
    const applied: number[][] = [];
    const queue = new TurnQueue<number>((items) => applied.push([...items]));
    queue.add(1);
    queue.drain();
    expect(applied).toEqual([[1]]);
    queue.drain();
    await turnEnds();
    expect(applied).toEqual([[1]]);
  });
});
