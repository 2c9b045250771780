// The console's one stylesheet (templates/console.css), read once and served under a name that
// carries its content hash, so browsers may keep it for a year and a new release is fetched anew.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { packagePath } from '../../runtime/package-root.ts';

export interface Stylesheet {
  /** Absolute path under the console, e.g. /console.3f2a9c1b.css. */
  path: string;
  body: Buffer;
}

export function loadStylesheet(file: string = packagePath('templates', 'console.css')): Stylesheet {
  const body = readFileSync(file);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/console.${hash}.css`, body };
}
