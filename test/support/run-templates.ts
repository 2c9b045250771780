// What a test run makes once and every file copies: a home migrated by `marquee db migrate`
// (migrated-home.ts) and a dump of an empty PGlite data directory (fresh-pglite.ts). The
// integration projects' global setup (template-homes.ts) makes the ones the run's files import
// before any file starts, so no file waits for another to make one: when a file made it and the
// others waited, a loaded machine held the waiting files past their hook timeout while the maker
// ran. Outside such a run (a benchmark, the unit project, a file the setup did not see import the
// template) there is none, and the caller makes what it needs itself.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface RunTemplate {
  /** Its directory's name among the run's templates. */
  name: string;
  /** The module that copies it: a run whose files import it (however indirectly) gets the template. */
  module: string;
  /** Makes the template into `directory`, which does not exist yet. */
  make(directory: string): Promise<void>;
}

/** Where the run's templates are (the global setup hands it to the files), or undefined. */
async function runDirectory(): Promise<string | undefined> {
  if (!process.env.VITEST) return undefined;
  const { inject } = await import('vitest');
  return inject('templateHomes');
}

/** The template's path, made (a failure to make it is named here, to every file that asks). */
export const templatePath = (root: string, template: RunTemplate): string => join(root, template.name);
/** Where a failure to make the template is kept, its message the file's text. */
export const templateFailure = (root: string, template: RunTemplate): string => join(root, `${template.name}.failed`);

/**
 * This run's copy of `template`, already made by the global setup; undefined when the run has
 * none, and the caller makes its own. Throws the setup's failure to make it.
 */
export async function runTemplate(template: RunTemplate): Promise<string | undefined> {
  const root = await runDirectory();
  if (root === undefined) return undefined;
  const failed = templateFailure(root, template);
  if (existsSync(failed)) throw new Error(`the template ${template.name} could not be made: ${await readFile(failed, 'utf8')}`);
  const ready = templatePath(root, template);
  return existsSync(ready) ? ready : undefined;
}
