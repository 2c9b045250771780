// Reading the recipe of docs/production.md and the files of deploy/ as an operator's machine would:
// the shell blocks the suite runs, environment files as systemd reads them, a unit's directives,
// and the few substitutions a test must make (its own directories, ports and servers). Pure text
// work; the test that runs them is install.test.ts.

/** The info string of the blocks the suite runs: ```sh recipe (GitHub shows them as sh). */
const RECIPE_BLOCK = /^```sh recipe\n([\s\S]*?)^```$/gm;

/** The shell blocks marked `sh recipe` in the section headed `heading` (up to the next heading of its level), in order. */
export function recipeBlocks(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no section ${JSON.stringify(heading)}`);
  const level = /^#+/.exec(heading)![0];
  const rest = markdown.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`^${level} `, 'm'));
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(RECIPE_BLOCK)].map((match) => match[1]!);
}

/** An environment file as systemd's EnvironmentFile= reads the plain ones of deploy/: NAME=value lines, # comments. */
export function environmentOf(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const equals = trimmed.indexOf('=');
    if (equals <= 0) throw new Error(`not a NAME=value line: ${JSON.stringify(line)}`);
    variables[trimmed.slice(0, equals)] = trimmed.slice(equals + 1);
  }
  return variables;
}

/** Sets (or, for null, removes) variables of an environment file, keeping its comments: the operator's edit of step 3. */
export function editEnvironment(text: string, changes: Record<string, string | null>): string {
  const pending = new Map(Object.entries(changes));
  const lines = text.split('\n').flatMap((line) => {
    const name = /^([A-Z_][A-Z0-9_]*)=/.exec(line)?.[1];
    if (name === undefined || !pending.has(name)) return [line];
    const value = pending.get(name)!;
    pending.delete(name);
    return value === null ? [] : [`${name}=${value}`];
  });
  for (const [name, value] of pending) if (value !== null) lines.push(`${name}=${value}`);
  return lines.join('\n');
}

/** The values of every `name=` line of a systemd unit, in order. */
export function unitDirectives(unit: string, name: string): string[] {
  return unit
    .split('\n')
    .filter((line) => line.startsWith(`${name}=`))
    .map((line) => line.slice(name.length + 1).trim());
}

/**
 * Replaces each `from` by its `to`, every occurrence. `what` names the text for the error when a
 * `from` is not in it (so a renamed path cannot be skipped silently); undefined: the text may lack some.
 */
export function substitute(text: string, replacements: ReadonlyArray<readonly [string, string]>, what?: string): string {
  let result = text;
  for (const [from, to] of replacements) {
    if (what !== undefined && !result.includes(from)) throw new Error(`${what} no longer holds ${JSON.stringify(from)}: the test's substitution must follow it`);
    result = result.replaceAll(from, to);
  }
  return result;
}
