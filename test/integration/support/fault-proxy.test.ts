// Unit tests of the fault proxy (test/support/fault-proxy.ts), in front of a tiny echo backend.
// Each fault does to a connection what its description says, and lifting it brings plain forwarding back.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../../support/fault-proxy.ts';

/** Answers every chunk with `echo:` and the chunk; remembers what it received. */
let backend: Server;
let received: string;
let proxy: FaultProxy;

beforeAll(async () => {
  backend = createServer((socket) => {
    socket.on('data', (chunk) => {
      received += chunk.toString();
      socket.write(`echo:${chunk}`);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const address = backend.address();
  if (typeof address !== 'object' || address === null) throw new Error('no backend address');
  proxy = await startFaultProxy({ host: '127.0.0.1', port: address.port });
});

afterEach(() => {
  proxy.set({ kind: 'pass' });
  received = '';
});

afterAll(async () => {
  await proxy?.close();
  await new Promise((resolve) => backend?.close(resolve));
});

interface Exchange {
  /** What came back before the connection ended or `waitMs` passed. */
  text: string;
  /** How the connection ended: 'end' (FIN), an error code, or 'open' when it was still open at `waitMs`. */
  ending: string;
  ms: number;
}

/** A connection to the proxy; what is written before it is established is sent once it is. */
function open(): Socket {
  return connect(proxy.port, '127.0.0.1');
}

/** Sends `message` on `socket` and collects the answer until `expected` bytes came, the connection ended, or `waitMs`. */
function exchange(socket: Socket, message: string, { expected = Infinity, waitMs = 2_000 } = {}): Promise<Exchange> {
  const started = performance.now();
  return new Promise((resolve) => {
    let text = '';
    const finish = (ending: string) => {
      clearTimeout(timer);
      socket.removeAllListeners('data');
      resolve({ text, ending, ms: performance.now() - started });
    };
    const timer = setTimeout(() => finish('open'), waitMs);
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if (text.length >= expected) finish('complete');
    });
    socket.once('end', () => finish('end'));
    socket.once('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    socket.write(message);
  });
}

describe('fault proxy', () => {
  it('passes bytes both ways untouched', async () => {
    const socket = open();
    expect(await exchange(socket, 'hello', { expected: 10 })).toMatchObject({ text: 'echo:hello', ending: 'complete' });
    socket.destroy();
  });

  it('delays each chunk in each direction, and a new connection before it reaches the backend', async () => {
    const before = proxy.stats.faulted;
    proxy.set({ kind: 'delay', ms: 300 });
    const socket = open();
    const answer = await exchange(socket, 'slow', { expected: 9 });
    expect(answer.text).toBe('echo:slow');
    // The request's hold runs beside the connection's, then the answer's: two holds of 300 ms.
    expect(answer.ms).toBeGreaterThanOrEqual(550);
    expect(proxy.stats.faulted - before).toBeGreaterThanOrEqual(3);
    socket.destroy();
  });

  it('adds no latency once a delay is healed, on a connection opened during it and on a new one', async () => {
    proxy.set({ kind: 'delay', ms: 400 });
    const during = open();
    expect((await exchange(during, 'a', { expected: 6 })).ms).toBeGreaterThanOrEqual(700);
    proxy.set({ kind: 'pass' });
    const faulted = proxy.stats.faulted;
    const again = await exchange(during, 'b', { expected: 6 });
    expect(again.text).toBe('echo:b');
    expect(again.ms).toBeLessThan(300);
    const fresh = open();
    expect(await exchange(fresh, 'c', { expected: 6 })).toMatchObject({ text: 'echo:c', ending: 'complete' });
    expect(proxy.stats.faulted).toBe(faulted);
    during.destroy();
    fresh.destroy();
  });

  it('resets open connections when set, new ones as they come, and forwards again once lifted', async () => {
    const socket = open();
    expect((await exchange(socket, 'one', { expected: 8 })).text).toBe('echo:one');
    const ended = new Promise<string>((resolve) => socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? '')));
    proxy.set({ kind: 'reset' });
    expect(await ended).toBe('ECONNRESET');
    const next = open();
    expect((await exchange(next, 'two')).ending).toBe('ECONNRESET');
    proxy.set({ kind: 'pass' });
    const after = open();
    expect((await exchange(after, 'three', { expected: 10 })).text).toBe('echo:three');
    after.destroy();
  });

  it('truncates what the backend sends after the given bytes, then closes', async () => {
    const socket = open();
    proxy.set({ kind: 'truncate', bytes: 7 });
    expect(await exchange(socket, 'truncated')).toEqual(expect.objectContaining({ text: 'echo:tr', ending: 'end' }));
    expect(received).toBe('truncated');
  });

  it('holds everything in a blackhole, and lets it go on in order once lifted', async () => {
    proxy.set({ kind: 'blackhole' });
    const socket = open();
    expect(await exchange(socket, 'held', { waitMs: 400 })).toMatchObject({ text: '', ending: 'open' });
    expect(received).toBe('');
    const answer = exchange(socket, '', { expected: 9 });
    proxy.set({ kind: 'pass' });
    expect((await answer).text).toBe('echo:held');
    socket.destroy();
  });

  it('shows a request to a watcher before the fault applies to it, so a fault can begin at that request', async () => {
    const socket = open();
    const unwatch = proxy.watch((chunk) => {
      if (chunk.toString().includes('BEGIN')) proxy.set({ kind: 'reset' });
    });
    expect((await exchange(socket, 'SELECT 1', { expected: 13 })).text).toBe('echo:SELECT 1');
    expect((await exchange(socket, 'BEGIN')).ending).toBe('ECONNRESET');
    unwatch();
    expect(received).toBe('SELECT 1');
  });
});
