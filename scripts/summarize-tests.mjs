// Prints the closing line CI reads — "N passed, N failed" (", N skipped" when any, each named
// above it) — from vitest's JSON report plus the static checks' counts (scripts/test.sh).
// Exits 1 when the report is missing or anything failed.
import { readFileSync } from 'node:fs';

const path = process.argv[2];
const checksPassed = Number(process.argv[3] ?? 0);
const checksFailed = Number(process.argv[4] ?? 0);
let report;
try {
  report = JSON.parse(readFileSync(path, 'utf8'));
} catch (error) {
  console.log(`no test report at ${path}: ${error.message}`);
  console.log(`${checksPassed} passed, ${checksFailed + 1} failed`);
  process.exit(1);
}
let passed = checksPassed;
let failed = checksFailed;
const skipped = [];
for (const file of report.testResults ?? []) {
  if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) {
    failed++; // a file that failed to load or whose hooks failed counts as one failure
    console.log(`failed to run: ${file.name}: ${(file.message ?? '').split('\n')[0]}`);
  }
  for (const test of file.assertionResults ?? []) {
    if (test.status === 'passed') passed++;
    else if (test.status === 'failed') failed++;
    else skipped.push(`${test.fullName} (${test.status})`);
  }
}
for (const name of skipped) console.log(`skipped: ${name}`);
console.log(`${passed} passed, ${failed} failed${skipped.length ? `, ${skipped.length} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
