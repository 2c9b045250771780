// Runs one measured build (bench/build-child.ts) in a child process with the product's node flags
// and the given environment, and returns what the child measured: its wall time, objects written,
// and its own peak RSS.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { NODE_FLAGS } from './node-flags.ts';

const run = promisify(execFile);
const BUILD_CHILD = fileURLToPath(new URL('./build-child.ts', import.meta.url));

export interface MeasuredBuild {
  mode: string;
  wallMs: number;
  organizations: number;
  objectsWritten: number;
  failed: string[];
  maxRssMb: number;
  /** User and system CPU time of the whole child process. */
  cpuMs: number;
  /** A run divided among builders (`open`, `join`): its results, the distinct organizations among them, each builder's share. */
  run?: number;
  distinct?: number;
  byBuilder?: Record<string, number>;
}

/** `args`: build-child's (`read`; `build` and an optional organization id; `scheduled`; `open` or `join` and a builder name). Rejects when an organization failed. */
export async function measuredBuild(env: NodeJS.ProcessEnv, ...args: string[]): Promise<MeasuredBuild> {
  const { stdout } = await run(process.execPath, [...NODE_FLAGS, BUILD_CHILD, ...args], { env, maxBuffer: 64 << 20 });
  const measured = JSON.parse(stdout.trim().split('\n').pop()!) as MeasuredBuild;
  if (measured.failed.length) throw new Error(`build failed: ${measured.failed.slice(0, 3).join('; ')}`);
  return measured;
}
