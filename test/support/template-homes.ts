// Vitest global setup of the integration projects: the run's templates (run-templates.ts), made
// before any file starts, into one directory per run that the files are handed through `inject`
// and that is removed when the run ends. Made here, a template is bounded by its own making
// only, not by the hook timeout of files waiting for it, and nothing else of the run competes with
// it for the cores. It makes only the templates that the run's files import, however indirectly:
// the compatibility scope, or one file that copies no home, does not pay for `db migrate`. Every
// project's setup shares the one directory and the one making.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { EMPTY_PGLITE } from './fresh-pglite.ts';
import { MIGRATED_HOME } from './migrated-home.ts';
import { type RunTemplate, templateFailure, templatePath } from './run-templates.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    templateHomes: string;
  }
}

const TEMPLATES: readonly RunTemplate[] = [MIGRATED_HOME, EMPTY_PGLITE];

/** Far past `db migrate` at a load average of 20 (about 11 s of CPU); a hang fails the files that copy it. */
const MAKE_TIMEOUT_MS = 600_000;

const TESTS = dirname(dirname(fileURLToPath(import.meta.url)));
/** `from './x.ts'`, `import './x.ts'` and `import('./x.ts')`: the repository's own modules are imported by relative path. */
const RELATIVE_IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;

/** Adds `file` and every module under test/ it imports, however indirectly, to `seen`. */
function addImports(file: string, seen: Set<string>): void {
  if (seen.has(file) || !file.startsWith(TESTS) || !existsSync(file)) return;
  seen.add(file);
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) addImports(resolve(dirname(file), specifier!), seen);
}

async function make(root: string, template: RunTemplate): Promise<void> {
  const partial = join(root, `${template.name}.partial`);
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not made within ${MAKE_TIMEOUT_MS / 1000} s`)), MAKE_TIMEOUT_MS);
  });
  try {
    await Promise.race([template.make(partial), timeout]);
    await rename(partial, templatePath(root, template));
    process.stderr.write(`test templates: ${template.name} made in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    await writeFile(templateFailure(root, template), (error as Error).message);
  } finally {
    clearTimeout(timer);
  }
}

/** The run's directory, with the templates that `files` import made in it. */
async function makeTemplates(files: readonly string[]): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'marquee-template-homes-'));
  const imported = new Set<string>();
  for (const file of files) addImports(file, imported);
  // No file list (vitest's state API is experimental): every template, rather than none.
  const wanted = files.length === 0 ? TEMPLATES : TEMPLATES.filter((template) => imported.has(template.module));
  await Promise.all(wanted.map((template) => make(root, template)));
  return root;
}

/** One making per vitest process, whichever project's setup asks first. */
const RUN = Symbol.for('marquee.test-templates');
const shared = globalThis as { [RUN]?: Promise<string> };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared[RUN] ??= makeTemplates(project.vitest.state.getPaths());
  const root = await shared[RUN];
  project.provide('templateHomes', root);
  return () => rm(root, { recursive: true, force: true });
}
