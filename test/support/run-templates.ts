// What a test run makes once and every file copies (test/support/template-homes.ts keeps the run's
// directory for them): the first file that asks for a template makes it, under a lock that is a
// directory (made or not, at once); the files that ask meanwhile wait for it. Outside a vitest run
// with that directory (a benchmark, a project without the global setup) there is none, and the
// caller makes what it needs itself.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { until } from './until.ts';

/** Long enough for `db migrate` on a loaded machine. */
const MAKE_TIMEOUT_MS = 180_000;

async function runDirectory(): Promise<string | undefined> {
  if (!process.env.VITEST) return undefined;
  const { inject } = await import('vitest');
  return inject('templateHomes');
}

/**
 * The directory `name` of this run's templates, made by `make` into the directory it is given (a
 * failure is kept, and named to every file that asks); undefined outside a run that keeps them.
 */
export async function runTemplate(name: string, make: (directory: string) => Promise<void>): Promise<string | undefined> {
  const root = await runDirectory();
  if (root === undefined) return undefined;
  const ready = join(root, name);
  const failed = join(root, `${name}.failed`);
  let mine = false;
  try {
    await mkdir(join(root, `${name}.lock`));
    mine = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (mine) {
    const partial = join(root, `${name}.partial`);
    try {
      await make(partial);
      await rename(partial, ready);
    } catch (error) {
      await writeFile(failed, (error as Error).message);
    }
  }
  await until(`the template ${name}`, () => existsSync(ready) || existsSync(failed), { timeoutMs: MAKE_TIMEOUT_MS, intervalMs: 100 });
  if (existsSync(failed)) throw new Error(`the template ${name} could not be made: ${await readFile(failed, 'utf8')}`);
  return ready;
}
