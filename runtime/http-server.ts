// Binding an HTTP server to its port and closing it: the same for the gateway (PORT) and the admin
// port (ADMIN_HOST:ADMIN_PORT), whatever each serves.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListeningServer {
  /**
   * Where this machine reaches it, made of the address really bound and its port (after PORT=0
   * too): http://127.0.0.1:8080, http://[::1]:8080; for a server on every interface, loopback.
   */
  url: string;
  port: number;
  /** The address really bound, with its port: 127.0.0.1:8080, [::1]:8080, 0.0.0.0:8080, [::]:8080. */
  address: string;
  /** Bound to every interface (0.0.0.0 or ::), not to one address. */
  everyInterface: boolean;
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
  const bound = server.address() as AddressInfo;
  const everyInterface = bound.address === '0.0.0.0' || bound.address === '::';
  const address = `${urlHost(bound)}:${bound.port}`;
  return {
    url: everyInterface ? `http://127.0.0.1:${bound.port}` : `http://${address}`,
    port: bound.port,
    address,
    everyInterface,
    close: () => {
      const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      server.closeIdleConnections();
      return closed;
    },
  };
}

/** An address as a URL's host: IPv6 in brackets, a zone's `%` escaped (RFC 6874). */
function urlHost({ address, family }: AddressInfo): string {
  return family === 'IPv6' ? `[${address.replace('%', '%25')}]` : address;
}
