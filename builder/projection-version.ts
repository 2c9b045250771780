// The projection version (docs/design.md "Runs that cost what changed"): a digest of everything,
// besides the platform's rows, that decides a snapshot's bytes — the JSON Schemas, the reader's
// queries, the projection, and the canonical serialization. A release that changes any of them
// has another version, and its first scheduled run rebuilds every organization once; a release
// that changes none of them rebuilds nothing. Digested from the files this process runs (the
// TypeScript of a checkout or the JavaScript of dist/), so it cannot drift from the code.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packagePath } from '../runtime/package-root.ts';

const HERE = fileURLToPath(import.meta.url);
/** `<checkout>` or `<checkout>/dist`: where this module's siblings are, in the language it runs in. */
const CODE_ROOT = dirname(dirname(HERE));
const CODE_EXTENSION = extname(HERE);

/** What shapes the output, as module paths from the code root without their extension, or folders. */
const SHAPING_CODE = [
  'builder/projection',
  'builder/platform/source',
  'builder/serialize',
  'snapshot/canonical',
  'snapshot/key-order',
  'snapshot/layout',
  'snapshot/resource-catalog',
];

let computed: string | undefined;

/** `p1-` and 16 hex digits of SHA-256; the same for every process running the same release. */
export function projectionVersion(): string {
  computed ??= digest();
  return computed;
}

function digest(): string {
  const hash = createHash('sha256');
  const files = [...SHAPING_CODE.flatMap((path) => codeFiles(join(CODE_ROOT, path))), ...filesIn(packagePath('schemas')).filter((file) => file.endsWith('.json'))].sort();
  for (const file of files) {
    // The path from its root as well as the bytes: a module moved is another projection.
    hash.update(`${relative(file.startsWith(CODE_ROOT) ? CODE_ROOT : packagePath(), file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return `p1-${hash.digest('hex').slice(0, 16)}`;
}

function codeFiles(path: string): string[] {
  const module = `${path}${CODE_EXTENSION}`;
  if (statSync(module, { throwIfNoEntry: false })?.isFile()) return [module];
  return filesIn(path).filter((file) => file.endsWith(CODE_EXTENSION));
}

function filesIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesIn(join(dir, entry.name)) : [join(dir, entry.name)]));
}
