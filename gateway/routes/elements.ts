// The embeddable elements (elements/marquee-elements.js, docs/elements.md), served by every gateway
// without a key, outside the API base as /docs is: at /elements/<package version>/marquee-elements.js,
// immutable and cached a year, so a page can pin it with Subresource Integrity; and at
// /elements/marquee-elements.js, the moving alias, revalidated at each load (no-cache, ETag), for
// sites whose owner will not follow the gateway's upgrades: a versioned path stops answering when
// the gateway moves to another version, the alias never does. Any site may load either as a module:
// the standing headers carry `Access-Control-Allow-Origin: *`, and `Cross-Origin-Resource-Policy:
// cross-origin` lets pages that isolate themselves (COEP) load it too.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RequestHandler } from 'express';
import { packagePath } from '../../runtime/package-root.ts';
import { serveStaticFiles, staticFile } from './static-files.ts';

const FILE_NAME = 'marquee-elements.js';
const PACKAGE_VERSION: string = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;

/** The versioned path: what docs/elements.md tells a site to paste, with its integrity hash. */
export const elementsPath = (version: string = PACKAGE_VERSION): string => `/elements/${version}/${FILE_NAME}`;
const ALIAS_PATH = `/elements/${FILE_NAME}`;

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATED = 'no-cache';

/** The `integrity` attribute's value for `bytes`: sha384 of the file as served (before any coding). */
export const integrityOf = (bytes: Buffer): string => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

export interface ElementsOptions {
  /** Default: elements/marquee-elements.js of this package. */
  file?: string;
  /** Default: package.json's version. */
  version?: string;
}

export function elements({ file = packagePath('elements', FILE_NAME), version = PACKAGE_VERSION }: ElementsOptions = {}): RequestHandler {
  const bytes = readFileSync(file);
  const served = (cacheControl: string) => staticFile(bytes, cacheControl, 'text/javascript; charset=utf-8', ['Cross-Origin-Resource-Policy', 'cross-origin']);
  return serveStaticFiles(
    new Map([
      [elementsPath(version), served(IMMUTABLE)],
      [ALIAS_PATH, served(REVALIDATED)],
    ]),
  );
}
