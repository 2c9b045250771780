// A benchmark's targets, printed one per line as met or MISSED, and the process's exit status: 1
// when any was missed, so that a script running benchmarks can tell.
export function reportChecks(checks: ReadonlyArray<readonly [name: string, ok: boolean]>): void {
  console.log('');
  for (const [name, ok] of checks) console.log(`${ok ? 'met ' : 'MISSED'}  ${name}`);
  process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
}
