// An organization site's webhook receiver, in plain JavaScript with nothing but Node (18 or later,
// so every line Marquee runs on: no build step, no type stripping): it checks each message's
// signature (Standard Webhooks, by hand), drops a message it has already handled (by webhook-id:
// delivery is at least once), answers at once, and then refetches every API path the message
// lists with the ETag it has cached, so an unchanged answer costs a 304. Run it with
//   MARQUEE_WEBHOOK_SECRET=whsec_… MARQUEE_KEY=mqk_… MARQUEE_API=https://api.example.com node receiver.mjs
// and register http(s)://<this host>:3000/marquee as the organization's endpoint.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

/** A message older or newer than this is refused: a replayed capture cannot be sent again later. */
const TOLERANCE_SECONDS = 5 * 60;
/** Message ids remembered for deduplication; a redelivery comes within days, not millions of messages. */
const SEEN_KEPT = 10_000;

/**
 * @typedef {object} ReceiverOptions
 * @property {string} secret The endpoint's signing secret, `whsec_…` (during a rotation, the new one; the old one still verifies too).
 * @property {string} key The organization's API key.
 * @property {string} api The API's origin (`https://api.example.com`).
 * @property {(path: string, body: unknown, etag: string) => void} [onChange] Told of every resource refetched that changed: where a site rebuilds a page or purges its cache.
 * @property {(line: string) => void} [log] What the receiver did besides: a message refused, a message received again.
 */

export class WebhookReceiver {
  /** What the site serves from: API path → the last body and its ETag. @type {Map<string, { etag: string, body: unknown }>} */
  cache = new Map();
  /** @type {Set<string>} */
  #seen = new Set();
  /** Refetches in progress (shutdown waits for them). @type {Promise<void>} */
  #pending = Promise.resolve();
  /** @type {ReceiverOptions} */
  #options;

  /** @param {ReceiverOptions} options */
  constructor(options) {
    this.#options = options;
  }

  /** @returns {Promise<import('node:http').Server>} */
  listen(port = 3000, host = '0.0.0.0') {
    const server = createServer(async (req, res) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const body = await readBody(req);
      const verdict = this.verify(req, body);
      if (verdict !== 'ok') {
        this.#options.log?.(`refused a message: ${verdict}`);
        return void res.writeHead(401, { 'content-type': 'text/plain' }).end(verdict);
      }
      // Answer first, work after: the sender waits at most 10 s and retries what it does not get a 2xx for.
      res.writeHead(204).end();
      this.#handle(String(req.headers['webhook-id']), JSON.parse(body));
    });
    return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
  }

  /** Resolves once every refetch started so far is done. */
  settled() {
    return this.#pending;
  }

  /**
   * 'ok', or why the message is refused.
   * @param {import('node:http').IncomingMessage} req
   * @param {string} body
   */
  verify(req, body) {
    const id = req.headers['webhook-id'];
    const timestamp = req.headers['webhook-timestamp'];
    const signatures = req.headers['webhook-signature'];
    if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return 'missing webhook headers';
    // Unix seconds, digits only (Standard Webhooks): `Number()` would take 'NaN', '', ' 1e9' or '0x…',
    // and NaN compares false with everything, so it would pass any tolerance.
    const seconds = /^[0-9]{1,15}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
    if (!Number.isFinite(seconds)) return 'timestamp is not a number of seconds';
    if (Math.abs(Date.now() / 1000 - seconds) > TOLERANCE_SECONDS) return 'timestamp out of tolerance';
    const key = Buffer.from(this.#options.secret.replace(/^whsec_/, ''), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
    // One `v1,<base64>` per secret the sender signs with (two during a rotation): any may match.
    for (const signature of signatures.split(' ')) {
      const [version, value] = signature.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      if (version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected)) return 'ok';
    }
    return 'no valid signature';
  }

  /**
   * @param {string} id
   * @param {{ type: string, data: { changed?: Array<{ path: string, etag: string }>, removed?: string[] } }} message
   */
  #handle(id, message) {
    if (this.#seen.has(id)) {
      this.#options.log?.(`message ${id} received again: handled already`);
      return;
    }
    this.#seen.add(id);
    if (this.#seen.size > SEEN_KEPT) this.#seen.delete(this.#seen.values().next().value);
    if (message.type !== 'snapshot.published') return;
    for (const path of message.data.removed ?? []) this.cache.delete(path);
    // Sequential per message: a site has few paths per change, and the API has a rate limit per key.
    const paths = (message.data.changed ?? []).filter((change) => this.cache.get(change.path)?.etag !== change.etag);
    this.#pending = this.#pending.then(async () => {
      for (const { path } of paths) await this.#refetch(path);
    });
  }

  /** @param {string} path */
  async #refetch(path) {
    const cached = this.cache.get(path);
    const response = await fetch(this.#options.api + path, {
      headers: { Authorization: `Bearer ${this.#options.key}`, ...(cached ? { 'If-None-Match': cached.etag } : {}) },
    });
    if (response.status === 304) return;
    if (!response.ok) return; // A 404 (an event unpublished meanwhile) or a 5xx: the next message or a periodic refresh sets it right.
    const body = await response.json();
    const etag = response.headers.get('etag') ?? '';
    this.cache.set(path, { etag, body });
    this.#options.onChange?.(path, body, etag);
  }
}

/** @param {import('node:http').IncomingMessage} req */
async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

// Run directly (`node receiver.mjs`): configured by the environment.
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  const { MARQUEE_WEBHOOK_SECRET: secret, MARQUEE_KEY: key, MARQUEE_API: api = 'http://127.0.0.1:8080', PORT: port = '3000', HOST: host = '0.0.0.0' } = process.env;
  if (!secret || !key) {
    console.error('set MARQUEE_WEBHOOK_SECRET (whsec_…) and MARQUEE_KEY (mqk_…)');
    process.exit(2);
  }
  const receiver = new WebhookReceiver({ secret, key, api, onChange: (path, _body, etag) => console.log(`refetched ${path}: ${etag}`), log: (line) => console.log(line) });
  const server = await receiver.listen(Number(port), host);
  const address = server.address();
  console.log(`receiving webhooks on ${host}:${typeof address === 'object' && address !== null ? address.port : port}`);
}
