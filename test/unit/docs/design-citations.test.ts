// The code's comments and the guides cite docs/design.md by the name of a section, a decision or a
// paragraph (`docs/design.md "Runs divided among builders"`); every name cited is the start of one
// of design.md's headings, the first cell of one of its tables, or the bold or italic lead of a
// paragraph, so a section renamed or dropped without its citations fails here rather than leaving
// a reader with a name to search for.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, readGuide } from './docs-files.ts';

/** design.md's headings, its tables' first cells and its paragraphs' bold or italic leads, lower case, without backquotes. */
function citableNames(design: string): { headings: string[]; names: Set<string> } {
  const headings: string[] = [];
  const names = new Set<string>();
  for (const line of design.split('\n')) {
    const heading = /^#{1,6} (.+)$/.exec(line);
    if (heading) headings.push(plain(heading[1]!));
    const row = /^\| ([^|]+?) \|/.exec(line);
    if (row) names.add(plain(row[1]!));
    for (const lead of line.matchAll(/\*\*([^*]+?)\.?\*\*|(?<![*\w])\*([^*]+?)\.?\*(?![*\w])/g)) names.add(plain(lead[1] ?? lead[2]!));
  }
  return { headings, names };
}

const plain = (name: string) => name.replaceAll('`', '').toLowerCase();

/** The first name each `design.md "…"` citation of a text quotes, a name wrapped over comment lines read as one line. */
function citedNames(text: string): string[] {
  const unwrapped = text.replace(/\s*\n\s*(?:\/\/|\*|#)?\s*/g, ' ');
  return [...unwrapped.matchAll(/design\.md "([^"]+)"/g)].map((match) => match[1]!);
}

/** The repository's tracked sources and guides, but this file, whose citations are examples. */
function trackedTexts(): string[] {
  const listed = execFileSync('git', ['ls-files', '*.ts', '*.mjs', '*.js', '*.sh', '*.md'], { cwd: ROOT, encoding: 'utf8' });
  return listed.split('\n').filter((path) => path !== '' && path !== 'test/unit/docs/design-citations.test.ts');
}

describe('citations of docs/design.md', () => {
  const { headings, names } = citableNames(readGuide('docs/design.md'));
  const citable = (name: string) => names.has(plain(name)) || headings.some((heading) => heading.startsWith(plain(name)));

  it('name a heading or a decision of design.md, in every tracked file', () => {
    const unknown = trackedTexts().flatMap((path) =>
      citedNames(readFileSync(join(ROOT, path), 'utf8'))
        .filter((name) => !citable(name))
        .map((name) => `${path}: "${name}"`),
    );
    expect(unknown).toEqual([]);
  });

  it('reads the first name of each citation', () => {
    expect(citedNames('(docs/design.md "Gateway": nosniff) and docs/design.md "Store layout" and "Keys"')).toEqual(['Gateway', 'Store layout']);
    expect(citedNames('// as the docs say (docs/design.md "Keys and the rate limit in one\n// call per turn")')).toEqual(['Keys and the rate limit in one call per turn']);
  });
});
