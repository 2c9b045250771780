// Vitest global setup of the integration project: the tests that run bin/marquee run the compiled
// product, so dist/ is rebuilt first when any source is newer (scripts/ensure-build.sh; a no-op
// when it is current). `npm test` has built it already; this covers `npx vitest run <file>`.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function buildProduct(): void {
  execFileSync('sh', [fileURLToPath(new URL('../../scripts/ensure-build.sh', import.meta.url))], { stdio: 'inherit' });
}
