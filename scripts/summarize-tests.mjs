// Prints the closing lines CI reads from vitest's JSON reports (scripts/test.sh): per run of the
// suites "<label>: N passed, N failed" (", N skipped" when any), each failed or skipped test named
// above it with the first line of its failure — CI keeps only the tail of the output — then one
// plain line "N passed, N failed" over every run, the static checks counted once.
// Exits 1 when a report is missing or anything failed.
//
//   node scripts/summarize-tests.mjs CHECKS_PASSED CHECKS_FAILED LABEL=REPORT [LABEL=REPORT …]
import { readFileSync } from 'node:fs';

const [checksPassedText, checksFailedText, ...runs] = process.argv.slice(2);
let passed = Number(checksPassedText ?? 0);
let failed = Number(checksFailedText ?? 0);
let anyPassed = false;
for (const run of runs) {
  const at = run.lastIndexOf('=');
  const label = run.slice(0, at);
  const path = run.slice(at + 1);
  const counts = countsOf(path);
  if (counts === undefined) {
    console.log(`${label}: no test report at ${path}`);
    failed++;
    continue;
  }
  for (const line of counts.notes) console.log(`${label}: ${line}`);
  console.log(`${label}: ${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''}`);
  passed += counts.passed;
  failed += counts.failed;
  anyPassed ||= counts.passed > 0;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || !anyPassed ? 1 : 0);

function countsOf(path) {
  let report;
  try {
    report = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  const counts = { passed: 0, failed: 0, skipped: 0, notes: [] };
  for (const file of report.testResults ?? []) {
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) {
      counts.failed++; // a file that failed to load or whose hooks failed counts as one failure
      counts.notes.push(`failed to run: ${file.name}: ${(file.message ?? '').split('\n')[0]}`);
    }
    for (const test of file.assertionResults ?? []) {
      if (test.status === 'passed') counts.passed++;
      else if (test.status === 'failed') {
        counts.failed++;
        const why = (test.failureMessages ?? [])[0] ?? '';
        counts.notes.push(`failed: ${file.name} > ${test.fullName}: ${why.split('\n')[0].slice(0, 300)}`);
      } else {
        counts.skipped++;
        counts.notes.push(`skipped: ${test.fullName} (${test.status})`);
      }
    }
  }
  return counts;
}
