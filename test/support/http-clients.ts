// The HTTP clients organization sites actually use, behind one small interface so that one set of
// contract checks runs against each: Node's global fetch, undici.request, the curl program and
// Python's urllib.request. Each sends exactly what it is given plus whatever it adds by itself
// (fetch, for one, adds Cache-Control: no-cache and Pragma: no-cache to a request that carries
// If-None-Match). Replies are normalized: lower-case header names, repeated headers joined.
import { execFile } from 'node:child_process';
import { Agent, request } from 'undici';

export interface ClientRequest {
  method: 'GET' | 'HEAD';
  url: string;
  headers: Record<string, string>;
}

export interface ClientReply {
  status: number;
  /** Lower-case names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** The body as UTF-8 text; '' when none was sent. */
  body: string;
}

export interface HttpClient {
  name: string;
  send(request: ClientRequest): Promise<ClientReply>;
  close(): Promise<void>;
}

function joinHeader(headers: Record<string, string>, name: string, value: string): void {
  const key = name.toLowerCase();
  headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
}

/** Node's global fetch (undici inside Node itself). */
export function nodeFetchClient(): HttpClient {
  return {
    name: 'Node fetch',
    async send({ method, url, headers }) {
      const response = await fetch(url, { method, headers });
      const flat: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        flat[name] = value;
      });
      return { status: response.status, headers: flat, body: await response.text() };
    },
    close: async () => {},
  };
}

/** undici.request from the npm package, on its own connection pool. */
export function undiciClient(): HttpClient {
  const agent = new Agent();
  return {
    name: 'undici.request',
    async send({ method, url, headers }) {
      const response = await request(url, { method, headers, dispatcher: agent });
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value === undefined) continue;
        for (const one of Array.isArray(value) ? value : [value]) joinHeader(flat, name, one);
      }
      return { status: response.statusCode, headers: flat, body: await response.body.text() };
    },
    close: () => agent.close(),
  };
}

const CURL = '/usr/bin/curl';

/**
 * The curl program (Debian's). `-q` skips any ~/.curlrc, `--noproxy '*'` any proxy variables;
 * HEAD is `--head` (`-X HEAD` would wait for a body). `extraArgs` go before the URL, e.g.
 * `--interface 127.0.0.2` to send from another loopback address.
 */
export function curlClient(extraArgs: string[] = []): HttpClient {
  return {
    name: 'curl',
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
  return { status: Number(status[1]), headers, body: output.subarray(end + 4).toString('utf8') };
}

// urllib raises HTTPError for every status it does not handle itself (304 and 4xx included): the
// error is the response, so its status, headers and body are reported the same way. No proxy
// handler: a proxy variable in the environment must not route loopback requests elsewhere.
const PYTHON_URLLIB = `
import json, sys, urllib.error, urllib.request
spec = json.loads(sys.argv[1])
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
req = urllib.request.Request(spec["url"], method=spec["method"], headers=spec["headers"])
try:
    with opener.open(req, timeout=10) as response:
        status, headers, body = response.status, response.headers, response.read()
except urllib.error.HTTPError as error:
    status, headers, body = error.code, error.headers, error.read()
print(json.dumps({"status": status, "headers": [[k, v] for k, v in headers.items()], "body": body.decode("utf-8")}))
`;

const PYTHON = 'python3';

/** Python's urllib.request, one interpreter per request, as a small script would use it. */
export function pythonUrllibClient(): HttpClient {
  return {
    name: 'Python urllib.request',
    send: async (spec) => {
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(PYTHON, ['-c', PYTHON_URLLIB, JSON.stringify(spec)], { maxBuffer: 16 << 20, timeout: 15_000 }, (error, out, stderr) => {
          if (error) reject(new Error(`python3 failed: ${error.message} ${stderr}`));
          else resolve(out);
        });
      });
      const reply = JSON.parse(stdout) as { status: number; headers: Array<[string, string]>; body: string };
      const headers: Record<string, string> = {};
      for (const [name, value] of reply.headers) joinHeader(headers, name, value);
      return { status: reply.status, headers, body: reply.body };
    },
    close: async () => {},
  };
}
