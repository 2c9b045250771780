// Real S3's conditional writes in front of s3rver, which ignores them (s3rver 3.7 answers 200 to a
// PUT with If-None-Match: * over an object, or with a stale If-Match, and overwrites): a loopback
// HTTP proxy that forwards every request untouched, except that a conditional PUT is answered as
// S3 answers it — 412 PreconditionFailed when If-None-Match: * meets an object or If-Match a
// different ETag, 404 NoSuchKey when If-Match meets no object — and that the requests naming one
// object (GET, HEAD, PUT, DELETE) take turns: a check and the write after it are one step, and a
// read never meets a write half-way (s3rver rewrites an object's file in place), and that a PUT
// is answered once its object can be read, as in S3. A PUT is also atomic, as in S3: its body is
// received whole before s3rver sees any of it (a writer killed mid-body stores nothing, where
// s3rver would keep the bytes that came), and a whole body is stored even if its writer is gone
// before the answer.
// A conditional GET is answered by the proxy too: s3rver opens an object's file before it checks
// If-None-Match and If-Modified-Since, and on a 304 never closes it, so each revalidation leaked
// a file descriptor (a gateway re-reads every pointer it holds that way); the soak's s3rver ran out
// of them after six minutes and reset every connection from then on. The proxy asks with a HEAD,
// where s3rver closes the file, and answers 304 itself when the object is unchanged.
// One more repair: s3rver makes ListObjectsV2 continuation tokens with DES, which OpenSSL 3
// refuses (Node 17 and later, without --openssl-legacy-provider), so every truncated page of a
// listing answers 500; the proxy answers ListObjectsV2 itself from s3rver's version 1 listing,
// whose marker is the last key of the page before.
// It also records what passes, and lets a test hold a request or answer it with an S3 error.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestS3 } from './s3.ts';
import { until } from './until.ts';

interface ProxiedRequest {
  method: string;
  /** 'bucket/key', decoded. */
  name: string;
  /** The path as sent (encoded), without the query. */
  path: string;
  /** The path and query as sent. */
  url: string;
}

/** What to do with a request: pass it on; never answer it (a writer killed mid-request); answer with an S3 error. */
type Interception = 'forward' | 'hold' | { status: number; code: string };

export interface ConditionalWritesProxy {
  /** http://127.0.0.1:port, the S3_ENDPOINT to use. */
  endpoint: string;
  /** Every request that arrived, in order of arrival (held and refused ones too). */
  readonly requests: ProxiedRequest[];
  /** Every request the proxy is done with (answered, refused, or given up once its client went), in that order; never a held one. */
  readonly finished: ProxiedRequest[];
  close(): Promise<void>;
}

export interface ConditionalWritesOptions {
  /** Consulted first for every request; default 'forward'. */
  intercept?: (request: ProxiedRequest) => Interception;
}

