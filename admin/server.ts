// Binding the admin app to ADMIN_HOST:ADMIN_PORT, apart from createAdminApp.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface RunningAdmin {
  /** e.g. http://127.0.0.1:8081 */
  url: string;
  close(): Promise<void>;
}

export async function listenAdmin(app: Express, { host, port }: { host: string; port: number }): Promise<RunningAdmin> {
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () => {
      const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      server.closeAllConnections();
      return closed;
    },
  };
}
