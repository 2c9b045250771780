// The Node.js programs a person on this machine runs the examples with: the machine's own `node`
// (the first on PATH outside this checkout's .tools/, where scripts/test.sh puts Node 26 first for
// its second run) and the one the suite runs on, each line once. An example that runs with both runs
// where its README says, not only where the suite happens to run.
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const TOOLS = fileURLToPath(new URL('../../.tools', import.meta.url));

export interface NodeLine {
  /** The executable. */
  command: string;
  /** `v20.20.2`. */
  version: string;
}

export function nodeLines(): NodeLine[] {
  const lines: NodeLine[] = [];
  for (const command of [machineNode(), process.execPath]) {
    if (command === undefined) continue;
    const version = execFileSync(command, ['--version'], { encoding: 'utf8' }).trim();
    if (!lines.some((line) => line.version.split('.')[0] === version.split('.')[0])) lines.push({ command, version });
  }
  return lines;
}

function machineNode(): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory === '' || resolve(directory).startsWith(TOOLS)) continue;
    const command = join(directory, 'node');
    try {
      accessSync(command, constants.X_OK);
      return command;
    } catch {}
  }
  return undefined;
}
