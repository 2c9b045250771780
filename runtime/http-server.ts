// Binding an HTTP server to its port and closing it: the same for the gateway (PORT) and the admin
// port (ADMIN_HOST:ADMIN_PORT), whatever each serves.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListeningServer {
  /** e.g. http://127.0.0.1:8080: where this machine reaches it (loopback for a server on every interface). */
  url: string;
  port: number;
  /**
   * Stops taking connections, closes the idle ones (a client's keep-alive would otherwise hold the
   * process open) and resolves once the requests in flight are answered, so none is cut off.
   */
  close(): Promise<void>;
}

/** Resolves once `server` is bound; a busy or foreign address rejects with Node's error (its `code`), for the caller to name its variable. */
export async function listenHttp(server: Server, { host, port }: { host?: string | undefined; port: number }): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = host === undefined ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    close: () => {
      const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      server.closeIdleConnections();
      return closed;
    },
  };
}
