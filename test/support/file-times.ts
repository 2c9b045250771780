// A vitest reporter (scripts/test.sh adds it): each test file's own time — importing it, its hooks
// (the servers and processes a beforeAll starts) and its tests — written as JSON to the path in
// MARQUEE_FILE_TIMES, for scripts/slowest-tests.mjs. The JSON reporter's file times leave the hooks
// and the import out, which is where an integration file spends most of its time.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export interface FileTime {
  project: string;
  file: string;
  seconds: number;
  state: string;
}

export default class FileTimes implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const path = process.env.MARQUEE_FILE_TIMES;
    if (!path) return;
    const times: FileTime[] = testModules.map((module) => {
      const spent = module.diagnostic();
      const ms = spent.environmentSetupDuration + spent.prepareDuration + spent.setupDuration + spent.collectDuration + spent.duration;
      return { project: module.project.name, file: relative(process.cwd(), module.moduleId), seconds: Math.round(ms) / 1000, state: module.state() };
    });
    writeFileSync(path, `${JSON.stringify(times, null, 1)}\n`);
  }
}
