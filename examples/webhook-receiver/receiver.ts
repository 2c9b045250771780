// An organization site's webhook receiver, with nothing but Node: it checks each message's
// signature (Standard Webhooks, by hand), drops a message it has already handled (by webhook-id:
// delivery is at least once), answers at once, and then refetches every API path the message
// lists with the ETag it has cached, so an unchanged answer costs a 304. Run it with
//   MARQUEE_WEBHOOK_SECRET=whsec_… MARQUEE_KEY=mqk_… MARQUEE_API=https://api.example.com node receiver.ts
// and register http(s)://<this host>:3000/marquee as the organization's endpoint.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/** A message older or newer than this is refused: a replayed capture cannot be sent again later. */
const TOLERANCE_SECONDS = 5 * 60;
/** Message ids remembered for deduplication; a redelivery comes within days, not millions of messages. */
const SEEN_KEPT = 10_000;

export interface ReceiverOptions {
  /** The endpoint's signing secret, `whsec_…` (during a rotation, the new one; the old one still verifies too). */
  secret: string;
  /** The organization's API key, and the API's origin (`https://api.example.com`). */
  key: string;
  api: string;
  /** Told of every resource refetched that changed: where a site rebuilds a page or purges its cache. */
  onChange?: (path: string, body: unknown) => void;
}

interface Cached {
  etag: string;
  body: unknown;
}

export class WebhookReceiver {
  /** What the site serves from: API path → the last body and its ETag. */
  readonly cache = new Map<string, Cached>();
  private readonly seen = new Set<string>();
  /** Refetches in progress (tests and shutdown wait for them). */
  private pending: Promise<void> = Promise.resolve();

  constructor(private readonly options: ReceiverOptions) {}

  listen(port = 3000, host = '0.0.0.0'): Promise<Server> {
    const server = createServer(async (req, res) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const body = await readBody(req);
      const verdict = this.verify(req, body);
      if (verdict !== 'ok') return void res.writeHead(401, { 'content-type': 'text/plain' }).end(verdict);
      // Answer first, work after: the sender waits at most 10 s and retries what it does not get a 2xx for.
      res.writeHead(204).end();
      this.handle(String(req.headers['webhook-id']), JSON.parse(body));
    });
    return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
  }

  /** Resolves once every refetch started so far is done. */
  settled(): Promise<void> {
    return this.pending;
  }

  /** 'ok', or why the message is refused. */
  verify(req: IncomingMessage, body: string): string {
    const id = req.headers['webhook-id'];
    const timestamp = req.headers['webhook-timestamp'];
    const signatures = req.headers['webhook-signature'];
    if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return 'missing webhook headers';
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return 'timestamp out of tolerance';
    const key = Buffer.from(this.options.secret.replace(/^whsec_/, ''), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
    // One `v1,<base64>` per secret the sender signs with (two during a rotation): any may match.
    for (const signature of signatures.split(' ')) {
      const [version, value] = signature.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      if (version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected)) return 'ok';
    }
    return 'no valid signature';
  }

  private handle(id: string, message: { type: string; data: { changed?: Array<{ path: string; etag: string }>; removed?: string[] } }): void {
    if (this.seen.has(id)) return;
    this.seen.add(id);
    if (this.seen.size > SEEN_KEPT) this.seen.delete(this.seen.values().next().value!);
    if (message.type !== 'snapshot.published') return;
    for (const path of message.data.removed ?? []) this.cache.delete(path);
    // Sequential per message: a site has few paths per change, and the API has a rate limit per key.
    const paths = (message.data.changed ?? []).filter((change) => this.cache.get(change.path)?.etag !== change.etag);
    this.pending = this.pending.then(async () => {
      for (const { path } of paths) await this.refetch(path);
    });
  }

  private async refetch(path: string): Promise<void> {
    const cached = this.cache.get(path);
    const response = await fetch(this.options.api + path, {
      headers: { Authorization: `Bearer ${this.options.key}`, ...(cached ? { 'If-None-Match': cached.etag } : {}) },
    });
    if (response.status === 304) return;
    if (!response.ok) return; // A 404 (an event unpublished meanwhile) or a 5xx: the next message or a periodic refresh sets it right.
    const body: unknown = await response.json();
    this.cache.set(path, { etag: response.headers.get('etag')!, body });
    this.options.onChange?.(path, body);
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

// Run directly: configured by the environment.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { MARQUEE_WEBHOOK_SECRET: secret, MARQUEE_KEY: key, MARQUEE_API: api = 'http://127.0.0.1:8080', PORT: port = '3000' } = process.env;
  if (!secret || !key) throw new Error('set MARQUEE_WEBHOOK_SECRET (whsec_…) and MARQUEE_KEY (mqk_…)');
  const receiver = new WebhookReceiver({ secret, key, api, onChange: (path) => console.log(`refetched ${path}`) });
  await receiver.listen(Number(port));
  console.log(`receiving webhooks on :${port}`);
}
