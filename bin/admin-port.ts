// A process's admin port (ADMIN_HOST:ADMIN_PORT) and the metrics it serves: the same for start,
// serve and builder (docs/design.md "Admin API and console").
import { createServer } from 'node:http';
import type { Express } from 'express';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { OperatorError } from '../runtime/errors.ts';
import { type ListeningServer, listenHttp } from '../runtime/http-server.ts';
import { messageClassesOf } from '../runtime/express-messages.ts';
import type { Config } from './config.ts';

/** The process's metrics: Node's own (memory, event loop, CPU) and whatever each part registers. */
export function processRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Binds `app` to the admin port; a busy or forbidden address is the operator's to fix, so the message names the variables. */
export function listenAdminPort(config: Config, app: Express): Promise<ListeningServer> {
  // Requests made with the app's prototypes, as the gateway's (runtime/express-messages.ts).
  return listenHttp(createServer({ ...messageClassesOf(app) }, app), { host: config.adminHost, port: config.adminPort }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new OperatorError(`ADMIN_PORT ${config.adminPort} is already in use on ${config.adminHost}; stop what listens there or set ADMIN_PORT to a free port`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new OperatorError(`ADMIN_HOST ${config.adminHost} is not an address of this machine`);
    throw error;
  });
}
