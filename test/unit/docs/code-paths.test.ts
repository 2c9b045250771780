// The code paths the docs cite exist: every `folder/…/file.ts` (or .mjs, .sql, .json, .sh) a guide
// names under one of the repository's top-level folders is a file of the repository, so a module
// moved or renamed without its docs fails here. Paths with placeholders (`{orgId}`, `<id>`, `*`)
// are layouts, not files, and paths under other roots (`orgs/…`, `MARQUEE_HOME/…`) are the store's
// or the home's.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { guides, ROOT, readGuide } from './docs-files.ts';

const TOP_FOLDERS = new Set(
  readdirSync(ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules' && entry.name !== 'dist')
    .map((entry) => entry.name),
);

/** The paths of files under the repository's top-level folders that a text names. */
function citedPaths(text: string): Set<string> {
  const paths = new Set<string>();
  for (const match of text.matchAll(/(?<![\w./-])((?:[\w.-]+\/)+[\w.-]+\.(?:ts|mjs|js|sql|json|sh))(?![\w/])/g)) {
    const path = match[1]!;
    if (TOP_FOLDERS.has(path.split('/')[0]!)) paths.add(path);
  }
  return paths;
}

describe('the code paths of the docs', () => {
  it.each(guides())('%s cites only files that exist', (path) => {
    expect([...citedPaths(readGuide(path))].filter((cited) => !existsSync(join(ROOT, cited)))).toEqual([]);
  });

  it('reads paths under top-level folders, not layouts nor other roots', () => {
    expect([...citedPaths('`gateway/errors.ts`, (builder/runs/runner.ts), orgs/{orgId}/current.json, orgs/x/a.json, `../x/y.ts`, https://example.com/gateway/a.ts')]).toEqual([
      'gateway/errors.ts',
      'builder/runs/runner.ts',
    ]);
  });
});
