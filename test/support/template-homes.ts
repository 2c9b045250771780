// Vitest global setup of the integration projects: one directory per run for the template homes
// that test/support/migrated-home.ts makes on first use and copies for each file that asks, handed
// to the test files through `inject` and removed when the run ends.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    templateHomes: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(join(tmpdir(), 'marquee-template-homes-'));
  project.provide('templateHomes', root);
  return () => rm(root, { recursive: true, force: true });
}
