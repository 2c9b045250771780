// A MARQUEE_HOME whose embedded database `marquee db migrate` has made, for the files that start
// from one. Making it is most of a CLI file's set-up: PGlite's initdb and Marquee's migrations
// cost about 11 s of CPU per new home on Node 26 (docs/development.md "Where the time goes"), so a
// run whose files import this runs the real `marquee db migrate` once, into a template, before its
// files start (test/support/run-templates.ts), and every file gets a copy of it. The files that
// test `db migrate` itself still run it on a new home. A copy is what `db migrate` left, modes
// included (owner-only), so a command finds nothing to tighten in it; it holds no time-dependent
// data (the sample is seeded by each file, relative to its own clock) and no store yet.
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { marquee } from './cli.ts';
import { type RunTemplate, runTemplate } from './run-templates.ts';

async function migrate(home: string): Promise<void> {
  const made = await marquee(['db', 'migrate'], { MARQUEE_HOME: home });
  if (made.code !== 0) throw new Error(`marquee db migrate exited ${made.code}: ${made.stderr}`);
}

export const MIGRATED_HOME: RunTemplate = { name: 'migrated-home', module: fileURLToPath(import.meta.url), make: migrate };

/**
 * A new MARQUEE_HOME holding a copy of the migrated template: a new temporary directory named
 * from `prefix`, or the directory `at`, which must not exist yet. Outside a run that keeps
 * templates, `db migrate` makes it there.
 */
export async function migratedHome(where: { prefix: string } | { at: string }): Promise<string> {
  const home = 'at' in where ? where.at : await mkdtemp(join(tmpdir(), where.prefix));
  const template = await runTemplate(MIGRATED_HOME);
  if (template === undefined) await migrate(home);
  else await cp(template, home, { recursive: true });
  return home;
}
