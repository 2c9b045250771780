// The documentation's links lead somewhere: every relative link of README.md, docs/*.md and the
// examples' READMEs names a file that exists and, when it has a #fragment, a heading of that file
// (as GitHub makes anchors of headings). README stays a front door: at most 250 lines.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const README_MAX_LINES = 250;

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\- ]/gu, '')
    .replaceAll(' ', '-');
}

/** Every anchor of a markdown text, a repeated heading getting -1, -2 as on GitHub. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of outsideCode(markdown)) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (heading === null) continue;
    const slug = slugOf(heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/** The lines of a markdown text outside fenced code blocks. */
function outsideCode(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

/** The relative links (and images) of a markdown text: no scheme, outside code. */
function relativeLinks(markdown: string): string[] {
  const links: string[] = [];
  for (const line of outsideCode(markdown)) {
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push(target);
    }
  }
  return links;
}

/** What is wrong with each link of `file` (a path from the root), or nothing. */
function brokenLinks(file: string, markdown: string, read: (path: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const link of relativeLinks(markdown)) {
    const [path, fragment] = link.split('#') as [string, string | undefined];
    const target = path === '' ? file : relative(ROOT, resolve(ROOT, dirname(file), decodeURIComponent(path)));
    const text = read(target);
    if (text === undefined) {
      broken.push(`${file}: ${link} (no file ${target})`);
    } else if (fragment !== undefined && target.endsWith('.md') && !anchorsOf(text).has(fragment)) {
      broken.push(`${file}: ${link} (${target} has no heading #${fragment})`);
    }
  }
  return broken;
}

function documents(): string[] {
  const examples = readdirSync(join(ROOT, 'examples'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, 'examples', entry.name, 'README.md')))
    .map((entry) => `examples/${entry.name}/README.md`);
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs, ...examples];
}

const readFromRoot = (path: string): string | undefined => {
  const full = join(ROOT, path);
  if (!existsSync(full)) return undefined;
  // A directory is a fine link target (GitHub lists it); it has no headings.
  try {
    return readFileSync(full, 'utf8');
  } catch {
    return '';
  }
};

describe('documentation links', () => {
  it.each(documents())('%s links only to files and headings that exist', (file) => {
    expect(brokenLinks(file, readFileSync(join(ROOT, file), 'utf8'), readFromRoot)).toEqual([]);
  });

  it(`keeps README.md a front door of at most ${README_MAX_LINES} lines`, () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('links README.md to every guide in docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const file of documents().filter((path) => path.startsWith('docs/'))) expect(readme).toContain(`](${file})`);
  });
});

describe('the link checker', () => {
  it('makes anchors as GitHub does', () => {
    expect(slugOf('Try it: a change, served within a second')).toBe('try-it-a-change-served-within-a-second');
    expect(slugOf('Gateway — `npm run bench:gateway`')).toBe('gateway--npm-run-benchgateway');
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n## A')]).toEqual(['a', 'a-1', 'a-2']);
  });

  it('finds a missing file and a missing heading, and ignores external links and code', () => {
    const files: Record<string, string> = { 'docs/b.md': '# Here\n' };
    const markdown = [
      '[ok](b.md#here) [gone](missing.md) [no heading](b.md#there) [self](#top) [web](https://example.com/x.md)',
      '`[in code](nowhere.md)`',
      '```',
      '[in a block](nowhere.md)',
      '```',
      '# Top',
    ].join('\n');
    expect(brokenLinks('docs/a.md', markdown, (path) => (path === 'docs/a.md' ? markdown : files[path]))).toEqual([
      'docs/a.md: missing.md (no file docs/missing.md)',
      'docs/a.md: b.md#there (docs/b.md has no heading #there)',
    ]);
  });
});
