// Free loopback ports for the servers the tests start.
import { createServer } from 'node:net';
import { until } from './until.ts';

/** Asks the kernel for a free port; the tiny race until the server binds it is acceptable in tests. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Whether something accepts TCP connections on the loopback port now. */
export async function acceptsConnections(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves once something accepts TCP connections on the port, or rejects after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs: number, what: string): Promise<void> {
  await until(`${what} to accept connections on 127.0.0.1:${port}`, () => acceptsConnections(port), { timeoutMs, intervalMs: 25 });
}
