// Binding an HTTP server to its port and closing it: the same for the gateway (PORT) and the admin
// port (ADMIN_HOST:ADMIN_PORT), whatever each serves.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
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
   * From now on every answer carries `Connection: close`, so that each keep-alive connection ends
   * after its next answer instead of being cut while a client may be sending on it: a drain's first
   * step (bin/shutdown.ts), while the server still takes connections.
   */
  endKeepAlive(): void;
  /**
   * Stops taking connections, closes the idle ones (a client's keep-alive would otherwise hold the
   * process open), answers what is in flight with `Connection: close`, and resolves once every
   * request in flight is answered and its connection closed, so none is cut off.
   */
  close(): Promise<void>;
}

/** While closing, how often the connections that became idle since (an answer in flight, then nothing) are closed. */
const IDLE_SWEEP_MS = 50;

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
  let keepingAlive = true;
  const endKeepAlive = () => {
    if (!keepingAlive) return;
    keepingAlive = false;
    // First among the listeners, so the header is set before any handler writes the answer. Added
    // only now: until a drain the hot path pays nothing for it.
    server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
      res.setHeader('Connection', 'close');
    });
  };
  return {
    url: everyInterface ? `http://127.0.0.1:${bound.port}` : `http://${address}`,
    port: bound.port,
    address,
    everyInterface,
    endKeepAlive,
    close: async () => {
      endKeepAlive();
      const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      // A connection whose request began before endKeepAlive goes idle after its answer, and would
      // otherwise hold the close up to the keep-alive timeout.
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      try {
        await closed;
      } finally {
        clearInterval(sweep);
      }
    },
  };
}

/** An address as a URL's host: IPv6 in brackets, a zone's `%` escaped (RFC 6874). */
function urlHost({ address, family }: AddressInfo): string {
  return family === 'IPv6' ? `[${address.replace('%', '%25')}]` : address;
}
