// The HTTP clients organization sites actually use, behind one small interface so that one set of
// contract checks runs against each: Node's global fetch, undici.request, the curl program (with
// and without --compressed), Python's urllib.request, and urllib with gzip.decompress as
// `requests` decodes. Each sends exactly what it is given plus whatever it adds by itself (fetch,
// for one, adds Cache-Control: no-cache and Pragma: no-cache to a request that carries
// If-None-Match, and its own Accept-Encoding). Replies are normalized: lower-case header names,
// repeated headers joined; the body as the client hands it to its caller, decoded or not.
import { execFile } from 'node:child_process';
import { Agent, request } from 'undici';
import { CODINGS, type Coding, decode } from '../../snapshot/codings.ts';

export interface ClientRequest {
  method: 'GET' | 'HEAD';
  url: string;
  headers: Record<string, string>;
}

export interface ClientReply {
  status: number;
  /** Lower-case names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** `bytes` as UTF-8 text; '' when none was sent. */
  body: string;
  /** The body as the client hands it to its caller: decoded by a client that decodes, as sent otherwise. */
  bytes: Buffer;
}

export interface HttpClient {
  name: string;
  /**
   * Whether the client undoes a `Content-Encoding` by itself, so that `body` is the JSON whatever
   * the coding; a client that does not hands over the coded bytes (bodyText decodes them).
   */
  decodes: boolean;
  send(request: ClientRequest): Promise<ClientReply>;
  close(): Promise<void>;
}

/** A reply whose body is `bytes`. */
const replyOf = (status: number, headers: Record<string, string>, bytes: Buffer): ClientReply => ({ status, headers, body: bytes.toString('utf8'), bytes });

/**
 * The body's text as the application reads it: what the client gave, when it decodes by itself;
 * otherwise its bytes decoded here by the reply's `Content-Encoding` (br or gzip), as an
 * application using such a client must.
 */
export function bodyText(client: HttpClient, reply: ClientReply): string {
  const coding = reply.headers['content-encoding'];
  if (client.decodes || coding === undefined || reply.bytes.length === 0) return reply.body;
  if (!CODINGS.includes(coding as Coding)) throw new Error(`${client.name} got Content-Encoding ${coding}, which the API never sends`);
  return decode(coding as Coding, reply.bytes).toString('utf8');
}

function joinHeader(headers: Record<string, string>, name: string, value: string): void {
  const key = name.toLowerCase();
  headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
}

/**
 * Node's global fetch (undici inside Node itself). It sends `Accept-Encoding: gzip, deflate` over
 * plain HTTP (`br, gzip, deflate` over HTTPS) unless told otherwise, and decodes what it gets.
 */
export function nodeFetchClient(): HttpClient {
  return {
    name: 'Node fetch',
    decodes: true,
    async send({ method, url, headers }) {
      const response = await fetch(url, { method, headers });
      const flat: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        flat[name] = value;
      });
      return replyOf(response.status, flat, Buffer.from(await response.arrayBuffer()));
    },
    close: async () => {},
  };
}

/** undici.request from the npm package, on its own connection pool: it sends no Accept-Encoding of its own and decodes nothing. */
export function undiciClient(): HttpClient {
  const agent = new Agent();
  return {
    name: 'undici.request',
    decodes: false,
    async send({ method, url, headers }) {
      const response = await request(url, { method, headers, dispatcher: agent });
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value === undefined) continue;
        for (const one of Array.isArray(value) ? value : [value]) joinHeader(flat, name, one);
      }
      return replyOf(response.statusCode, flat, Buffer.from(await response.body.arrayBuffer()));
    },
    close: () => agent.close(),
  };
}

const CURL = '/usr/bin/curl';

/**
 * The curl program (Debian's). `-q` skips any ~/.curlrc, `--noproxy '*'` any proxy variables;
 * HEAD is `--head` (`-X HEAD` would wait for a body). `extraArgs` go before the URL, e.g.
 * `--interface 127.0.0.2` to send from another loopback address, or `--compressed`: then curl
 * sends the Accept-Encoding of every coding it was built with and decodes the body; without it,
 * curl sends none.
 */
