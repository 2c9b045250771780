// The TypeScript compiler over the whole tree (strict): a type error fails the suite like any test.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('the whole project type-checks (tsc --noEmit, strict)', async () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  const result = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, [tsc, '--noEmit', '-p', root], { cwd: root, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr });
    });
  });
  expect(result.output).toBe('');
  expect(result.code).toBe(0);
});
