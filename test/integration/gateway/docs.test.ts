// The API's description outside the API base, without a key: GET /openapi.json (the committed
// schemas/openapi.json, tagged with the SHA-256 of its bytes, 304 on If-None-Match, HEAD) and the
// reference page under /docs with the gateway's own copy of Swagger UI; coded as the API's answers are.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, startHarness, type GatewayHarness } from '../../support/gateway-fixtures.ts';

const OPENAPI_BYTES = readFileSync(new URL('../../../schemas/openapi.json', import.meta.url));
const OPENAPI_TAG = `"${createHash('sha256').update(OPENAPI_BYTES).digest('hex')}"`;

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

describe('GET /openapi.json', () => {
  it('serves the committed document without a key, tagged with the SHA-256 of its bytes', async () => {
    const reply = await harness.call('/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.body).toBe(OPENAPI_BYTES.toString('utf8'));
    expect(reply.headers.etag).toBe(OPENAPI_TAG);
    expect(reply.headers['content-length']).toBe(String(OPENAPI_BYTES.length));
    const document = reply.json<{ openapi: string; info: { version: string }; paths: Record<string, unknown> }>();
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.info.version).toBe('1.0');
    // The contract's nine operations and the change feed (docs/api.md §10).
    expect(Object.keys(document.paths)).toHaveLength(10);
  });

  it.each([
    ['its tag', OPENAPI_TAG],
    ['a list holding its tag', `"0000", ${OPENAPI_TAG}`],
    ['*', '*'],
  ])('answers If-None-Match with %s by 304 without a body, GET and HEAD', async (_what, header) => {
    for (const method of ['GET', 'HEAD']) {
      const reply = await harness.call('/openapi.json', { method, headers: { 'if-none-match': header } });
      expect(reply.status).toBe(304);
      expect(reply.body).toBe('');
      expect(reply.headers.etag).toBe(OPENAPI_TAG);
    }
  });

  it('answers another tag with the full document', async () => {
    const reply = await harness.call('/openapi.json', { headers: { 'if-none-match': '"0000"' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toBe(OPENAPI_BYTES.toString('utf8'));
  });

  it.each([
    ['br', '/openapi.json', OPENAPI_BYTES],
    ['gzip', '/docs/swagger-ui-bundle.js', undefined],
  ])('travels in %s when asked for it, the same bytes decoded and the same tag (%s)', async (coding, path, expected) => {
    const read = async (headers: Record<string, string>) => {
      const response = await request(`${harness.origin}${path}`, { headers });
      return { headers: response.headers, bytes: Buffer.from(await response.body.arrayBuffer()) };
    };
    const plain = await read({});
    const coded = await read({ 'accept-encoding': coding });
    expect(coded.headers['content-encoding']).toBe(coding);
    expect(coded.headers.etag).toBe(plain.headers.etag);
    expect(coded.headers.vary).toContain('Accept-Encoding');
    expect(coded.bytes.length).toBeLessThan(plain.bytes.length / 3);
    const decoded = coding === 'br' ? brotliDecompressSync(coded.bytes) : gunzipSync(coded.bytes);
    expect(decoded.equals(expected ?? plain.bytes)).toBe(true);
  });

  it("answers HEAD with GET's headers and no body", async () => {
    const get = await harness.call('/openapi.json');
    const head = await harness.call('/openapi.json', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    for (const name of ['content-type', 'content-length', 'etag', 'cache-control']) expect(head.headers[name]).toBe(get.headers[name]);
  });

  it('is not an API path: below the base the same name still needs a key', async () => {
    expect((await harness.call(`${API}/openapi.json`)).status).toBe(401);
  });
});

describe('GET /docs', () => {
  it.each(['/docs', '/docs/'])('%s serves the page under a Content-Security-Policy that allows only the gateway itself', async (path) => {
    const reply = await harness.call(path);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.headers['content-security-policy']).toContain("default-src 'none'");
    expect(reply.headers['content-security-policy']).toContain("script-src 'self'");
    expect(reply.body).toContain('<div id="swagger-ui"></div>');
    // Every referenced asset is the gateway's own.
    const assets = [...reply.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(asset).toMatch(/^\/docs\//);
      const served = await harness.call(asset);
      expect(served.status, asset).toBe(200);
      expect(served.headers.etag, asset).toMatch(/^"[0-9a-f]{64}"$/);
    }
  });

  it("serves Swagger UI's bundle from the installed package", async () => {
    const reply = await harness.call('/docs/swagger-ui-bundle.js');
    expect(reply.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(reply.body).toContain('SwaggerUIBundle');
  });

  it('answers an unknown file below /docs with 404', async () => {
    expect((await harness.call('/docs/nothing.js')).status).toBe(404);
  });
});
