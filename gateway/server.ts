// Binding the gateway to a port, apart from createGateway: its HTTP server's timeouts and protocol
// errors; listening and closing are runtime/http-server.ts's. Configuration is read by the caller
// (bin/); this only listens and waits for readiness.
import { createServer } from 'node:http';
import { listenHttp } from '../runtime/http-server.ts';
import { messageClassesOf } from '../runtime/express-messages.ts';
import { createGateway, type GatewayDeps } from './app.ts';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from './http-timeouts.ts';
import type { ProcessReadiness } from '../runtime/readiness.ts';
import { answerProtocolErrors, rejectMissingHost } from './protocol-errors.ts';

/** How often Node checks connections against the headers and request timeouts. */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

export interface StartGatewayOptions extends GatewayDeps {
  port: number;
  /** Default: every interface (Node's default); bin/ passes GATEWAY_HOST, or loopback for `start`. */
  host?: string;
  timeouts?: HttpTimeouts;
}

export interface RunningGateway {
  /** Where this machine reaches it, made of the address really bound: http://127.0.0.1:8080, http://[::1]:8080 (runtime/http-server.ts). */
  url: string;
  port: number;
  /** The address really bound, with its port: 127.0.0.1:8080, [::]:8080. */
  address: string;
  /** Bound to every interface (0.0.0.0 or ::): `url` is then loopback. */
  everyInterface: boolean;
  /** What its GET /readyz answers (runtime/readiness.ts), for the admin port to answer the same and a shutdown to drain. */
  readiness: ProcessReadiness;
  /** Every answer from now on closes its connection (runtime/http-server.ts): the start of a drain. */
  endKeepAlive(): void;
  /** Stops taking connections, answers the requests in flight, then moves the last usage counts. */
  close(): Promise<void>;
}

/** Resolves once the port is bound and GET /readyz answers 200; the caller reports it. */
export async function startGateway(options: StartGatewayOptions): Promise<RunningGateway> {
  const gateway = createGateway(options);
  const timeouts = options.timeouts ?? DEFAULT_HTTP_TIMEOUTS;
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, timeouts.headersMs),
      // Checked by rejectMissingHost instead, so the 400 is the API's problem+json, not Node's bare one.
      requireHostHeader: false,
      // With Express's prototypes from the start (runtime/express-messages.ts).
      ...messageClassesOf(gateway.app),
    },
    (req, res) => {
      if (!rejectMissingHost(req, res, options.metrics)) gateway.app(req, res);
    },
  );
  answerProtocolErrors(server, options.metrics);
  const listening = await listenHttp(server, { host: options.host, port: options.port });
  await gateway.ready;
  return {
    url: listening.url,
    port: listening.port,
    address: listening.address,
    everyInterface: listening.everyInterface,
    readiness: gateway.readiness,
    endKeepAlive: listening.endKeepAlive,
    close: async () => {
      await listening.close();
      await gateway.close();
    },
  };
}
