import { connect, createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { DeadlineExceeded, withinDeadline } from '../../../runtime/deadline.ts';

/** Blocks the event loop, as a long garbage collection or a stopped process does. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('withinDeadline', () => {
  it('settles as the promise does when it settles in time', async () => {
    await expect(withinDeadline(Promise.resolve(7), 50, 'seven')).resolves.toBe(7);
    await expect(withinDeadline(Promise.reject(new Error('refused')), 50, 'refusal')).rejects.toThrow('refused');
  });

  it('rejects with DeadlineExceeded, naming what was awaited, when nothing comes', async () => {
    const error = await withinDeadline(new Promise(() => {}), 20, 'Redis PING').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DeadlineExceeded);
    expect((error as Error).message).toBe('Redis PING not answered within 20 ms');
  });

  it('lets a reply that arrived while the loop was stalled past the deadline win', async () => {
    // A peer that has answered before the stall, over a real socket: the answer waits in the kernel, unread.
    let answered: () => void = () => {};
    const written = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const server = createServer((socket) => socket.end('pong', answered));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const socket = connect(port, '127.0.0.1');
      const reply = new Promise<string>((resolve) => socket.once('data', (data) => resolve(String(data))));
      await written;
      const judged = withinDeadline(reply, 20, 'pong');
      stall(200);
      await expect(judged).resolves.toBe('pong');
    } finally {
      server.close();
    }
  });
});
