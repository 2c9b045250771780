// The documentation as the docs' inventory tests read it: the guides' text, and one row or section of
// a page, so that each test names the list it holds against the code.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** README.md and every docs/*.md, as paths from the root. */
export function guides(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

export const readGuide = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** The text under a heading, up to the next heading of the same or a higher level; throws when there is none. */
export function sectionOf(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, '') === heading);
  if (start === -1) throw new Error(`no heading "${heading}"`);
  const level = lines[start]!.indexOf(' ');
  const end = lines.findIndex((line, index) => index > start && /^#{1,6} /.test(line) && line.indexOf(' ') <= level);
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n');
}

/** The table row of a markdown text whose first cell is `name`; throws when there is none. */
export function rowOf(markdown: string, name: string): string {
  const row = markdown.split('\n').find((line) => line.startsWith(`| ${name} |`));
  if (row === undefined) throw new Error(`no row "${name}"`);
  return row;
}
