// Plain HTTP servers on loopback for tests that need a site beside the gateway (a page's origin,
// the gateway under a browser): started on a free port, and closed with their open connections so
// an afterAll never waits on a browser's keep-alive.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer(handler).listen(0, '127.0.0.1', () => resolve(server));
  });
}

export const portOf = (server: Server): number => (server.address() as AddressInfo).port;

/** Closes each server started (undefined: one a failed beforeAll never started). */
export async function closeServers(servers: ReadonlyArray<Server | undefined>): Promise<void> {
  for (const server of servers) {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
}