export function curlClient(extraArgs: string[] = []): HttpClient {
  return {
    name: ['curl', ...extraArgs].join(' '),
    decodes: extraArgs.includes('--compressed'),
    send: async ({ method, url, headers }) => {
      const args = ['-q', '--silent', '--show-error', '--noproxy', '*', '--max-time', '10', method === 'HEAD' ? '--head' : '--include'];
      for (const [name, value] of Object.entries(headers)) args.push('--header', `${name}: ${value}`);
      args.push(...extraArgs, url);
      const output = await new Promise<Buffer>((resolve, reject) => {
        execFile(CURL, args, { encoding: 'buffer', maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
          if (error) reject(new Error(`curl failed: ${error.message} ${stderr.toString('utf8')}`));
          else resolve(stdout);
        });
      });
      return parseCurlOutput(output);
    },
    close: async () => {},
  };
}

/** `curl --include` output: the status line, header lines, an empty line, the body. */
function parseCurlOutput(output: Buffer): ClientReply {
  const end = output.indexOf('\r\n\r\n');
  if (end === -1) throw new Error(`curl printed no header block: ${JSON.stringify(output.toString('latin1'))}`);
  const [statusLine = '', ...lines] = output.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/[\d.]+ (\d{3})/.exec(statusLine);
  if (!status) throw new Error(`curl printed no status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) joinHeader(headers, line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return replyOf(Number(status[1]), headers, output.subarray(end + 4));
}

// urllib raises HTTPError for every status it does not handle itself (304 and 4xx included): the
// error is the response, so its status, headers and body are reported the same way. No proxy
// handler: a proxy variable in the environment must not route loopback requests elsewhere. urllib
// sends `Accept-Encoding: identity` unless told otherwise and decodes nothing; with `gunzip`, a
// gzip body is decoded with gzip.decompress, as `requests` (urllib3) does. The body travels back
// in base64: a coded one is not text.
const PYTHON_URLLIB = `
import base64, gzip, json, sys, urllib.error, urllib.request
spec = json.loads(sys.argv[1])
gunzip = sys.argv[2] == "gunzip"
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
req = urllib.request.Request(spec["url"], method=spec["method"], headers=spec["headers"])
try:
    with opener.open(req, timeout=10) as response:
        status, headers, body = response.status, response.headers, response.read()
except urllib.error.HTTPError as error:
    status, headers, body = error.code, error.headers, error.read()
if gunzip and headers.get("Content-Encoding") == "gzip":
    body = gzip.decompress(body)
print(json.dumps({"status": status, "headers": [[k, v] for k, v in headers.items()], "body": base64.b64encode(body).decode("ascii")}))
`;

const PYTHON = 'python3';

/** Python's urllib.request, one interpreter per request, as a small script would use it. */
export function pythonUrllibClient(): HttpClient {
  return pythonClient('Python urllib.request', false);
}

/**
 * What `requests` does with a gzip body, on urllib: the caller sends `Accept-Encoding: gzip`
 * (requests sends `gzip, deflate`, and br only with a brotli package installed) and gets the body
 * through gzip.decompress when it came gzip-coded.
 */
export function pythonGunzipClient(): HttpClient {
  return pythonClient('Python urllib + gzip.decompress', true);
}

function pythonClient(name: string, gunzip: boolean): HttpClient {
  return {
    name,
    decodes: gunzip,
    send: async (spec) => {
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(PYTHON, ['-c', PYTHON_URLLIB, JSON.stringify(spec), gunzip ? 'gunzip' : 'as-sent'], { maxBuffer: 16 << 20, timeout: 15_000 }, (error, out, stderr) => {
          if (error) reject(new Error(`python3 failed: ${error.message} ${stderr}`));
          else resolve(out);
        });
      });
      const reply = JSON.parse(stdout) as { status: number; headers: Array<[string, string]>; body: string };
      const headers: Record<string, string> = {};
      for (const [name, value] of reply.headers) joinHeader(headers, name, value);
      return replyOf(reply.status, headers, Buffer.from(reply.body, 'base64'));
    },
    close: async () => {},
  };
}