export async function startConditionalWrites(s3: TestS3, options: ConditionalWritesOptions = {}): Promise<ConditionalWritesProxy> {
  const upstream = new URL(s3.endpoint);
  const requests: ProxiedRequest[] = [];
  const finished: ProxiedRequest[] = [];
  const turns = new Map<string, Promise<void>>();

  /** Runs `step` once every earlier request naming the object `name` has finished. */
  async function inTurn(name: string, step: () => Promise<void>): Promise<void> {
    const previous = turns.get(name) ?? Promise.resolve();
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const mine = previous.then(() => done);
    turns.set(name, mine);
    await previous;
    try {
      await step();
    } finally {
      finished();
      if (turns.get(name) === mine) turns.delete(name);
    }
  }

  /** s3rver answers unsigned requests, so the proxy asks it directly. */
  async function currentEtag(path: string): Promise<string | undefined> {
    const head = await fetch(`${s3.endpoint}${path}`, { method: 'HEAD' });
    if (head.status === 404) return undefined;
    if (head.status !== 200) throw new Error(`HEAD ${path}: ${head.status}`);
    return head.headers.get('etag') ?? undefined;
  }

  /**
   * A conditional GET that S3 would answer 304 (If-None-Match naming the object's ETag or `*`, or
   * If-Modified-Since at or after its last modification, as s3rver decides): answered here, with the
   * ETag and Last-Modified of the object, and true; otherwise false, and the GET is forwarded.
   */
  async function notModified(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const ifNoneMatch = req.headers['if-none-match'];
    const ifModifiedSince = req.headers['if-modified-since'];
    if (ifNoneMatch === undefined && ifModifiedSince === undefined) return false;
    const head = await fetch(`${s3.endpoint}${path}`, { method: 'HEAD' });
    if (head.status !== 200) return false;
    const etag = head.headers.get('etag') ?? undefined;
    const lastModified = head.headers.get('last-modified') ?? undefined;
    const unchanged = ifNoneMatch !== undefined ? ifNoneMatch === '*' || ifNoneMatch === etag : lastModified !== undefined && new Date(ifModifiedSince!) >= new Date(lastModified);
    if (!unchanged) return false;
    req.resume();
    await new Promise<void>((resolve) => {
      res.once('close', resolve);
      res.writeHead(304, { ...(etag ? { ETag: etag } : {}), ...(lastModified ? { 'Last-Modified': lastModified } : {}) }).end();
    });
    return true;
  }

  /** The answer S3 gives the conditional PUT `req` now, or undefined when it would write. */
  async function refusal(req: IncomingMessage, path: string): Promise<{ status: number; code: string } | undefined> {
    const ifNoneMatch = req.headers['if-none-match'];
    const ifMatch = req.headers['if-match'];
    if (ifNoneMatch === undefined && ifMatch === undefined) return undefined;
    const etag = await currentEtag(path);
    if (ifNoneMatch === '*' && etag !== undefined) return { status: 412, code: 'PreconditionFailed' };
    if (ifMatch !== undefined && etag === undefined) return { status: 404, code: 'NoSuchKey' };
    if (ifMatch !== undefined && ifMatch !== etag) return { status: 412, code: 'PreconditionFailed' };
    return undefined;
  }

  /**
   * s3rver answers a PUT before the object's file is written (it ends the write stream without
   * waiting for it), so a read right after may find it empty; S3 answers once the object can be
   * read. Waits until s3rver serves the bytes the answer's ETag names, for up to 2 s (then rejects,
   * and the PUT is answered all the same).
   */
  async function landed(path: string, answer: IncomingMessage): Promise<void> {
    const etag = answer.headers.etag;
    if ((answer.statusCode ?? 500) >= 300 || etag === undefined) return;
    await until(
      `s3rver to serve ${path} as its ETag says`,
      async () => {
        const bytes = Buffer.from(await (await fetch(`${s3.endpoint}${path}`)).arrayBuffer());
        return `"${createHash('md5').update(bytes).digest('hex')}"` === etag;
      },
      { timeoutMs: 2_000, intervalMs: 5 },
    );
  }

  /**
   * Passes the request on as it comes, and upstream's answer back; a GET without its conditions,
   * which notModified has already decided (s3rver would also answer 304 to an If-Modified-Since
   * that S3 ignores beside a failed If-None-Match).
   */
  function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers = req.method === 'GET' ? withoutConditions(req.rawHeaders) : req.rawHeaders;
    return new Promise((resolve) => {
      const forwarded = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      });
      // A client that goes away mid-answer takes the upstream request with it: s3rver must not
      // keep streaming to nobody (it would never close).
      res.once('close', () => {
        forwarded.destroy();
        resolve();
      });
      forwarded.on('error', (error) => {
        if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end(`proxy: ${error.message}`);
      });
      req.pipe(forwarded);
    });
  }

  /** The whole body of `req`, or undefined when its client went away before sending all of it. */
  function wholeBody(req: IncomingMessage): Promise<Buffer | undefined> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.once('end', () => resolve(Buffer.concat(chunks)));
      req.once('error', () => resolve(undefined));
      req.once('close', () => {
        if (!req.complete) resolve(undefined);
      });
    });
  }

  /**
   * A PUT as S3 takes it: stored whole once its body has arrived, or not at all. The answer goes
   * back once `landed` says the object can be read; a client gone by then just misses it.
   */
  async function put(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const body = await wholeBody(req);
    if (body === undefined) return;
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const forwarded = request({ host: upstream.hostname, port: upstream.port, method: 'PUT', path: req.url, headers: req.rawHeaders }, resolve);
      forwarded.once('error', reject);
      forwarded.end(body);
    });
    const answered = Buffer.concat(await answer.toArray());
    await landed(path, answer).catch(() => undefined);
    if (res.destroyed) return;
    await new Promise<void>((resolve) => {
      res.once('close', resolve);
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders).end(answered);
    });
  }

  function answer(req: IncomingMessage, res: ServerResponse, { status, code }: { status: number; code: string }): Promise<void> {
    return new Promise((resolve) => {
      res.once('close', resolve);
      // Read the body the client sends before answering, so that its connection stays usable.
      req.resume();
      req.once('end', () => {
        const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${code} (marquee test proxy)</Message><RequestId>0</RequestId><HostId>0</HostId></Error>`;
        res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) }).end(body);
      });
    });
  }

  /** ListObjectsV2 of `url` from s3rver's version 1 listing: the token is the last key listed, base64url-encoded. */
  async function listV2(url: URL, res: ServerResponse): Promise<void> {
    const token = url.searchParams.get('continuation-token');
    const startAfter = token === null ? (url.searchParams.get('start-after') ?? '') : Buffer.from(token, 'base64url').toString('utf8');
    const query = new URLSearchParams({ prefix: url.searchParams.get('prefix') ?? '', marker: startAfter, 'max-keys': url.searchParams.get('max-keys') ?? '1000' });
    const v1 = await fetch(`${s3.endpoint}${url.pathname}?${query}`);
    const xml = await v1.text();
    if (v1.status !== 200) {
      res.writeHead(v1.status, { 'Content-Type': 'application/xml' }).end(xml);
      return;
    }
    const contents = xml.match(/<Contents>[\s\S]*?<\/Contents>/g) ?? [];
    const truncated = /<IsTruncated>true<\/IsTruncated>/.test(xml);
    const lastKey = unescapeXml(/<Key>([\s\S]*?)<\/Key>/.exec(contents.at(-1) ?? '')?.[1] ?? '');
    const body = [
      '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
      `<KeyCount>${contents.length}</KeyCount><IsTruncated>${truncated}</IsTruncated>`,
      truncated ? `<NextContinuationToken>${Buffer.from(lastKey, 'utf8').toString('base64url')}</NextContinuationToken>` : '',
      ...contents,
      '</ListBucketResult>',
    ].join('');
    res.writeHead(200, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) }).end(body);
  }

  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const parsed = new URL(url, 'http://proxy');
    const path = parsed.pathname;
    const proxied = { method: req.method ?? '', name: decodeURIComponent(path.slice(1)), path, url };
    requests.push(proxied);
    const done = () => void finished.push(proxied);
    const interception = options.intercept?.(proxied) ?? 'forward';
    if (interception === 'hold') return;
    if (interception !== 'forward') {
      void answer(req, res, interception).then(done);
      return;
    }
    if (proxied.method === 'GET' && parsed.searchParams.get('list-type') === '2') {
      void listV2(parsed, res)
        .catch((error: Error) => res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`proxy: ${error.message}`))
        .finally(done);
      return;
    }
    // Requests naming the bucket alone (a version 1 listing) have no object to wait for.
    if (!proxied.name.includes('/')) {
      void forward(req, res).then(done);
      return;
    }
    // A client gone while its request waited for its turn (or while the proxy asked s3rver
    // something first) is gone before the step listens for it: its 'close' was missed, and the step
    // would wait for it for ever, holding the object's turn and every request after it (a builder
    // whose PUT of a pointer timed out behind a slow read left that pointer unreadable for good:
    // the chaos campaign found it). The turn is given up when the client goes, whatever the step awaits.
    const clientGone = new Promise<void>((resolve) => res.once('close', resolve));
    void inTurn(proxied.name, () => Promise.race([clientGone, turn()]))
      .catch((error: Error) => {
        if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end(`proxy: ${error.message}`);
      })
      .finally(done);
    async function turn(): Promise<void> {
      if (res.destroyed || req.destroyed) return;
      const refused = proxied.method === 'PUT' ? await refusal(req, path) : undefined;
      if (refused) await answer(req, res, refused);
      else if (proxied.method === 'PUT') await put(req, res, path);
      else if (proxied.method === 'GET' && (await notModified(req, res, path))) return;
      else await forward(req, res);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    finished,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Raw headers (name, value, name, value…) without If-None-Match and If-Modified-Since. */
function withoutConditions(rawHeaders: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (name !== 'if-none-match' && name !== 'if-modified-since') kept.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  }
  return kept;
}

function unescapeXml(text: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => entities[name]!);
}
