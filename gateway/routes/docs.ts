// The API's own description, for tools and for people, served without a key: GET /openapi.json
// (schemas/openapi.json as committed) and GET /docs, a reference page rendered in the browser by
// swagger-ui-dist from the gateway's own copy of its files — nothing is fetched from elsewhere.
// Both live outside the API base, so "every path below /api/integration/v1 needs a key" holds.
// Every file is read once, when the middleware is made, and revalidated (static-files.ts).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestHandler } from 'express';
import { packagePath } from '../../runtime/package-root.ts';
import { type StaticFile, serveStaticFiles, staticFile } from './static-files.ts';

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
  const files = new Map<string, StaticFile>([
    [OPENAPI_PATH, docsFile(readFileSync(openApiFile), 'application/json; charset=utf-8')],
    [DOCS_PATH, docsFile(Buffer.from(INDEX_HTML), 'text/html; charset=utf-8', ['Content-Security-Policy', CONTENT_SECURITY_POLICY])],
    [`${DOCS_PATH}/initializer.js`, docsFile(Buffer.from(INITIALIZER_JS), 'text/javascript; charset=utf-8')],
    [`${DOCS_PATH}/swagger-ui-bundle.js`, docsFile(fromSwaggerUi('swagger-ui-bundle.js'), 'text/javascript; charset=utf-8')],
    [`${DOCS_PATH}/swagger-ui.css`, docsFile(fromSwaggerUi('swagger-ui.css'), 'text/css; charset=utf-8')],
    [`${DOCS_PATH}/index.css`, docsFile(fromSwaggerUi('index.css'), 'text/css; charset=utf-8')],
    [`${DOCS_PATH}/favicon-32x32.png`, docsFile(fromSwaggerUi('favicon-32x32.png'), 'image/png')],
    [`${DOCS_PATH}/favicon-16x16.png`, docsFile(fromSwaggerUi('favicon-16x16.png'), 'image/png')],
  ]);
  files.set(`${DOCS_PATH}/`, files.get(DOCS_PATH)!);

  return serveStaticFiles(files);
}

/** A file of the docs: every one is revalidated. */
function docsFile(bytes: Buffer, contentType: string, extraHeaders: readonly string[] = []): StaticFile {
  return staticFile(bytes, CACHE_CONTROL, contentType, extraHeaders);
}
