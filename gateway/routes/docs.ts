// The API's own description, for tools and for people, served without a key: GET /openapi.json
// (schemas/openapi.json as committed) and GET /docs, a reference page rendered in the browser by
// swagger-ui-dist from the gateway's own copy of its files — nothing is fetched from elsewhere.
// Both live outside the API base, so "every path below /api/integration/v1 needs a key" holds.
// Every file is read once, when the middleware is made; each is tagged with the SHA-256 of its
// bytes, so a client revalidates with If-None-Match and gets a 304 while nothing changed, and is
// sent in the coding Accept-Encoding prefers, as the API's answers are.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestHandler } from 'express';
import { packagePath } from '../../runtime/package-root.ts';
import { ifNoneMatchMatches } from './conditional.ts';
import { acceptedCodings } from './accept-encoding.ts';
import { bodyFor } from './respond.ts';
import { compress } from '../../snapshot/codings.ts';
import { Representation } from '../../snapshot/representation.ts';

const OPENAPI_PATH = '/openapi.json';
const DOCS_PATH = '/docs';

const OPENAPI_FILE = packagePath('schemas', 'openapi.json');
const SWAGGER_UI_DIR = dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));

/**
 * The page may load only the gateway's own files and ask only the gateway (the document, and the
 * API when a reader tries an operation out). Swagger UI's stylesheet draws some icons as data:
 * URIs. Nothing inline may run, and no other site may frame the page.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Every response is revalidated: one request, and a 304 unless the gateway was redeployed. */
const CACHE_CONTROL = 'no-cache';

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Marquee integration API</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
<link rel="stylesheet" href="${DOCS_PATH}/index.css">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/initializer.js"></script>
</body>
</html>
`;

// A file rather than an inline script, so the policy needs no 'unsafe-inline'. validatorUrl: null
// keeps Swagger UI from sending the document to validator.swagger.io for a badge.
const INITIALIZER_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '${OPENAPI_PATH}',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

export interface DocsOptions {
  /** Default: schemas/openapi.json. */
  openApiFile?: string;
  /** Default: the installed swagger-ui-dist. */
  swaggerUiDir?: string;
}

export function docs({ openApiFile = OPENAPI_FILE, swaggerUiDir = SWAGGER_UI_DIR }: DocsOptions = {}): RequestHandler {
  const fromSwaggerUi = (name: string) => readFileSync(join(swaggerUiDir, name));
  const files = new Map<string, Representation>([
    [OPENAPI_PATH, staticFile(readFileSync(openApiFile), 'application/json; charset=utf-8')],
    [DOCS_PATH, staticFile(Buffer.from(INDEX_HTML), 'text/html; charset=utf-8', ['Content-Security-Policy', CONTENT_SECURITY_POLICY])],
    [`${DOCS_PATH}/initializer.js`, staticFile(Buffer.from(INITIALIZER_JS), 'text/javascript; charset=utf-8')],
    [`${DOCS_PATH}/swagger-ui-bundle.js`, staticFile(fromSwaggerUi('swagger-ui-bundle.js'), 'text/javascript; charset=utf-8')],
    [`${DOCS_PATH}/swagger-ui.css`, staticFile(fromSwaggerUi('swagger-ui.css'), 'text/css; charset=utf-8')],
    [`${DOCS_PATH}/index.css`, staticFile(fromSwaggerUi('index.css'), 'text/css; charset=utf-8')],
    [`${DOCS_PATH}/favicon-32x32.png`, staticFile(fromSwaggerUi('favicon-32x32.png'), 'image/png')],
    [`${DOCS_PATH}/favicon-16x16.png`, staticFile(fromSwaggerUi('favicon-16x16.png'), 'image/png')],
  ]);
  files.set(`${DOCS_PATH}/`, files.get(DOCS_PATH)!);

  return function serveDocs(req, res, next) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const file = files.get(req.path);
    if (file === undefined) return next();
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, file.etag)) {
      res.writeHead(304, ['ETag', file.quotedEtag, 'Cache-Control', CACHE_CONTROL]);
      res.end();
      return;
    }
    const send = (body: Pick<Representation, 'bytes' | 'headers'>) => {
      res.writeHead(200, body.headers as string[]);
      if (req.method === 'HEAD') res.end();
      else res.end(body.bytes);
    };
    let body: ReturnType<typeof bodyFor>;
    try {
      body = bodyFor(file, acceptedCodings(req.headers['accept-encoding']));
    } catch (error) {
      return next(error);
    }
    if (body instanceof Promise) body.then(send, next);
    else send(body);
  };
}

/**
 * A file served as it is, or compressed once, at the first request accepting a coding, and kept
 * (swagger-ui's bundle is 1.4 MB, 0.4 MB in brotli): the gateway's answers' rules, its negotiation.
 */
function staticFile(bytes: Buffer, contentType: string, extraHeaders: readonly string[] = []): Representation {
  const etag = createHash('sha256').update(bytes).digest('hex');
  return new Representation(bytes, etag, (coding) => compress(coding, bytes), undefined, ['Cache-Control', CACHE_CONTROL, 'Content-Type', contentType, ...extraHeaders]);
}
