// Where Marquee's own files are: the folder holding its package.json. Schemas, the platform
// migrations and package.json itself are read from there, the same whether the code runs as
// TypeScript from the checkout (tests, development) or compiled under dist/ (bin/marquee).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

const PACKAGE_ROOT: string = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** A file or folder of the package, by its path from the package root. */
export const packagePath = (...parts: string[]): string => join(PACKAGE_ROOT, ...parts);
