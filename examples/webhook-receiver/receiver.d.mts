// Types of receiver.mjs, for TypeScript code that imports it (the repository's test does). The
// example itself is plain JavaScript with JSDoc types; keep the two in step.
import type { IncomingMessage, Server } from 'node:http';

export interface ReceiverOptions {
  /** The endpoint's signing secret, `whsec_…`. */
  secret: string;
  /** The organization's API key. */
  key: string;
  /** The API's origin (`https://api.example.com`). */
  api: string;
  onChange?: (path: string, body: unknown, etag: string) => void;
  log?: (line: string) => void;
}

export class WebhookReceiver {
  constructor(options: ReceiverOptions);
  /** API path → the last body and its ETag. */
  cache: Map<string, { etag: string; body: unknown }>;
  listen(port?: number, host?: string): Promise<Server>;
  settled(): Promise<void>;
  /** 'ok', or why the message is refused. */
  verify(req: IncomingMessage, body: string): string;
}
